"""How soon `ep.events()` hands over an event, by push (long polls the event answers) and by the
polling it replaced (ask both ends every 100 ms), measured side by side on the same events of one
episode in one run, so the shared machine's noise cancels in the ratio.

An HTTP agent on the episode's proxy alternates a page load (a site event) and a reported click (a
GUI action), at seeded random gaps of 50–250 ms; each reader's delay is from the agent sending the
request that makes the event to the reader holding it (the push reader often has it before the
agent has its answer).

    .venv/bin/python benchmarks/event_delivery.py [--n 60]
"""

import argparse
import asyncio
import random
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

import webchaos

OLD_POLL_S = 0.1  # the old `ep.events()`'s sleep between polls


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def key(event: dict[str, Any]) -> tuple[str, int]:
    return event["source"], int(event["seq"])


async def push_reader(ep: webchaos.Episode, seen_at: dict[tuple[str, int], float]) -> None:
    async for event in ep.events():
        seen_at[key(event)] = time.perf_counter()


async def polling_reader(ep: webchaos.Episode, seen_at: dict[tuple[str, int], float], requests: list[int]) -> None:
    """The old loop: both ends asked at once without waiting, then 100 ms of sleep."""
    manager = ep._live.manager
    events_seen = actions_seen = 0
    while ep._live.final_state is None:
        try:
            events, actions = await asyncio.gather(manager.oracle.events(ep.id, since=events_seen),
                                                   manager.control.actions(ep.id, since=actions_seen))
        except Exception:  # closed between the check and the call
            return
        requests[0] += 2
        now = time.perf_counter()
        for event in events:
            seen_at[("site", event.seq)] = now
        for action in actions:
            seen_at[("gui", int(action["seq"]))] = now
        events_seen += len(events)
        actions_seen += len(actions)
        await asyncio.sleep(OLD_POLL_S)


async def measure(n: int) -> None:
    rng = random.Random(7)
    root = Path(tempfile.mkdtemp(prefix="webchaos-bench-"))
    async with webchaos.Stack(state_dir=root / "state", run_dir=root / "runs") as stack, \
            stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep, aiohttp.ClientSession() as session:
        pushed: dict[tuple[str, int], float] = {}
        polled: dict[tuple[str, int], float] = {}
        requests = [0]
        readers = [asyncio.ensure_future(push_reader(ep, pushed)),
                   asyncio.ensure_future(polling_reader(ep, polled, requests))]
        sent: dict[tuple[str, int], float] = {}
        await asyncio.sleep(0.3)
        started = time.perf_counter()
        for i in range(n):
            if i % 2 == 0:
                sent[("site", i // 2)] = time.perf_counter()
                async with session.get("http://shop.test/", proxy=ep.proxy_url) as response:
                    await response.read()
            else:
                action = {"kind": "click", "t": time.time() * 1000, "page": "/",
                          "target": {"role": "button", "name": f"b{i}"}}
                sent[("gui", i // 2 + 1)] = time.perf_counter()
                async with session.post("http://shop.test/__webchaos/actions", proxy=ep.proxy_url,
                                        json={"actions": [action]}) as response:
                    await response.read()
            await asyncio.sleep(rng.uniform(0.05, 0.25))
        await asyncio.sleep(2 * OLD_POLL_S)
        elapsed = time.perf_counter() - started
        await ep.grade()
        await asyncio.gather(*readers)
    missing = [k for k in sent if k not in pushed or k not in polled]
    if missing:
        raise SystemExit(f"events not delivered: {missing[:5]}")
    push_ms = [(pushed[k] - t) * 1000 for k, t in sent.items()]
    poll_ms = [(polled[k] - t) * 1000 for k, t in sent.items()]
    print(f"{n} events (half site events, half GUI actions) over {elapsed:.1f} s, both readers on the same episode")
    for name, ms in (("push (long polls)", push_ms), (f"polling every {OLD_POLL_S * 1000:.0f} ms", poll_ms)):
        print(f"  {name:<24} median {statistics.median(ms):7.2f} ms  p90 {pct(ms, 0.9):7.2f} ms  "
              f"max {max(ms):7.2f} ms")
    print(f"  polling / push, median delay: {statistics.median(poll_ms) / statistics.median(push_ms):.1f}x;"
          f"  p90: {pct(poll_ms, 0.9) / pct(push_ms, 0.9):.1f}x")
    print(f"  the poller made {requests[0]} requests ({requests[0] / elapsed:.1f}/s) for {n} events")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=60, help="events (alternating site events and GUI actions)")
    asyncio.run(measure(parser.parse_args().n))


if __name__ == "__main__":
    main()

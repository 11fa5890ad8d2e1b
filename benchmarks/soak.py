"""Soak: many episodes through one stack; does the proxy or the sites server keep memory per episode?

500 cheap episodes (browserless) on one stack, a few at a time: open (oracle + proxy listener),
drive a few requests through the episode's own proxy port (the start page, a search, an
add-to-cart POST), close (HAR and ledger written, state read back), delete. One HTTP client
serves every episode, as a careless agent harness would: its pool keeps keep-alive connections
to the ports of closed episodes, which the proxy must drop when it closes an episode (before
it did, the proxy grew by 11.8% between the 50th and the 500th episode). Every shop task and
variant in turn, seed = episode number, so seed, server, client and network faults all fire.
The resident memory (VmRSS) of the proxy and of the sites server is sampled after the 50th and
after the last episode; the goal is the second within 10% of the first.

    .venv/bin/python benchmarks/soak.py [--episodes 500] [--warmup 50] [-j 5]

Exit status 1 when either process grew by more than 10%.
"""

import argparse
import asyncio
import gc
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import aiohttp

from harness.episodes.manager import EpisodeManager, EpisodeSpec, episode_id_for
from harness.run.runner import plan_matrix
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from sites.registry import load_site_catalog

GOAL = 0.10


def rss_kib(pid: int) -> int:
    for line in (Path("/proc") / str(pid) / "status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


async def drive(session: aiohttp.ClientSession, proxy: str, start_url: str, statuses: Counter[str]) -> None:
    """A few requests through the episode's proxy; counts the answers by status, and the requests a
    network fault cut."""
    base = start_url.split("/", 3)
    origin = f"{base[0]}//{base[2]}"
    try:
        async with session.get(start_url, proxy=proxy) as r:
            await r.read()
            statuses[str(r.status)] += 1
        async with session.get(f"{origin}/search?q=a", proxy=proxy) as r:
            page = await r.text()
            statuses[str(r.status)] += 1
        found = re.search(r'href="/product/([A-Za-z0-9]+)"', page)
        if found:
            async with session.post(f"{origin}/api/cart", json={"product_id": found.group(1), "quantity": 1},
                                    proxy=proxy) as r:
                await r.read()
                statuses[str(r.status)] += 1
    except (aiohttp.ClientError, TimeoutError):  # a reset or hang fault: the episode is over for this client
        statuses["cut"] += 1


async def soak(episodes: int, warmup: int, concurrency: int, shared_client: bool = True) -> int:
    catalog = load_site_catalog()
    shop = sorted(t for t, task in catalog.tasks.items() if task.site == "shop")
    kinds = plan_matrix(catalog, shop, None, [1])
    with tempfile.TemporaryDirectory(prefix="webchaos-soak-") as tmp:
        async with Services(state_dir=Path(tmp) / "state") as stack:
            sites, proxy = (s.process.pid for s in stack.services if s.process is not None)
            oracle = OracleClient(stack.oracle_url, stack.secret)
            control = ControlClient(stack.control_url, stack.secret)
            manager = EpisodeManager(oracle, control)
            samples: dict[int, tuple[int, int]] = {}
            statuses: Counter[str] = Counter()
            timeout = aiohttp.ClientTimeout(total=30)
            shared = aiohttp.ClientSession(timeout=timeout) if shared_client else None
            started = time.perf_counter()

            async def one(index: int) -> None:
                kind = kinds[index % len(kinds)]
                spec = EpisodeSpec(kind.task, kind.variant, index + 1)
                episode_id = episode_id_for(spec, "soak", index)
                opened = await manager.open(spec, episode_id, Path(tmp) / "runs" / episode_id)
                try:
                    if shared is not None:  # keep-alive connections outlive the episode, in the client's pool
                        await drive(shared, opened.proxy_url, opened.start_url, statuses)
                    else:
                        async with aiohttp.ClientSession(timeout=timeout) as own:
                            await drive(own, opened.proxy_url, opened.start_url, statuses)
                finally:
                    await manager.close(opened)

            for first in range(0, episodes, concurrency):
                await asyncio.gather(*(one(i) for i in range(first, min(episodes, first + concurrency))))
                done = min(episodes, first + concurrency)
                if done in (warmup, episodes):
                    await asyncio.sleep(1.0)  # let both processes finish what the last episodes started
                    samples[done] = (rss_kib(proxy), rss_kib(sites))
            elapsed = time.perf_counter() - started
            await oracle.close()
            await control.close()
            if shared is not None:
                await shared.close()
    gc.collect()
    (p0, s0), (p1, s1) = samples[warmup], samples[episodes]
    client = "one HTTP client for all" if shared_client else "an HTTP client per episode"
    print(f"{episodes} episodes ({len(kinds)} shop task/variant kinds, {concurrency} at a time, {client}) "
          f"in {elapsed:.0f} s, "
          f"{sum(statuses.values())} requests, by status: {dict(sorted(statuses.items()))}")
    worst = 0.0
    for name, before, after in (("proxy (mitmdump)", p0, p1), ("sites server", s0, s1)):
        ratio = after / before
        worst = max(worst, ratio - 1)
        print(f"{name:<18} RSS after episode {warmup}: {before / 1024:7.1f} MiB   after episode {episodes}: "
              f"{after / 1024:7.1f} MiB   ratio {ratio:.3f}")
    verdict = "within" if worst <= GOAL else "OVER"
    print(f"goal: last within {100 * GOAL:.0f}% of the {warmup}th: {verdict} (worst growth {100 * worst:+.1f}%)")
    return 0 if worst <= GOAL else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("-j", "--concurrency", type=int, default=5)
    parser.add_argument("--client-per-episode", action="store_true",
                        help="a new HTTP client per episode (default: one client for all, whose pooled keep-alive "
                        "connections to closed episodes' ports the proxy must drop)")
    args = parser.parse_args()
    if args.warmup % args.concurrency or args.episodes % args.concurrency:
        parser.error("--warmup and --episodes must be multiples of -j")
    sys.exit(asyncio.run(soak(args.episodes, args.warmup, args.concurrency, not args.client_per_episode)))


if __name__ == "__main__":
    main()

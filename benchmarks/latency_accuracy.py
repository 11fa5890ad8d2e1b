"""How exact is `latency`? Requested vs observed delay under 32 concurrent flows, and the flows it must not touch.

Starts a tiny aiohttp upstream and the full stack (the command documented in
proxy_addons/stack.py). For each requested delay (50, 200, 800, 2000 ms) one episode
arms `latency` on `/slow*`; each round sends 32 matching and 32 unmatched GETs at once
(64 concurrent flows). The observed delay of a matching request is its latency minus
the median latency of the same request with no fault (measured first); the error is
observed minus requested. Unmatched requests of the same rounds are compared with the
no-fault baseline: they must not be delayed.

    .venv/bin/python benchmarks/latency_accuracy.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proxy_overhead import (
    BIN,
    REPO,
    SECRET,
    SECRET_HEADER,
    UPSTREAM,
    control,
    free_port,
    pct,
    start_stack,
    stop_all,
    wait_http,
)

DELAYS_MS = (50, 200, 800, 2000)
CONCURRENT = 32


async def bursts(proxy: str, paths: list[str], rounds: int) -> list[tuple[str, float]]:
    """One warm-up burst (connections opened), then `rounds` timed bursts of all paths at once."""
    connector = aiohttp.TCPConnector(limit=len(paths))
    out: list[tuple[str, float]] = []
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one(path: str) -> tuple[str, float]:
            start = time.perf_counter()
            async with session.get(f"http://shop.test{path}", proxy=proxy) as r:
                await r.read()
                assert r.status == 200, (path, r.status)
            return path, (time.perf_counter() - start) * 1000

        await asyncio.gather(*(one(p.replace("/slow", "/warm")) for p in paths))
        for _ in range(rounds):
            out += await asyncio.gather(*(one(p) for p in paths))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="bursts of 32+32 requests per delay")
    args = parser.parse_args()

    up_port, control_port = free_port(), free_port()
    state = Path(tempfile.mkdtemp(prefix="webchaos-latency-"))
    procs = [subprocess.Popen([sys.executable, "-c", UPSTREAM, str(up_port)])]
    rows = []
    try:
        procs.append(start_stack([
            str(BIN / "mitmdump"), "-q", "-s", str(REPO / "proxy_addons" / "stack.py"), "--set", "mode",
            "--set", f"webchaos_sites=127.0.0.1:{up_port}", "--set", "webchaos_site_hosts=shop.test",
            "--set", f"webchaos_control_port={control_port}", "--set", "connection_strategy=lazy",
            "--set", f"confdir={state / 'stack'}"], cwd=REPO))
        wait_http(f"http://127.0.0.1:{up_port}/")
        base = f"http://127.0.0.1:{control_port}"
        wait_http(f"{base}/health", headers={SECRET_HEADER: SECRET})

        def episode(name: str, faults: list[dict[str, object]]) -> str:
            return str(control("POST", f"{base}/episodes", {"episode_id": name, "seed": 1, "faults": faults,
                                                          "out_dir": str(state / name), "port": None})["proxy_url"])

        proxy = episode("baseline", [])
        mixed = [f"/slow/{i}" for i in range(CONCURRENT)] + [f"/fast/{i}" for i in range(CONCURRENT)]
        baseline = [ms for _, ms in asyncio.run(bursts(proxy, mixed, args.rounds))]
        base_p50, base_p99 = pct(baseline, 50), pct(baseline, 99)
        control("DELETE", f"{base}/episodes/baseline")

        for delay in DELAYS_MS:
            name = f"delay-{delay}"
            proxy = episode(name, [{"type": "latency", "layer": "network", "match": {"path": "/slow*"},
                                    "params": {"delay_ms": delay}}])
            errors: list[float] = []
            unmatched: list[float] = []
            for path, ms in asyncio.run(bursts(proxy, mixed, args.rounds)):
                if path.startswith("/slow"):
                    errors.append(ms - base_p50 - delay)
                else:
                    unmatched.append(ms)
            closed = control("DELETE", f"{base}/episodes/{name}")
            assert closed["firings"] == CONCURRENT * args.rounds, closed
            rows.append((delay, statistics.median(errors), pct(errors, 99), min(errors),
                         pct(unmatched, 50), pct(unmatched, 99), max(unmatched)))
    finally:
        stop_all(procs)

    n = CONCURRENT * args.rounds
    print(f"\nlatency accuracy: {CONCURRENT} matching + {CONCURRENT} unmatched GETs at once, {args.rounds} rounds "
          f"({n} samples each); full stack, loopback")
    print(f"no-fault baseline (same 64-flow bursts): p50 {base_p50:.1f} ms, p99 {base_p99:.1f} ms\n")
    print(f"{'requested':>9}  {'error p50':>9} {'error p99':>9} {'error min':>9}   "
          f"{'unmatched p50':>13} {'p99':>7} {'max':>7}")
    for delay, e50, e99, emin, u50, u99, umax in rows:
        print(f"{delay:>7} ms  {e50:>+9.1f} {e99:>+9.1f} {emin:>+9.1f}   {u50:>13.1f} {u99:>7.1f} {umax:>7.1f}")
    print("\nerror = observed - requested (observed = latency - baseline p50); unmatched in ms; "
          "an unmatched max far below the requested delay shows unmatched flows are not delayed.")


if __name__ == "__main__":
    main()

"""How long it takes to open an episode, and what one costs in memory.

Measured three ways in one run, so the shared machine's noise cancels in the ratios:
  1. in-process world generation (EpisodeStore.create);
  2. the oracle's POST /episodes over real HTTP, against a GET /health on the same server (the HTTP floor);
  3. the full open the harness does: oracle create + initial state + proxy listener, then close.

    .venv/bin/python benchmarks/open_episode.py [--n 200]
"""

import argparse
import asyncio
import gc
import statistics
import time
import tracemalloc

import aiohttp

from harness.services.control_client import ControlClient
from harness.services.processes import Services
from scenarios.secret import SECRET_HEADER
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def row(name: str, ms: list[float], floor: float | None = None) -> str:
    med = statistics.median(ms)
    ratio = f"{med / floor:6.1f}x" if floor else "      "
    return f"{name:<48} median {med:7.2f} ms  p99 {pct(ms, 0.99):7.2f} ms  max {max(ms):7.2f} ms  {ratio}"


def in_process(n: int) -> tuple[list[float], float, int]:
    store = EpisodeStore(all_sites())
    times = []
    for i in range(n):
        t = time.perf_counter()
        store.create(site="shop", task_id="shop_buy_by_seller", seed=i, setup=WorldSetup(params={"hard_negatives": 2}))
        times.append((time.perf_counter() - t) * 1000)
    for episode in list(store):
        store.delete(episode.id)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(100):
        store.create(site="shop", task_id="shop_buy_by_seller", seed=i, setup=WorldSetup(params={"hard_negatives": 2}))
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    size = len(next(iter(store)).initial_state)
    return times, (after - before) / 100 / 1024, size


async def over_http(n: int) -> tuple[list[float], list[float], list[float]]:
    health, create, full = [], [], []
    async with Services() as stack, aiohttp.ClientSession(headers={SECRET_HEADER: stack.secret}) as session:
        control = ControlClient(stack.control_url, stack.secret)
        body = {"site": "shop", "task_id": "shop_buy_by_seller", "seed": 0, "setup": {"params": {"hard_negatives": 2}}}
        for i in range(n):
            t = time.perf_counter()
            async with session.get(f"{stack.oracle_url}/health") as r:
                await r.read()
            health.append((time.perf_counter() - t) * 1000)
            t = time.perf_counter()
            async with session.post(f"{stack.oracle_url}/episodes", json={**body, "seed": i}) as r:
                episode_id = (await r.json())["episode_id"]
            create.append((time.perf_counter() - t) * 1000)
            async with session.delete(f"{stack.oracle_url}/episodes/{episode_id}") as r:
                await r.read()
        for i in range(n):
            t = time.perf_counter()
            async with session.post(f"{stack.oracle_url}/episodes",
                                    json={**body, "seed": i, "episode_id": f"full{i}"}) as r:
                await r.read()
            async with session.get(f"{stack.oracle_url}/episodes/full{i}/state/initial") as r:
                await r.read()
            await control.open_episode(f"full{i}", i, [], stack.state_dir / "bench" / f"full{i}")
            full.append((time.perf_counter() - t) * 1000)
            await control.close_episode(f"full{i}")
            async with session.delete(f"{stack.oracle_url}/episodes/full{i}") as r:
                await r.read()
        await control.close()
    return health, create, full


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=200)
    args = parser.parse_args()
    gen, kib, size = in_process(args.n)
    health, create, full = asyncio.run(over_http(args.n))
    floor = statistics.median(health)
    print(f"open an episode (shop, 52 products incl. 2 hard negatives), n={args.n}; ratio = median / HTTP floor")
    print(row("HTTP floor: GET /health on the oracle", health, floor))
    print(row("world generation, in process", gen))
    print(row("oracle POST /episodes (HTTP)", create, floor))
    print(row("full open: oracle + initial state + proxy port", full, floor))
    print(f"memory per open episode: {kib:.0f} KiB (tracemalloc); state JSON: {size / 1024:.1f} KiB")
    print("anchor (seed's public implementation): 33-40 ms median, p90 ~260 ms, up to 17 MB per session")


if __name__ == "__main__":
    main()

"""Evaluation throughput: episodes per minute, where an episode's time goes, what open episodes cost.

Parts (each one run stays a few minutes on 2 cores; `--part all` runs them in turn):
  local    the same sample of episodes (reference agent) at K = 1, 2, 4 episodes at once on one stack:
           episodes/min as a ratio to K = 1, and the share of an episode's wall time spent outside the
           agent (open, close incl. the HAR write, grade; plus what the runner does after it: replay.html,
           run.json), per phase;
  ray      the same sample with `--executor ray` on a local Ray cluster of 1 and of 2 nodes (1 CPU, one
           worker each, K episodes per worker), as ratios to the local run at the same K measured here;
  memory   resident memory (VmRSS) of the proxy and the sites server with 1, 10 and 50 episodes open at
           once (no agent): per open episode, against the idle stack;
  catalog  the whole catalog once (every task: base + every variant, seed 1) at the best K: measured on
           `--episodes` of it and extrapolated (said so), unless `--full-catalog`.

    .venv/bin/python benchmarks/throughput.py [--part local|ray|memory|catalog|all] [--episodes 6]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from harness.agents import ReferenceAgent
from harness.episodes.manager import EpisodeManager, EpisodeSpec
from harness.executors.local import StackExecutor
from harness.run.results import RunSummary
from harness.run.runner import plan_matrix, run_matrix
from harness.services.processes import Services
from scenarios.loader import Catalog
from sites.registry import load_site_catalog

KS = (1, 2, 4)
OPEN_COUNTS = (1, 10, 50)


def sample(catalog: Catalog, count: int) -> list[EpisodeSpec]:
    """`count` episodes spread over the catalog: every task's base and first variants, round-robin by task."""
    by_task = [plan_matrix(catalog, [task], None, [1], one_per_primitive=True) for task in sorted(catalog.tasks)]
    picked: list[EpisodeSpec] = []
    depth = 0
    while len(picked) < count and any(depth < len(specs) for specs in by_task):
        picked += [specs[depth] for specs in by_task if depth < len(specs)][: count - len(picked)]
        depth += 1
    return picked


def rate(summary: RunSummary, wall_s: float) -> float:
    return len(summary.episodes) / wall_s * 60


def phases(summary: RunSummary, wall_s: float, k: int) -> dict[str, float]:
    """Median ms per phase, and the share of an episode slot's wall time spent outside the agent."""
    graded = [r for r in summary.episodes if r.status == "graded"]
    if not graded:
        return {}
    slot_ms = wall_s * 1000 * k / len(summary.episodes)  # wall time one episode held a slot, on average
    agent_ms = statistics.mean(r.timings.agent_ms for r in graded)
    return {
        "open": statistics.median(r.timings.open_ms for r in graded),
        "agent": statistics.median(r.timings.agent_ms for r in graded),
        "close": statistics.median(r.timings.close_ms for r in graded),
        "grade": statistics.median(r.timings.grade_ms for r in graded),
        "outside_share": max(0.0, 1 - agent_ms / slot_ms),
    }


async def timed_run(specs: list[EpisodeSpec], runs: Path, name: str, k: int, *, stack: Services | None = None,
                    executor: object | None = None) -> tuple[RunSummary, float]:
    """One run; its wall time counts everything but starting the stack (or the Ray workers' stacks)."""
    started = time.perf_counter()
    summary, _ = await run_matrix(specs, [ReferenceAgent()], run_id=name, runs_dir=runs, concurrency=k,
                                  time_budget_s=90, stack=stack, executor=executor)  # type: ignore[arg-type]
    return summary, time.perf_counter() - started


async def on_one_stack(specs: list[EpisodeSpec], runs: Path, name: str, ks: tuple[int, ...],
                       state: Path) -> dict[int, tuple[RunSummary, float]]:
    async with Services(state_dir=state) as stack:
        return {k: await timed_run(specs, runs, f"{name}-k{k}", k, stack=stack) for k in ks}


def part_local(specs: list[EpisodeSpec], runs: Path) -> dict[int, float]:
    print(f"\nlocal executor, {len(specs)} episodes (reference agent), one stack (its start not counted)")
    print(f"{'K':>3} {'ep/min':>7} {'vs K=1':>7}   {'open':>6} {'agent':>7} {'close':>6} {'grade':>6} ms (medians)"
          f"   outside agent")
    rates: dict[int, float] = {}
    measured = asyncio.run(on_one_stack(specs, runs, "local", KS, runs.parent / "state"))
    for k in KS:
        summary, wall = measured[k]
        rates[k] = rate(summary, wall)
        p = phases(summary, wall, k)
        failed = sum(1 for r in summary.episodes if r.status != "graded")
        print(f"{k:>3} {rates[k]:>7.1f} {rates[k] / rates[KS[0]]:>6.2f}x   {p.get('open', 0):>6.0f} "
              f"{p.get('agent', 0):>7.0f} {p.get('close', 0):>6.0f} {p.get('grade', 0):>6.0f}      "
              f"{p.get('outside_share', 0):>6.1%}" + (f"  ({failed} infra errors)" if failed else ""))
    return rates


def part_ray(specs: list[EpisodeSpec], runs: Path, k: int) -> None:
    import ray
    from ray.cluster_utils import Cluster

    from harness.executors.ray_cluster import RayExecutor

    local, local_wall = asyncio.run(on_one_stack(specs, runs, "ray-baseline", (k,), runs.parent / "state"))[k]
    baseline = rate(local, local_wall)
    print(f"\nRay executor, {len(specs)} episodes, {k} per worker; baseline: local K={k} in this run "
          f"{baseline:.1f} ep/min")
    for nodes in (1, 2):
        node: dict[str, Any] = {"num_cpus": 1, "object_store_memory": 80 * 2**20}
        started = time.perf_counter()
        cluster = Cluster(initialize_head=True, head_node_args={**node, "include_dashboard": False})
        for _ in range(nodes - 1):
            cluster.add_node(**node)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, log_to_driver=False, configure_logging=False)
        up_s = time.perf_counter() - started
        try:
            executor = RayExecutor([ReferenceAgent()], workers=nodes, per_worker=k, time_budget_s=90)
            workers_s, summary, wall = asyncio.run(started_then_run(executor, specs, runs, f"ray-{nodes}", k))
        finally:
            ray.shutdown()
            cluster.shutdown()
        got = rate(summary, wall)
        failed = sum(1 for r in summary.episodes if r.status != "graded")
        print(f"  {nodes} node(s): {got:6.1f} ep/min = {got / baseline:.2f}x local K={k}   (cluster up {up_s:.1f} s, "
              f"workers' stacks up {workers_s:.1f} s, not counted)" + (f"  {failed} infra errors" if failed else ""))


async def started_then_run(executor: Any, specs: list[EpisodeSpec], runs: Path, name: str,
                           k: int) -> tuple[float, RunSummary, float]:
    """(seconds to start the Ray workers' stacks, then the run and its wall time without that)."""
    t0 = time.perf_counter()
    await executor.start()  # run_matrix's start() is then a no-op
    workers_s = time.perf_counter() - t0
    return (workers_s, *await timed_run(specs, runs, name, k, executor=executor))


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


async def measure_memory(catalog: Catalog, state: Path) -> None:
    specs = sample(catalog, 12)
    async with Services(state_dir=state) as stack:
        executor = StackExecutor(stack)
        await executor.start()
        manager: EpisodeManager = executor._manager  # type: ignore[assignment]
        pids = {s.name: s.process.pid for s in stack.services if s.process is not None}
        await asyncio.sleep(1.0)
        idle = {name: rss_kib(pid) for name, pid in pids.items()}
        print(f"\nmemory of open episodes (no agent; {len(specs)} catalog episodes in turn); idle: "
              + ", ".join(f"{n} {kib / 1024:.0f} MiB" for n, kib in idle.items()))
        print(f"{'open':>5}  " + "  ".join(f"{name + ' MiB':>16} {'per episode':>12}" for name in pids))
        for count in OPEN_COUNTS:
            opened = []
            for i in range(count):
                spec = specs[i % len(specs)]
                opened.append(await manager.open(spec, f"mem-{count}-{i}", state / "episodes" / f"{count}-{i}"))
            await asyncio.sleep(0.5)
            now = {name: rss_kib(pid) for name, pid in pids.items()}
            print(f"{count:>5}  " + "  ".join(
                f"{now[n] / 1024:>16.1f} {(now[n] - idle[n]) / count:>9.0f} KiB" for n in pids))
            for episode in opened:
                await manager.close(episode)
        await executor.stop()


def part_catalog(catalog: Catalog, runs: Path, k: int, count: int, full: bool,
                 measured_rate: float | None = None) -> None:
    """With `measured_rate` (the local part's at K, this run) and no `full`, nothing runs again."""
    everything = plan_matrix(catalog, None, None, [1])
    specs = everything if full else sample(catalog, count)
    if measured_rate is None or full:
        summary, wall = asyncio.run(on_one_stack(specs, runs, "catalog", (k,), runs.parent / "state"))[k]
        measured_rate = rate(summary, wall)
    per_min = measured_rate
    estimate = len(everything) / per_min
    how = "measured" if full else f"extrapolated from {len(specs)} episodes ({per_min:.1f} ep/min)"
    print(f"\nthe whole catalog once (reference agent, seed 1, K={k}): {len(everything)} episodes, "
          f"{estimate:.1f} min ({how})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--part", choices=("local", "ray", "memory", "catalog", "all"), default="all")
    parser.add_argument("--episodes", type=int, default=6, help="episodes in the measured sample")
    parser.add_argument("--k", type=int, default=2, help="episodes at once for the ray and catalog parts")
    parser.add_argument("--full-catalog", action="store_true", help="run the whole catalog, not a sample")
    args = parser.parse_args()
    catalog = load_site_catalog()
    specs = sample(catalog, args.episodes)
    with tempfile.TemporaryDirectory(prefix="webchaos-throughput-") as tmp:
        runs = Path(tmp) / "runs"
        k = args.k
        best: float | None = None
        if args.part in ("local", "all"):
            rates = part_local(specs, runs)
            k = max(rates, key=lambda key: rates[key])
            best = rates[k]
        if args.part in ("ray", "all"):
            part_ray(specs, runs, k)
        if args.part in ("memory", "all"):
            asyncio.run(measure_memory(catalog, Path(tmp) / "memory"))
        if args.part in ("catalog", "all") or (args.part == "local" and best is not None):
            part_catalog(catalog, runs, k, args.episodes, args.full_catalog, best)


if __name__ == "__main__":
    main()

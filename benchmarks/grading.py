"""How long grading takes: per episode at realistic and 10× shop state size, and 1,000 stored episodes at once.

Everything is measured against a baseline taken in the same run (parse both states with
`json.loads` and `compute_diff` them), so the shared machine's noise cancels in the ratios.

  1. per-episode latency (median, p99, max) of the full verdict + process metrics, from state
     bytes, for a no-op, a correct and a messy episode, at 1× (the generator's world: 50
     products) and 10× (products and orders replicated tenfold);
  2. throughput of grading 1,000 episode folders written to a temp dir (states, events,
     ledger, actions), each read from disk and its verdict written back, with asyncio driving
     a process pool (one worker per core), a thread pool, and a plain loop.

    .venv/bin/python benchmarks/grading.py [--n 300] [--episodes 1000]
"""

import argparse
import asyncio
import copy
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path
from random import Random
from typing import Any

from grader.diff import compute_diff
from grader.trace import EpisodeTrace, load_trace
from harness.episodes.manager import grade_episode, grade_episode_dir
from scenarios.clock import EpisodeClock
from scenarios.loader import CATALOG_DIR, load_catalog
from scenarios.schema import Task
from sites.kit.site import WorldSetup
from sites.shop.generator import generate

TASKS_FILE = CATALOG_DIR / "shop" / "tasks.yaml"
TASK_ID = "shop_buy_by_seller"


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def world(seed: int, scale: int) -> tuple[dict[str, Any], dict[str, Any]]:
    w = generate(WorldSetup(params={"hard_negatives": 2}), Random(seed), EpisodeClock(seed))
    state: dict[str, Any] = w.state.model_dump(mode="json")
    for k in range(1, scale):
        state["products"] += [{**p, "id": f"{p['id']}x{k}"} for p in state["products"][:50]]
        state["orders"] += [{**o, "id": f"{o['id']}x{k}"} for o in state["orders"][:10]]
    return state, w.bindings


def finals(state: dict[str, Any], bindings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    target = bindings["target"]["id"]
    negative = (bindings.get("hard_negative_ids") or [target])[0]

    def buy(product: str, extra: bool) -> dict[str, Any]:
        final = copy.deepcopy(state)
        final["orders"].append({
            "id": "o9999", "lines": [{"product_id": product, "product_name": "x", "quantity": 1,
                                      "unit_price_cents": 100}],
            "product_ids": [product], "address_id": bindings["default_address_id"], "shipping": "standard",
            "shipping_cents": 0, "subtotal_cents": 100, "total_cents": 100, "status": "placed",
            "placed_at": "2025-01-01T00:00:00Z",
        })
        for p in final["products"]:
            if p["id"] == product:
                p["stock"] -= 1
        final["next_ids"]["order"] += 1
        if extra:  # overreach: an address edited, a product's price touched, a cart line left behind
            final["addresses"][0]["street"] = "elsewhere"
            final["products"][-1]["price_cents"] += 1
            final["cart_items"].append({"id": "c77", "product_id": product, "product_name": "x", "quantity": 2,
                                        "unit_price_cents": 100, "added_at": "2025-01-01T00:00:00Z"})
        return final

    return {"no-op": copy.deepcopy(state), "correct": buy(target, False), "messy": buy(negative, True)}


def events_for(bindings: dict[str, Any]) -> list[dict[str, Any]]:
    target = bindings["target"]["id"]
    ids = [*bindings.get("hard_negative_ids", []), target]
    out = [{"seq": 0, "kind": "navigate", "name": "view_home", "target": None, "detail": {"product_ids": ids}},
           {"seq": 1, "kind": "search", "name": "search", "target": None, "detail": {"results": ids}}]
    for pid in ids:
        out.append({"seq": len(out), "kind": "inspect", "name": "view_product", "target": pid,
                    "detail": {"revealed": ["seller", "delivery", "Material"]}})
    out.append({"seq": len(out), "kind": "commit", "name": "add_to_cart", "target": "c1",
                "detail": {"product_id": target}})
    out.append({"seq": len(out), "kind": "commit", "name": "place_order", "target": "o9999",
                "detail": {"product_ids": [target]}})
    return out


def time_it(fn: Callable[[], Any], n: int) -> list[float]:
    fn()  # warm caches
    out = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def per_episode(task: Task, n: int) -> None:
    print(f"per-episode grading, {n} runs each (ms; ratio = median / baseline median)")
    print(f"  {'scale':>5} {'episode':>8} {'state KB':>8} | {'baseline':>8} | {'median':>7} {'p90':>7} {'p99':>7}"
          f" {'max':>7}"
          f" | {'ratio':>5}")
    for scale in (1, 10):
        state, bindings = world(7, scale)
        initial = json.dumps(state).encode()
        trace = EpisodeTrace(events=events_for(bindings), actions=[{"kind": "click"}] * 20, attempts=9)
        for label, final_state in finals(state, bindings).items():
            final = json.dumps(final_state).encode()

            def baseline(initial: bytes = initial, final: bytes = final) -> None:
                compute_diff(json.loads(initial), json.loads(final))

            def full(initial: bytes = initial, final: bytes = final, bindings: dict[str, Any] = bindings,
                     trace: EpisodeTrace = trace) -> None:
                grade_episode(task, bindings, initial, final, trace)

            base_ms, full_ms = time_it(baseline, n), time_it(full, n)
            b = statistics.median(base_ms)
            print(f"  {scale:>4}× {label:>8} {len(initial) / 1024:>8.0f} | {b:>8.2f} | "
                  f"{statistics.median(full_ms):>7.2f} {pct(full_ms, 0.9):>7.2f} {pct(full_ms, 0.99):>7.2f} "
                  f"{max(full_ms):>7.2f} | "
                  f"{statistics.median(full_ms) / b:>5.2f}")


def write_episodes(root: Path, count: int) -> list[Path]:
    dirs = []
    worlds = [world(seed, 1) for seed in range(1, 21)]
    for i in range(count):
        state, bindings = worlds[i % len(worlds)]
        label, final = list(finals(state, bindings).items())[i % 3]
        folder = root / f"{i:04d}-{label}"
        folder.mkdir(parents=True)
        (folder / "episode.json").write_text(json.dumps({"task_id": TASK_ID, "bindings": bindings}))
        (folder / "state_initial.json").write_text(json.dumps(state))
        (folder / "state_final.json").write_text(json.dumps(final))
        (folder / "events.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events_for(bindings)))
        (folder / "actions.jsonl").write_text('{"t_ms": 1, "kind": "click"}\n' * 20)
        (folder / "faults.jsonl").write_text("")
        dirs.append(folder)
    return dirs


_TASK: Task | None = None


def _worker_task() -> Task:
    global _TASK
    if _TASK is None:
        _TASK = load_catalog(TASKS_FILE).tasks[TASK_ID]
    return _TASK


def grade_dir(folder: str) -> bool:
    verdict = grade_episode_dir(_worker_task(), Path(folder))
    (Path(folder) / "verdict.json").write_text(verdict.model_dump_json(indent=2))
    return verdict.success


def baseline_dir(folder: str) -> bool:
    f = Path(folder)
    diff = compute_diff(json.loads((f / "state_initial.json").read_bytes()),
                        json.loads((f / "state_final.json").read_bytes()))
    load_trace(f)
    return diff.empty


async def drive(executor: Executor | None, fn: Callable[[str], bool], dirs: list[Path]) -> float:
    loop = asyncio.get_running_loop()
    t = time.perf_counter()
    if executor is None:
        for d in dirs:
            fn(str(d))
    else:
        await asyncio.gather(*(loop.run_in_executor(executor, fn, str(d)) for d in dirs))
    return time.perf_counter() - t


def throughput(count: int) -> None:
    workers = os.cpu_count() or 2
    with tempfile.TemporaryDirectory() as tmp:
        dirs = write_episodes(Path(tmp), count)
        _worker_task()
        print(f"\nconcurrent grading of {count} stored episodes ({workers} cores; read files → verdict → write)")
        base = asyncio.run(drive(None, baseline_dir, dirs))
        print(f"  baseline (json.loads + compute_diff + trace load, loop): {count / base:8.0f} episodes/s")
        rows: list[tuple[str, Executor | None]] = [
            ("plain loop", None),
            (f"asyncio + threads ({workers})", ThreadPoolExecutor(workers)),
            (f"asyncio + processes ({workers})", ProcessPoolExecutor(workers, initializer=_worker_task)),
        ]
        for label, executor in rows:
            if isinstance(executor, ProcessPoolExecutor):
                list(executor.map(_worker_task_noop, range(workers)))  # start the workers outside the timing
            seconds = asyncio.run(drive(executor, grade_dir, dirs))
            if executor is not None:
                executor.shutdown()
            print(f"  {label:<32} {count / seconds:8.0f} episodes/s  ({seconds:.2f} s; "
                  f"{(count / seconds) / (count / base):.2f}× baseline)")
        ok = sum(json.loads((d / "verdict.json").read_text())["success"] for d in dirs)
        print(f"  verdicts written: {count}, successes: {ok}")


def _worker_task_noop(_: int) -> None:
    _worker_task()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=300, help="runs per per-episode measurement")
    parser.add_argument("--episodes", type=int, default=1000, help="stored episodes graded concurrently")
    args = parser.parse_args()
    per_episode(_worker_task(), args.n)
    throughput(args.episodes)


if __name__ == "__main__":
    main()

"""Where a validation run's agent time goes, read from its episode folders (issue 29: profile before cutting).

For each episode: the agent's time (`timings.agent_ms` in result.json) and the gaps between its GUI actions
(actions.jsonl, `t_ms`), bucketed as acting (< 1 s between actions), waiting on the page (1-3 s: a page or a
control that is slow to come) and waiting out (>= 3 s: a postcondition timeout, a second look, a retry, a
patient wait). The baseline, measured in the same runs, is each task's base run with the same agent: a
recipe's row is its episodes' time over their own tasks' base time, so a slow machine slows both sides. The
floor beside it is the least time any base task took.

    .venv/bin/python benchmarks/validation_profile.py runs/validate-shop-*     # or no argument: the newest run
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACTING_S, WAITING_S = 1.0, 3.0
BUCKETS = ("acting", "waiting on the page", "waiting out")


@dataclass
class Episode:
    agent: str
    task: str
    recipe: str  # the variant's recipe, "hand-written", or "base"
    agent_s: float
    buckets: dict[str, float] = field(default_factory=dict)


def _bucket(gap_s: float) -> str:
    return BUCKETS[0] if gap_s < ACTING_S else BUCKETS[1] if gap_s < WAITING_S else BUCKETS[2]


def read_episode(folder: Path) -> Episode | None:
    try:
        result = json.loads((folder / "result.json").read_text())
    except (OSError, ValueError):
        return None
    agent_ms = (result.get("timings") or {}).get("agent_ms")
    if not agent_ms or result.get("status") != "graded":
        return None
    variant = result.get("variant_id")
    recipe = "base" if not variant else variant.split("@", 1)[0] if "@" in variant else "hand-written"
    times = [0.0]
    actions = folder / "actions.jsonl"
    if actions.is_file():
        for line in actions.read_text().splitlines():
            try:
                times.append(float(json.loads(line)["t_ms"]) / 1000)
            except (ValueError, KeyError, TypeError):
                continue
    times.append(max(times[-1], agent_ms / 1000))
    buckets = dict.fromkeys(BUCKETS, 0.0)
    for before, after in itertools.pairwise(times):
        buckets[_bucket(max(0.0, after - before))] += max(0.0, after - before)
    return Episode(result.get("agent", "?"), result.get("task_id", "?"), recipe, agent_ms / 1000, buckets)


def newest_run() -> list[Path]:
    runs = sorted((ROOT / "runs").glob("validate-*"), key=lambda p: p.stat().st_mtime)
    return runs[-1:]


def profile(runs: list[Path]) -> str:
    episodes = [e for run in runs for folder in sorted((run / "episodes").glob("*"))
                if (e := read_episode(folder)) is not None]
    if not episodes:
        return "no graded episodes in " + ", ".join(map(str, runs))
    lines = [f"{len(episodes)} graded episodes from {len(runs)} run(s); "
             f"{sum(e.agent_s for e in episodes) / 3600:.2f} agent-hours"]
    for agent in sorted({e.agent for e in episodes}):
        mine = [e for e in episodes if e.agent == agent]
        base_of: dict[str, list[float]] = defaultdict(list)
        for e in mine:
            if e.recipe == "base":
                base_of[e.task].append(e.agent_s)
        if not base_of:
            lines.append(f"\n{agent}: no base task in these runs, no baseline")
            continue
        baseline = {task: statistics.mean(times) for task, times in base_of.items()}
        floor = min(t for times in base_of.values() for t in times)
        total = sum(e.agent_s for e in mine)
        shares = {b: sum(e.buckets[b] for e in mine) / total for b in BUCKETS}
        lines += [f"\n{agent}: {len(mine)} episodes; its base tasks {statistics.mean(baseline.values()):.1f} s "
                  f"on average, floor (fastest base task) {floor:.1f} s",
                  "  time: " + ", ".join(f"{b} {shares[b]:.0%}" for b in BUCKETS),
                  f"  {'recipe':40s} {'n':>5s} {'mean s':>7s} {'× base':>7s} {'waiting out':>12s} {'agent-min':>10s}"]
        by_recipe: dict[str, list[Episode]] = defaultdict(list)
        for e in mine:
            by_recipe[e.recipe].append(e)
        ranked = sorted(by_recipe.items(), key=lambda kv: -sum(e.agent_s for e in kv[1]))
        for recipe, group in ranked:
            spent = sum(e.agent_s for e in group)
            out = sum(e.buckets[BUCKETS[2]] for e in group) / spent if spent else 0.0
            known = [e for e in group if e.task in baseline]
            ratio = (f"{sum(e.agent_s for e in known) / sum(baseline[e.task] for e in known):7.2f}" if known
                     else f"{'–':>7s}")
            lines.append(f"  {recipe:40s} {len(group):5d} {spent / len(group):7.1f} {ratio} {out:12.0%} "
                         f"{spent / 60:10.1f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("runs", nargs="*", type=Path, help="validation run folders (default: the newest)")
    args = parser.parse_args(argv)
    runs = args.runs or newest_run()
    missing = [str(r) for r in runs if not (r / "episodes").is_dir()]
    if missing:
        print(f"not a run folder (no episodes/): {', '.join(missing)}", file=sys.stderr)
        return 2
    print(profile(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

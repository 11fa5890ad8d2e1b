"""Run tasks × variants × seeds × agents in parallel; every finished episode is kept."""

import asyncio
import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from grader.aggregate import run_aggregates
from harness.agents.base import Agent
from harness.config import RUNS_DIR, find_chromium
from harness.episodes.manager import EpisodeSpec, episode_id_for
from harness.executors import EpisodeExecutor
from harness.executors.local import StackExecutor
from harness.reporting.html import write_report
from harness.reporting.replay import write_replay_quietly
from harness.run.results import AgentInfo, EpisodeResult, RunConfig, RunSummary, write_json_atomic
from harness.run.usage import usage_aggregate
from harness.services.processes import Services
from scenarios.loader import Catalog
from scenarios.schema import Variant
from scenarios.suites import Suite

ProgressHook = Callable[[EpisodeResult], None]
log = logging.getLogger(__name__)


def plan_matrix(catalog: Catalog, task_ids: Sequence[str] | None, variant_ids: Sequence[str] | None,
                seeds: Sequence[int], include_base: bool = True, one_per_primitive: bool = False) -> list[EpisodeSpec]:
    """Every (task, base or applicable variant, seed). Unknown ids raise ValueError.

    Without tasks, every task, or with variants named, the tasks those variants apply to (`-v ID` alone runs
    that variant and its tasks' bases, not every base in the catalog).

    With `one_per_primitive`, each task keeps only its first variant (catalog order) per target
    primitive: a tour of every primitive at a fraction of the cost."""
    for variant_id in variant_ids or []:
        if variant_id not in catalog.variants:
            raise ValueError(catalog.unknown("variant", variant_id))
    if task_ids:
        tasks = list(task_ids)
    elif variant_ids:
        tasks = sorted({task_id for variant_id in variant_ids for task_id in catalog.variants[variant_id].tasks})
    else:
        tasks = sorted(catalog.tasks)
    for task_id in tasks:
        if task_id not in catalog.tasks:
            raise ValueError(catalog.unknown("task", task_id))
    specs = []
    for task_id in tasks:
        task = catalog.tasks[task_id]
        # by default, variants marked unfair, ineffective or harmless are left out
        variants = [v for v in catalog.variants_for(task_id)
                    if (v.by_default if variant_ids is None else v.id in variant_ids)]
        if one_per_primitive:
            firsts: dict[str, Variant] = {}
            for v in variants:
                firsts.setdefault(v.target_primitive.value, v)
            variants = list(firsts.values())
        for seed in seeds:
            if include_base:
                specs.append(EpisodeSpec(task, None, seed))
            specs.extend(EpisodeSpec(task, v, seed) for v in variants)
    return specs


def plan_suite(catalog: Catalog, suite: Suite) -> list[EpisodeSpec]:
    """The suite's episodes, seed by seed; an entry the catalog does not have (or a variant that does not apply
    to its task) raises ValueError naming the suite and the entry."""
    specs = []
    for task_id, variant_id, seed in suite.episodes():
        task = catalog.tasks.get(task_id)
        variant = catalog.variants.get(variant_id) if variant_id is not None else None
        if task is None or (variant_id is not None and (variant is None or task_id not in variant.tasks)):
            raise ValueError(f"suite {suite.ref}: the catalog has no episode {task_id}/{variant_id or 'base'} "
                             f"(write the suites again: webchaos catalog suites --write)")
        specs.append(EpisodeSpec(task, variant, seed))
    return specs


def tour(catalog: Catalog, tasks_per_site: int = 1,
         rank: Callable[[str], int] | None = None) -> tuple[list[str], list[str]]:
    """A fixed, short tour of the catalog (what `webchaos demo` runs): per site, the tasks whose variants
    cover the most target primitives (ties by id; one by default), and one variant per primitive among theirs:
    the one `rank` puts first (lowest; ties in catalog order), else the first. Returns (task ids, variant ids);
    its size grows with the number of sites, not of variants."""
    task_ids: list[str] = []
    variant_ids: list[str] = []
    for site in sorted({t.site for t in catalog.tasks.values()}):
        def reach(task_id: str) -> tuple[int, str]:
            return -len({v.target_primitive for v in catalog.variants_for(task_id)}), task_id
        chosen = sorted((tid for tid, t in catalog.tasks.items() if t.site == site), key=reach)[:tasks_per_site]
        firsts: dict[str, str] = {}
        offered = {v.id: v for task_id in chosen for v in catalog.variants_for(task_id) if v.by_default}
        for variant_id in sorted(offered, key=rank or (lambda _: 0)):  # a stable sort: ties in catalog order
            firsts.setdefault(offered[variant_id].target_primitive.value, variant_id)
        task_ids += chosen
        variant_ids += [variant_id for variant_id in offered if variant_id in firsts.values()]
    return task_ids, variant_ids


def agent_info(agent: Agent) -> AgentInfo:
    command = getattr(agent, "command", None)
    return AgentInfo(name=agent.name, kind="command" if command is not None else "reference",
                     command=command, browser="cdp" if getattr(agent, "needs_cdp", False) else "proxy")


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


class RunsDirError(RuntimeError):
    """The runs folder cannot take a run: not writable, or not enough free space."""


# Below this much free space in the runs folder, a run refuses to start: a reference-agent episode
# writes about 1-5 MB (HAR, states, screenshots), so this leaves room for a few dozen episodes.
# Override with WEBCHAOS_MIN_FREE_MB (0 turns the check off).
MIN_FREE_MB = 200


def check_runs_dir(runs_dir: Path, min_free_mb: float | None = None) -> None:
    """Raise RunsDirError (one line: the folder and the problem) unless `runs_dir` can be created,
    written and has at least `min_free_mb` MiB free (default: WEBCHAOS_MIN_FREE_MB or MIN_FREE_MB)."""
    if min_free_mb is None:
        min_free_mb = float(os.environ.get("WEBCHAOS_MIN_FREE_MB", MIN_FREE_MB))
    try:
        runs_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=runs_dir, prefix=".write-check-") as probe:
            probe.write(b"webchaos")
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        raise RunsDirError(f"runs folder {runs_dir} is not writable: {exc.strerror or exc}") from exc
    free_mb = shutil.disk_usage(runs_dir).free / 2**20
    if free_mb < min_free_mb:
        raise RunsDirError(f"runs folder {runs_dir} has only {free_mb:.0f} MiB free; a run needs at least "
                           f"{min_free_mb:.0f} MiB (set WEBCHAOS_MIN_FREE_MB to change)")


def episodes_to_rerun(summary: RunSummary, run_dir: Path, episode_ids: Sequence[str]) -> tuple[
        list[EpisodeResult], list[str]]:
    """For `--resume`: the finished results to keep (graded, with their result.json) and the planned
    episode ids to run again (missing or infrastructure errors)."""
    recorded = {r.episode_id: r for r in summary.episodes}
    keep: list[EpisodeResult] = []
    rerun: list[str] = []
    for episode_id in episode_ids:
        result = recorded.get(episode_id)
        path = run_dir / "episodes" / episode_id / "result.json"
        if result is None and path.is_file():  # the run stopped between result.json and run.json
            with contextlib.suppress(OSError, ValueError):
                result = EpisodeResult.model_validate_json(path.read_bytes())
        if result is not None and not result.infra_failed and path.is_file():
            keep.append(result)
        else:
            rerun.append(episode_id)
    return keep, rerun


def run_json_due(results: int, written: int) -> bool:
    """Is run.json, holding `written` of the run's `results`, due to be rewritten? Once it misses a twentieth
    of them (and at least one): after every episode, a long run rewrote a file growing with it (a
    2,000-episode validation's is 13 MB), quadratic in the run. A result it misses is in its episode's
    result.json, where `--resume` finds it; an interrupted run writes it whole on the way out."""
    return results - written >= max(1, written // 20)


async def run_matrix(
    specs: Sequence[EpisodeSpec], agents: Sequence[Agent], *, run_id: str | None = None,
    runs_dir: Path = RUNS_DIR, concurrency: int = 2, time_budget_s: float = 120.0,
    on_result: ProgressHook | None = None, stack: Services | None = None, https: bool = False,
    config: RunConfig | None = None, resume: bool = False, record_replay: bool = True,
    executor: EpisodeExecutor | None = None,
) -> tuple[RunSummary, Path]:
    """Run every (spec, agent) on `executor` (default: a `StackExecutor` on `stack`, or on a stack of its
    own, `concurrency` episodes at once). With `resume`, `run_id` names an existing run of the same plan: its
    graded episodes are kept as they are (files untouched) and only the missing and
    infrastructure-failed ones run (again, under the same episode ids)."""
    if executor is None and specs and any(agent.needs_browser for agent in agents):
        find_chromium()  # ChromiumNotFound now, not as an infrastructure error on every episode
    run_id = run_id or new_run_id()
    run_dir = runs_dir / run_id
    jobs = [(spec, agent) for spec in specs for agent in agents]
    names = [agent.name for agent in agents]
    if len(set(names)) != len(names):
        raise ValueError(f"agents must have distinct names, got {names}")
    ids = [episode_id_for(spec, agent.name, index) for index, (spec, agent) in enumerate(jobs)]
    now = datetime.now(UTC).isoformat(timespec="seconds")
    if resume:
        summary = RunSummary.model_validate_json((run_dir / "run.json").read_bytes())
        if summary.planned != len(jobs):
            raise ValueError(f"{run_dir} planned {summary.planned} episodes; this plan has {len(jobs)}: "
                             "not the same run")
        kept, rerun = episodes_to_rerun(summary, run_dir, ids)
        summary.episodes = kept
        summary.interrupted = False
        summary.finished_at = None
        summary.resumed_at.append(now)
        if config is not None:  # what it runs with now (an executor given to --resume, say)
            summary.config = config
        todo = set(rerun)
        for episode_id in rerun:  # a half-written or failed attempt: start afresh
            shutil.rmtree(run_dir / "episodes" / episode_id, ignore_errors=True)
    else:
        check_runs_dir(runs_dir)
        summary = RunSummary(run_id=run_id, started_at=now, planned=len(jobs),
                             agents=[agent_info(agent) for agent in agents], config=config)
        todo = set(ids)
    write_json_atomic(run_dir / "run.json", summary)
    runs_on: EpisodeExecutor = executor or StackExecutor(
        stack, https=https, record_replay=record_replay, time_budget_s=time_budget_s, capacity=concurrency)
    await runs_on.start()
    gate = asyncio.Semaphore(max(1, runs_on.capacity))
    lock = asyncio.Lock()
    written = {"results": len(summary.episodes)}  # how many results run.json holds

    async def one(index: int, spec: EpisodeSpec, agent: Agent) -> None:
        episode_id = ids[index]
        if episode_id not in todo:
            return
        async with gate:
            out_dir = run_dir / "episodes" / episode_id
            result = await runs_on.run(episode_id, spec, agent, out_dir)
            await asyncio.to_thread(write_replay_quietly, out_dir)  # replay.html, linked from the report
            async with lock:
                with contextlib.suppress(OSError):  # a full disk now must not lose the rest of the run
                    if result.infra_failed:
                        write_json_atomic(out_dir / "result.json", result)
                summary.episodes.append(result)
                if run_json_due(len(summary.episodes), written["results"]):
                    write_json_atomic(run_dir / "run.json", summary)
                    written["results"] = len(summary.episodes)
            if on_result is not None:
                on_result(result)

    tasks = [asyncio.ensure_future(one(i, spec, agent)) for i, (spec, agent) in enumerate(jobs)]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        summary.interrupted = True
        for task in tasks:  # stop the episodes still running: none of them gets a result
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    finally:
        summary.episodes.sort(key=lambda r: r.episode_id)
        summary.aggregates = {**run_aggregates(summary.episodes, {s.task.id: s.task.site for s in specs}),
                              "usage": usage_aggregate(summary.episodes)}
        summary.finished_at = datetime.now(UTC).isoformat(timespec="seconds")
        write_json_atomic(run_dir / "run.json", summary)
        try:  # the report is a view of run.json: failing to draw it must never cost the results
            write_report(summary, run_dir)
        except Exception:
            log.exception("could not write %s", run_dir / "report.html")
        await runs_on.stop()
    return summary, run_dir

"""Run tasks × variants × seeds × agents in parallel; every finished episode is kept."""

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path

from grader.aggregate import run_aggregates
from grader.oracle_client import OracleClient
from harness.agents.base import Agent, AgentOutcome
from harness.browser import BrowserPool
from harness.config import RUNS_DIR
from harness.control_client import ControlClient
from harness.episode import EpisodeManager, EpisodeSpec, episode_id_for, run_episode
from harness.html_report import write_report
from harness.replay import write_replay_quietly
from harness.results import AgentInfo, EpisodeResult, RunSummary, write_json_atomic
from harness.stack import Stack
from scenarios.loader import Catalog
from scenarios.schema import Variant

ProgressHook = Callable[[EpisodeResult], None]
log = logging.getLogger(__name__)


def plan_matrix(catalog: Catalog, task_ids: Sequence[str] | None, variant_ids: Sequence[str] | None,
                seeds: Sequence[int], include_base: bool = True, one_per_primitive: bool = False) -> list[EpisodeSpec]:
    """Every (task, base or applicable variant, seed). Unknown ids raise ValueError.

    With `one_per_primitive`, each task keeps only its first variant (catalog order) per target
    primitive: a tour of every primitive at a fraction of the cost."""
    tasks = list(task_ids) if task_ids else sorted(catalog.tasks)
    for task_id in tasks:
        if task_id not in catalog.tasks:
            raise ValueError(f"unknown task {task_id!r}; known: {', '.join(sorted(catalog.tasks))}")
    for variant_id in variant_ids or []:
        if variant_id not in catalog.variants:
            raise ValueError(f"unknown variant {variant_id!r}; known: {', '.join(sorted(catalog.variants))}")
    specs = []
    for task_id in tasks:
        task = catalog.tasks[task_id]
        variants = [v for v in catalog.variants_for(task_id) if variant_ids is None or v.id in variant_ids]
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


def agent_info(agent: Agent) -> AgentInfo:
    command = getattr(agent, "command", None)
    return AgentInfo(name=agent.name, kind="command" if command is not None else "reference",
                     command=command, browser="cdp" if getattr(agent, "needs_cdp", False) else "proxy")


def new_run_id() -> str:
    return datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


async def run_matrix(
    specs: Sequence[EpisodeSpec], agents: Sequence[Agent], *, run_id: str | None = None,
    runs_dir: Path = RUNS_DIR, concurrency: int = 2, time_budget_s: float = 120.0,
    on_result: ProgressHook | None = None, stack: Stack | None = None, https: bool = False,
    record_replay: bool = True,
) -> tuple[RunSummary, Path]:
    run_id = run_id or new_run_id()
    run_dir = runs_dir / run_id
    jobs = [(spec, agent) for spec in specs for agent in agents]
    names = [agent.name for agent in agents]
    if len(set(names)) != len(names):
        raise ValueError(f"agents must have distinct names, got {names}")
    summary = RunSummary(run_id=run_id, started_at=datetime.now(UTC).isoformat(timespec="seconds"),
                         planned=len(jobs), agents=[agent_info(agent) for agent in agents])
    write_json_atomic(run_dir / "run.json", summary)
    own_stack = stack is None
    stack = stack or Stack(https=https)
    browser: BrowserPool | None = None
    if own_stack:
        await stack.start()
    oracle = OracleClient(stack.oracle_url)
    control = ControlClient(stack.control_url)
    manager = EpisodeManager(oracle, control, record_replay=record_replay)
    gate = asyncio.Semaphore(max(1, concurrency))
    lock = asyncio.Lock()

    async def one(index: int, spec: EpisodeSpec, agent: Agent) -> None:
        async with gate:
            episode_id = episode_id_for(spec, agent.name, index)
            out_dir = run_dir / "episodes" / episode_id
            try:
                result = await run_episode(manager, spec, agent, episode_id, out_dir, browser, time_budget_s,
                                           spki_pins=stack.spki_pins)
            except Exception as exc:  # the harness could not run it: record, keep going
                result = EpisodeResult(
                    episode_id=episode_id, task_id=spec.task.id,
                    variant_id=spec.variant.id if spec.variant else None,
                    target_primitive=spec.variant.target_primitive.value if spec.variant else None,
                    seed=spec.seed, agent=agent.name, instruction="", success=False, score=0.0,
                    outcome=AgentOutcome(status="error"), error=f"{type(exc).__name__}: {exc}",
                )
                write_json_atomic(out_dir / "result.json", result)
            await asyncio.to_thread(write_replay_quietly, out_dir)  # replay.html, linked from the report
            async with lock:
                summary.episodes.append(result)
                write_json_atomic(run_dir / "run.json", summary)
            if on_result is not None:
                on_result(result)

    try:
        if any(agent.needs_browser for agent in agents):
            browser = await BrowserPool(spki_pins=stack.spki_pins).start()
        await asyncio.gather(*(one(i, spec, agent) for i, (spec, agent) in enumerate(jobs)))
    except BaseException:
        summary.interrupted = True
        raise
    finally:
        summary.episodes.sort(key=lambda r: r.episode_id)
        summary.aggregates = run_aggregates(summary.episodes, {s.task.id: s.task.site for s in specs})
        summary.finished_at = datetime.now(UTC).isoformat(timespec="seconds")
        write_json_atomic(run_dir / "run.json", summary)
        try:  # the report is a view of run.json: failing to draw it must never cost the results
            write_report(summary, run_dir)
        except Exception:
            log.exception("could not write %s", run_dir / "report.html")
        if browser is not None:
            await browser.stop()
        await oracle.close()
        await control.close()
        if own_stack:
            await stack.stop()
    return summary, run_dir

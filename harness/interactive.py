"""`webchaos up`: one episode left open for an agent you run yourself."""

import asyncio
import signal
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.panel import Panel

from grader.oracle_client import OracleClient
from harness.agents.base import AgentOutcome
from harness.control_client import ControlClient
from harness.episode import EpisodeManager, EpisodeSpec, episode_id_for, grade_episode
from harness.results import EpisodeResult, EpisodeTimings, write_json_atomic
from harness.runner import new_run_id
from harness.stack import Stack
from scenarios.loader import Catalog


async def _wait_for_enter() -> None:
    """Until a line arrives on a terminal's stdin or SIGTERM; without a terminal, until interrupted."""
    loop = asyncio.get_running_loop()
    pressed: asyncio.Future[None] = loop.create_future()

    def done() -> None:
        if not pressed.done():
            pressed.set_result(None)

    # SIGTERM (e.g. from a supervisor) ends the episode as Enter does: graded, nothing left running.
    loop.add_signal_handler(signal.SIGTERM, done)
    fd = sys.stdin.fileno() if sys.stdin and sys.stdin.isatty() else None
    # A reader callback rather than a thread: a thread blocked in readline() would hang shutdown.
    if fd is not None:
        loop.add_reader(fd, done)
    try:
        await pressed
    finally:
        if fd is not None:
            loop.remove_reader(fd)
        loop.remove_signal_handler(signal.SIGTERM)


async def _until_enter_or_interrupt() -> None:
    try:
        await _wait_for_enter()
    except asyncio.CancelledError:
        # Ctrl-C: asyncio.run cancelled us; take the cancellation back and go on to grade.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()


async def _serve(
    catalog: Catalog, task_id: str, variant_id: str | None, seed: int, runs_dir: Path, console: Console,
    https: bool,
) -> int:
    task = catalog.tasks[task_id]
    variant = catalog.variants[variant_id] if variant_id else None
    spec = EpisodeSpec(task, variant, seed)
    run_dir = runs_dir / new_run_id()
    async with Stack(https=https) as stack:
        oracle, control = OracleClient(stack.oracle_url), ControlClient(stack.control_url)
        try:
            manager = EpisodeManager(oracle, control)
            episode_id = episode_id_for(spec, "external", 0)
            started = time.perf_counter()
            episode = await manager.open(spec, episode_id, run_dir / "episodes" / episode_id)
            trust = f" --ignore-certificate-errors-spki-list={','.join(stack.spki_pins)}" if https else ""
            console.print(Panel.fit(
                f"[bold]proxy[/]        {episode.proxy_url}\n"
                f"[bold]start URL[/]    {episode.start_url}\n"
                f"[bold]instruction[/]  {episode.instruction}\n\n"
                f"Point your agent's browser at the proxy, e.g.\n"
                f"  chromium --proxy-server={episode.proxy_url}{trust} {episode.start_url}\n"
                f"Press Enter (or Ctrl-C) when the agent is done to grade the episode.",
                title=f"webchaos episode {episode_id}",
            ))
            await _until_enter_or_interrupt()
            final, firings = await manager.close(episode)
            verdict = grade_episode(task, episode.bindings, episode.initial_state, final)
            result = EpisodeResult(
                episode_id=episode_id, task_id=task.id, variant_id=variant_id,
                target_primitive=variant.target_primitive.value if variant else None, seed=seed,
                agent="external", instruction=episode.instruction, success=verdict.success, score=verdict.score,
                verdict=verdict, outcome=AgentOutcome(status="done"), firings=firings,
                timings=EpisodeTimings(total_ms=(time.perf_counter() - started) * 1000),
            )
            write_json_atomic(episode.out_dir / "result.json", result)
            mark = "[green]success[/]" if verdict.success else "[red]failure[/]"
            console.print(f"{mark} score {verdict.score:.2f}")
            for goal in verdict.subgoals:
                console.print(f"  {'✓' if goal.passed else '✗'} {goal.name}")
            for failure in verdict.failures:
                console.print(f"  [red]•[/] {failure}")
            console.print(f"episode folder: {episode.out_dir}")
            return 0
        finally:
            await oracle.close()
            await control.close()


def serve_one(
    catalog: Catalog, task_id: str, variant_id: str | None, seed: int, runs_dir: Path, console: Console,
    https: bool = False,
) -> int:
    if task_id not in catalog.tasks:
        console.print(f"[red]error[/] unknown task {task_id!r}; known: {', '.join(sorted(catalog.tasks))}")
        return 2
    if variant_id and variant_id not in catalog.variants:
        console.print(f"[red]error[/] unknown variant {variant_id!r}; known: {', '.join(sorted(catalog.variants))}")
        return 2
    try:
        return asyncio.run(_serve(catalog, task_id, variant_id, seed, runs_dir, console, https))
    except KeyboardInterrupt:
        return 130

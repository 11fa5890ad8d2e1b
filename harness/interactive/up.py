"""`webchaos up`: one episode left open for an agent you run yourself."""

import asyncio
import shlex
import signal
import sys
from pathlib import Path

from rich.console import Console
from rich.panel import Panel

from harness.agents.isolate import PortRelay, port_of
from harness.agents.usage import USAGE_FILE, UsageFileError, read_usage
from harness.api import Stack
from harness.run.runner import new_run_id
from scenarios.answers import ANSWER_FILE, Answer, AnswerFileError, read_answer
from scenarios.loader import Catalog

INFEASIBLE_WORD = "!infeasible"


async def _wait_for_enter() -> str | None:
    """Until a line arrives on a terminal's stdin (returned) or SIGTERM; without a terminal, until interrupted."""
    loop = asyncio.get_running_loop()
    pressed: asyncio.Future[str | None] = loop.create_future()
    fd = sys.stdin.fileno() if sys.stdin and sys.stdin.isatty() else None

    def done(line: bool) -> None:
        if not pressed.done():
            pressed.set_result(sys.stdin.readline() if line else None)

    # SIGTERM (e.g. from a supervisor) ends the episode as Enter does: graded, nothing left running.
    loop.add_signal_handler(signal.SIGTERM, done, False)
    # A reader callback rather than a thread: a thread blocked in readline() would hang shutdown.
    if fd is not None:
        loop.add_reader(fd, done, True)
    try:
        return await pressed
    finally:
        if fd is not None:
            loop.remove_reader(fd)
        loop.remove_signal_handler(signal.SIGTERM)


async def _until_enter_or_interrupt() -> str | None:
    try:
        return await _wait_for_enter()
    except asyncio.CancelledError:
        # Ctrl-C: asyncio.run cancelled us; take the cancellation back and go on to grade.
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()
        return None


def typed_answer(line: str | None) -> Answer | None:
    """The line typed before Enter: the agent's answer ('!infeasible': the task cannot be done)."""
    text = (line or "").strip()
    if not text:
        return None
    if text.casefold() == INFEASIBLE_WORD:
        return Answer(infeasible=True)
    return Answer(value=text)


async def _serve(
    catalog: Catalog, task_id: str, variant_id: str | None, seed: int, runs_dir: Path, console: Console,
    https: bool, cdp: bool, isolate: bool = False, answer: Answer | None = None,
) -> int:
    async with Stack(https=https, catalog=catalog, run_dir=runs_dir / new_run_id()) as stack, \
            stack.episode(task_id, variant_id, seed, cdp=cdp, agent="external") as episode, \
            PortRelay([port_of(episode.proxy_url)] + ([port_of(episode.cdp_url)] if cdp else [])) as relay:
        trust = f" --ignore-certificate-errors-spki-list={','.join(stack.spki_pins)}" if https else ""
        lines = [f"[bold]proxy[/]        {episode.proxy_url}"]
        if cdp:
            lines.append(f"[bold]CDP URL[/]      {episode.cdp_url}")
        lines += [
            f"[bold]start URL[/]    {episode.start_url}",
            f"[bold]instruction[/]  {episode.instruction}",
            f"[bold]answer file[/]  {episode.out_dir / ANSWER_FILE}  (text, or JSON {{\"answer\": …, "
            f"\"infeasible\": true|false}})",
            f"[bold]usage file[/]   {episode.out_dir / USAGE_FILE}  (optional: JSON {{\"input_tokens\", "
            f"\"output_tokens\", \"cost_usd\", \"model\"}})",
            "",
        ]
        if cdp:
            lines += ["Attach your agent to the episode's Chromium (already on the proxy, start URL open), e.g.",
                      f"  WEBCHAOS_CDP_URL={episode.cdp_url} python my_agent.py",
                      "  playwright: await p.chromium.connect_over_cdp(os.environ['WEBCHAOS_CDP_URL'])"]
        else:
            lines += ["Point your agent's browser at the proxy, e.g.",
                      f"  chromium --proxy-server={episode.proxy_url}{trust} {episode.start_url}"]
        if isolate:
            prefix = shlex.join(relay.command("YOUR AGENT COMMAND")[:-3])  # up to and with "--"
            lines += ["Run your agent isolated (only this episode's ports exist on 127.0.0.1 there):",
                      f"  {prefix} sh -c 'YOUR AGENT COMMAND'"]
        lines.append("Press Enter (or Ctrl-C) when the agent is done to grade the episode; to give its answer "
                     f"here instead of the answer file, type it first ({INFEASIBLE_WORD}: it cannot be done).")
        console.print(Panel.fit("\n".join(lines), title=f"webchaos episode {episode.id}"))
        typed = typed_answer(await _until_enter_or_interrupt())
        try:
            from_file = read_answer(episode.out_dir / ANSWER_FILE)
        except AnswerFileError as exc:
            console.print(f"[red]answer file refused:[/] {exc}")
            from_file = Answer()
        given = answer or typed or (from_file if from_file.given else None)
        try:
            if (spent := read_usage(episode.out_dir / USAGE_FILE)) is not None:
                episode.report_usage(**spent.model_dump())
        except UsageFileError as exc:
            console.print(f"[red]usage file refused:[/] {exc}")
        result = await episode.grade(answer=given)
        mark = "[green]success[/]" if result.success else "[red]failure[/]"
        console.print(f"{mark} score {result.score:.2f}")
        assert result.verdict is not None
        for goal in result.verdict.subgoals:
            console.print(f"  {'✓' if goal.passed else '✗'} {goal.name}")
        if result.verdict.answer is not None:
            check = result.verdict.answer
            console.print(f"  {'✓' if check.passed else '✗'} answer: given {check.given}, expected {check.expected} "
                          f"({check.normaliser})", highlight=False)
        for failure in result.verdict.failures:
            console.print(f"  [red]•[/] {failure}")
        console.print(f"episode folder: {episode.out_dir}")
        return 0


def serve_one(
    catalog: Catalog, task_id: str, variant_id: str | None, seed: int, runs_dir: Path, console: Console,
    https: bool = False, cdp: bool = False, isolate: bool = False, answer: Answer | None = None,
) -> int:
    """Open the episode and keep it open until Enter, SIGTERM or Ctrl-C (130); the task, variant and runs
    folder are checked by the caller (the `up` command). The answer graded: `answer`, else the line typed
    before Enter, else the episode's answer file."""
    try:
        return asyncio.run(_serve(catalog, task_id, variant_id, seed, runs_dir, console, https, cdp, isolate,
                                  answer))
    except KeyboardInterrupt:
        return 130

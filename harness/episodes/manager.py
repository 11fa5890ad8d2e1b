"""The episode manager: open → run agent → close → grade → write the episode folder."""

import asyncio
import contextlib
import gc
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from grader.bindings import fill
from grader.trace import EpisodeTrace, load_trace
from grader.verdict import Verdict, grade
from harness.agents.base import Agent, AgentOutcome, EpisodeContext
from harness.agents.external import killed_from_outside
from harness.agents.usage import Usage, add_usage
from harness.browser.cdp import CdpBrowser
from harness.browser.pool import BrowserPool
from harness.episodes.files import write_user_files
from harness.run.results import EpisodeResult, EpisodeTimings, InfraError, write_json_atomic
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import signal_name
from scenarios.answers import ANSWER_FILE, Answer, AnswerLike, as_answer, read_answer
from scenarios.chaos_profiles import ChaosProfile
from scenarios.faults import SITE_LAYERS
from scenarios.ledger import count_firings
from scenarios.profile import GENERIC_VOCABULARY
from scenarios.schema import USER_FILES_DIR, PlanStep, Task, Variant
from sites.registry import profiles


class Alongside(Protocol):
    """Something that runs beside the agent on the live episode (a scenario script, harness/episodes/script.py)."""

    @property
    def name(self) -> str: ...

    async def run(self, live: "LiveEpisode") -> None: ...


@dataclass(frozen=True)
class EpisodeSpec:
    task: Task
    variant: Variant | None
    seed: int
    profile: ChaosProfile | None = None  # background faults laid over the episode (`--chaos-profile`)
    script: Alongside | None = None  # a scenario script run beside the agent (`webchaos script`)

    @property
    def overlay(self) -> str | None:
        """What the episode has besides its variant: `profile:<name>` or `script:<name>`."""
        if self.profile is not None:
            return f"profile:{self.profile.name}"
        return f"script:{self.script.name}" if self.script is not None else None

    @property
    def faults(self) -> list[dict[str, Any]]:
        """The variant's envelopes, then the profile's."""
        return [*(self.variant.faults if self.variant else []), *(self.profile.faults if self.profile else [])]

    @property
    def label(self) -> str:
        extra = f"+{self.overlay}" if self.overlay else ""
        return f"{self.task.id}/{self.variant.id if self.variant else 'base'}{extra}/s{self.seed}"


@dataclass
class OpenEpisode:
    spec: EpisodeSpec
    episode_id: str
    out_dir: Path
    bindings: dict[str, Any]
    instruction: str
    start_url: str
    proxy_url: str
    plan: list[PlanStep]
    initial_state: bytes


def episode_id_for(spec: EpisodeSpec, agent: str, index: int) -> str:
    extra = f"+{spec.overlay}" if spec.overlay else ""
    raw = f"{index:04d}-{spec.task.id}-{spec.variant.id if spec.variant else 'base'}{extra}-s{spec.seed}-{agent}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw)[:120]


class InfraFailure(Exception):
    """An episode webchaos itself could not finish: the result is an infrastructure error."""

    def __init__(self, infra: InfraError) -> None:
        super().__init__(infra.cause)
        self.infra = infra


def matched_in_world(faults: list[dict[str, Any]], bindings: dict[str, Any]) -> list[dict[str, Any]]:
    """The faults with their `match` written for this world: a match may name what the world holds, as a plan
    step does (a recipe's client fault takes its step's `within: "{outdated.old_marker}"`)."""
    return [{**f, "match": fill(f["match"], bindings)} if isinstance(f.get("match"), dict) else f for f in faults]


class EpisodeManager:
    def __init__(self, oracle: OracleClient, control: ControlClient, record_replay: bool = True) -> None:
        self.oracle = oracle
        self.control = control
        self.record_replay = record_replay  # rrweb page recording (rrweb.jsonl) for `webchaos replay`

    async def open(self, spec: EpisodeSpec, episode_id: str, out_dir: Path) -> OpenEpisode:
        out_dir.mkdir(parents=True, exist_ok=True)
        faults = spec.faults
        info = await self.oracle.create_episode(
            site=spec.task.site, task_id=spec.task.id, seed=spec.seed,
            variant_id=spec.variant.id if spec.variant else None, episode_id=episode_id,
            setup={"params": spec.task.setup.params},
            faults=[f for f in faults if f.get("layer") in SITE_LAYERS],
        )
        initial = await self.oracle.initial_state_bytes(episode_id)
        (out_dir / "state_initial.json").write_bytes(initial)
        bindings = info["bindings"]
        try:
            write_user_files(out_dir / USER_FILES_DIR, spec.task.setup.files, bindings, spec.seed)
            proxy = await self.control.open_episode(episode_id, spec.seed, matched_in_world(faults, bindings),
                                                    out_dir, record_replay=self.record_replay)
        except BaseException:
            await self.oracle.delete_episode(episode_id)
            raise
        start_url = info["base_url"] + spec.task.setup.start_path
        if proxy.get("site_scheme") == "https" and start_url.startswith("http://"):
            start_url = "https://" + start_url[len("http://"):]  # the proxy serves the sites over HTTPS
        bindings_with_url = {**bindings, "start_url": start_url}
        plan = [PlanStep.model_validate(fill(s.model_dump(exclude_none=True), bindings_with_url))
                for s in spec.task.plan]
        opened = OpenEpisode(
            spec=spec, episode_id=episode_id, out_dir=out_dir, bindings=bindings,
            instruction=" ".join(str(fill(spec.task.instruction, bindings)).split()),
            start_url=start_url, proxy_url=proxy["proxy_url"], plan=plan, initial_state=initial,
        )
        write_json_atomic(out_dir / "episode.json", {
            "episode_id": episode_id, "task_id": spec.task.id,
            "variant_id": spec.variant.id if spec.variant else None, "seed": spec.seed,
            "instruction": opened.instruction, "start_url": start_url, "proxy_url": opened.proxy_url,
            "bindings": bindings,
        })
        return opened

    async def close(self, episode: OpenEpisode) -> tuple[bytes, int]:
        """Stop the episode's proxy port (HAR written), save final state and events; returns (state, firings)."""
        closed = await self.control.close_episode(episode.episode_id)
        # The port is closed, so nothing changes the site's state now: the three reads go at once.
        final, events, site_lines = await asyncio.gather(
            self.oracle.state_bytes(episode.episode_id), self.oracle.events(episode.episode_id),
            self.oracle.ledger(episode.episode_id))
        (episode.out_dir / "state_final.json").write_bytes(final)
        with (episode.out_dir / "events.jsonl").open("w") as handle:
            for event in events:
                handle.write(event.model_dump_json() + "\n")
        site_firings = append_site_ledger(episode.out_dir / "faults.jsonl", site_lines)
        await self.oracle.delete_episode(episode.episode_id)
        return final, int(closed.get("firings", 0)) + site_firings


def append_site_ledger(path: Path, lines: list[dict[str, Any]]) -> int:
    """Append the sites' seed/server ledger lines after the proxy's, `seq` continuing; returns firings."""
    existing = path.read_text().splitlines() if path.exists() else []
    last = max((int(json.loads(line).get("seq", 0)) for line in existing if line.strip()), default=0)
    with path.open("a", encoding="utf-8") as handle:
        for offset, line in enumerate(lines, start=1):
            handle.write(json.dumps({**line, "seq": last + offset}, separators=(",", ":")) + "\n")
    return count_firings(lines)


def grade_episode(task: Task, bindings: dict[str, Any], initial: bytes, final: bytes,
                  trace: EpisodeTrace | None = None, answer: Answer | None = None) -> Verdict:
    # Parsing two states allocates tens of thousands of objects at once, which triggers full
    # collections (tens of ms on large states) for nothing: grading creates no reference cycles.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        profile = profiles().get(task.site)
        return grade(task, bindings, json.loads(initial), json.loads(final), trace,
                     vocabulary=profile.vocabulary if profile is not None else GENERIC_VOCABULARY, answer=answer)
    finally:
        if was_enabled:
            gc.enable()


def grade_episode_dir(task: Task, episode_dir: Path, attempts: int | None = None,
                      answer: Answer | None = None) -> Verdict:
    """Grade from an episode folder's files only: what `run_episode` and `webchaos grade` both do
    (with `answer`, else the answer result.json stored, else the one the agent left in its answer file)."""
    meta = json.loads((episode_dir / "episode.json").read_bytes())
    return grade_episode(task, meta["bindings"], (episode_dir / "state_initial.json").read_bytes(),
                         (episode_dir / "state_final.json").read_bytes(), load_trace(episode_dir, attempts),
                         answer if answer is not None else stored_answer(episode_dir))


def stored_answer(episode_dir: Path) -> Answer | None:
    result = episode_dir / "result.json"
    if result.exists():
        stored = json.loads(result.read_bytes()).get("outcome", {}).get("answer")
        return Answer.model_validate(stored) if stored is not None else None
    answer = read_answer(episode_dir / ANSWER_FILE)
    return answer if answer.given else None


class LiveEpisode:
    """An open episode: its proxy port, its optional CDP browser, its folder; graded once, on demand.

    `open` creates the site state and the proxy listener (and launches the episode's own
    Chromium when `cdp` is set); `finish` closes the browser, then the proxy port (HAR and
    ledger written) and saves the final state and events; `grade` finishes if needed and
    grades from server state, writing result.json. Both are idempotent."""

    def __init__(self, manager: EpisodeManager, opened: OpenEpisode, agent: str,
                 browser: CdpBrowser | None) -> None:
        self.manager = manager
        self.opened = opened
        self.agent = agent
        self.browser = browser
        self.timings = EpisodeTimings()
        self.final_state: bytes | None = None
        self.firings = 0
        self.result: EpisodeResult | None = None
        self.answer: Answer | None = None  # given mid-way (`answer()`); grade(answer=...) overrides
        self.usage: Usage | None = None  # the sum of `report_usage` calls (None: none reported)
        self._started = time.perf_counter()
        self._agent_started = self._started

    @classmethod
    async def open(cls, manager: EpisodeManager, spec: EpisodeSpec, episode_id: str, out_dir: Path, *,
                   agent: str = "api", cdp: bool = False, spki_pins: Sequence[str] = (),
                   headless: bool = True, chromium_args: Sequence[str] = ()) -> "LiveEpisode":
        started = time.perf_counter()
        opened = await manager.open(spec, episode_id, out_dir)
        browser: CdpBrowser | None = None
        if cdp:
            browser = CdpBrowser(opened.proxy_url, start_url=opened.start_url, spki_pins=spki_pins,
                                 headless=headless, log_path=out_dir / "chromium.log", extra_args=chromium_args)
            try:
                await browser.start()
            except BaseException:
                await manager.close(opened)
                raise
        live = cls(manager, opened, agent, browser)
        live._started = started
        live._agent_started = time.perf_counter()
        live.timings.open_ms = (live._agent_started - started) * 1000
        return live

    @property
    def cdp_url(self) -> str | None:
        return self.browser.cdp_url if self.browser is not None else None

    def context(self, plan_browser: BrowserPool | None, time_budget_s: float) -> EpisodeContext:
        """What an agent is given (never the oracle)."""
        spec, opened = self.opened.spec, self.opened
        return EpisodeContext(
            episode_id=opened.episode_id, task=spec.task, variant=spec.variant, seed=spec.seed,
            instruction=opened.instruction, start_url=opened.start_url, proxy_url=opened.proxy_url,
            plan=opened.plan, out_dir=opened.out_dir, browser=plan_browser, time_budget_s=time_budget_s,
            cdp_url=self.cdp_url,
        )

    async def screenshots(self, prefix: str) -> list[Path]:
        """Every open tab of the episode's CDP browser, into screenshots/ (nothing without one)."""
        if self.browser is None or self.final_state is not None:
            return []
        return await self.browser.screenshots(self.opened.out_dir / "screenshots", prefix)

    async def finish(self) -> None:
        """Close the browser, then the proxy port; save the final state. Safe to call twice."""
        if self.final_state is not None:
            return
        self.timings.agent_ms = (time.perf_counter() - self._agent_started) * 1000
        t0 = time.perf_counter()
        if self.browser is not None:  # the browser first: a removed port does not close open connections
            await self.browser.stop()
        self.final_state, self.firings = await self.manager.close(self.opened)
        self.timings.close_ms = (time.perf_counter() - t0) * 1000

    async def abandon(self) -> None:
        """After an infrastructure failure: close what is left (browser, proxy port, site state), never raising."""
        if self.final_state is not None:
            return
        self.final_state = b""
        if self.browser is not None:
            with contextlib.suppress(Exception):
                await self.browser.stop()
        with contextlib.suppress(Exception):
            await self.manager.control.close_episode(self.opened.episode_id)
        with contextlib.suppress(Exception):
            await self.manager.oracle.delete_episode(self.opened.episode_id)

    def browser_death(self) -> InfraError | None:
        """The episode's Chromium, if it ended without being asked to."""
        process = self.browser.process if self.browser is not None else None
        if process is None or process.returncode is None:
            return None
        code = process.returncode
        if code == 0:
            return None  # closed on purpose (an agent may close its browser)
        how = f"killed by {signal_name(-code)}" if code < 0 else f"exited with status {code}"
        return InfraError(process="chromium", cause=f"the episode's chromium (pid {process.pid}) {how}",
                          pid=process.pid, signal=signal_name(-code) if code < 0 else None,
                          exit_code=code if code >= 0 else None)

    def give_answer(self, answer: AnswerLike) -> Answer:
        """Record the agent's answer (the last one given before grading counts)."""
        if self.result is not None:
            raise ValueError("the episode is graded: an answer now would not count")
        self.answer = as_answer(answer)
        return self.answer

    def report_usage(self, usage: Usage) -> Usage | None:
        """Add what the agent spent (several reports add up); returns the total so far."""
        if self.result is not None:
            raise ValueError("the episode is graded: usage reported now would not be recorded")
        self.usage = add_usage(self.usage, usage)
        return self.usage

    async def grade(self, outcome: AgentOutcome | None = None, answer: AnswerLike | None = None) -> EpisodeResult:
        """Finish (if not yet) and grade from server state (and the answer, given here, by `give_answer`
        or in the outcome); writes result.json, with the outcome's usage and what `report_usage` added.
        Graded once."""
        if self.result is not None:
            return self.result
        await self.finish()
        assert self.final_state is not None
        outcome = (outcome or AgentOutcome(status="done")).model_copy()
        if answer is not None:
            outcome.answer = as_answer(answer)
        elif outcome.answer is None:
            outcome.answer = self.answer
        outcome.usage = add_usage(outcome.usage, self.usage)
        spec, opened = self.opened.spec, self.opened
        t0 = time.perf_counter()
        verdict = grade_episode(spec.task, opened.bindings, opened.initial_state, self.final_state,
                                load_trace(opened.out_dir, attempts=outcome.attempts), outcome.answer)
        self.timings.grade_ms = (time.perf_counter() - t0) * 1000
        self.timings.total_ms = (time.perf_counter() - self._started) * 1000
        self.result = EpisodeResult(
            episode_id=opened.episode_id, task_id=spec.task.id,
            variant_id=spec.variant.id if spec.variant else None,
            target_primitive=spec.variant.target_primitive.value if spec.variant else None, seed=spec.seed,
            site=spec.task.site, agent=self.agent, instruction=opened.instruction, success=verdict.success,
            score=verdict.score, verdict=verdict, outcome=outcome, firings=self.firings, timings=self.timings,
            profile=spec.profile.name if spec.profile else None, script=spec.script.name if spec.script else None,
        )
        write_json_atomic(opened.out_dir / "result.json", self.result)
        return self.result


OVERRUN_GRACE_MIN_S = 60.0


def overrun_deadline_s(time_budget_s: float) -> float:
    """How long an episode's agent may run before the runner stops it: its time budget, which an agent
    checks between its own actions, and as long again (at least OVERRUN_GRACE_MIN_S) for the action under way
    when the budget ran out. Past that the agent is stuck (a browser call that never returns): stopping it
    keeps one episode from holding a whole run open."""
    return time_budget_s + max(OVERRUN_GRACE_MIN_S, time_budget_s)


async def run_episode(
    manager: EpisodeManager, spec: EpisodeSpec, agent: Agent, episode_id: str, out_dir: Path,
    browser: BrowserPool | None, time_budget_s: float = 120.0, spki_pins: Sequence[str] = (),
    infra: "asyncio.Future[InfraError] | None" = None,
) -> EpisodeResult:
    """Open, run the agent, finish (even when cancelled), grade. A CDP agent gets its own Chromium.

    `infra` resolves when webchaos itself fails under the episode (a service died): the agent is
    stopped and `InfraFailure` raised. So it is when the episode's Chromium dies, or a `cmd:`
    agent's process is killed by a signal from outside."""
    cdp = bool(getattr(agent, "needs_cdp", False))
    episode = await LiveEpisode.open(manager, spec, episode_id, out_dir, agent=agent.name, cdp=cdp,
                                     spki_pins=spki_pins, chromium_args=getattr(agent, "chromium_args", ()))
    outcome: AgentOutcome
    failure: InfraError | None = None
    script: asyncio.Future[None] | None = None
    try:
        running = asyncio.ensure_future(agent.run(episode.context(browser, time_budget_s)))
        if spec.script is not None:  # started with the agent, stopped when the agent is done
            script = asyncio.ensure_future(spec.script.run(episode))
        watched: set[asyncio.Future[Any]] = {running}
        if infra is not None:
            watched.add(infra)
        if episode.browser is not None and episode.browser.process is not None:
            watched.add(asyncio.ensure_future(episode.browser.process.wait()))
        deadline = asyncio.get_running_loop().time() + overrun_deadline_s(time_budget_s)
        overran = False
        try:
            while True:
                left = deadline - asyncio.get_running_loop().time()
                done, _ = await asyncio.wait(watched, timeout=max(left, 0.0), return_when=asyncio.FIRST_COMPLETED)
                if not done:  # the agent kept its episode past any budget (a browser call that never returned)
                    overran = True
                    break
                if running in done or (infra is not None and infra in done) or episode.browser_death() is not None:
                    break
                watched -= done  # the browser exited cleanly (the agent closed it): wait for the agent
        finally:
            for other in watched - {running, infra}:
                other.cancel()
            if not running.done():  # webchaos failed under it (or we are cancelled): stop the agent
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await running
        try:
            outcome = running.result()
        except asyncio.CancelledError:
            outcome = (AgentOutcome(status="timeout", error=f"stopped: the agent was still running "
                                    f"{overrun_deadline_s(time_budget_s):g} s after its episode opened (its "
                                    f"time budget {time_budget_s:g} s)")
                       if overran else AgentOutcome(status="error", error="stopped: webchaos failed under the episode"))
        except Exception as exc:  # an agent crash is a result, not a harness failure
            outcome = AgentOutcome(status="error", error=f"{type(exc).__name__}: {exc}")
        failure = (infra.result() if infra is not None and infra.done() else None) or episode.browser_death()
        if failure is None and script is not None:
            failure = await stop_script(script, spec)
        if failure is None and killed_from_outside(outcome):
            failure = InfraError(process="agent", cause=f"the agent's {outcome.error}", signal=outcome.signal,
                                 pid=outcome.pid)
        if failure is None:
            # As the reference agent does: the page(s) as the agent left them, named for how it ended.
            await episode.screenshots("final" if outcome.status == "done" else "failed")
    finally:
        if script is not None and not script.done():
            script.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await script
        if failure is None:
            await episode.finish()
        else:
            await episode.abandon()
    if failure is not None:
        raise InfraFailure(failure)
    return await episode.grade(outcome)


async def stop_script(script: "asyncio.Future[None]", spec: EpisodeSpec) -> InfraError | None:
    """Stop a scenario script still running when the agent is done; a script that raised makes the
    episode an infrastructure error (the agent was not the one that failed)."""
    if not script.done():
        script.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await script
        if script.cancelled():
            return None
    if script.cancelled() or script.exception() is None:
        return None
    exc = script.exception()
    name = spec.script.name if spec.script is not None else "?"
    return InfraError(process="harness", cause=f"scenario script {name} raised {type(exc).__name__}: {exc}")

"""The reference agent: observe → ground → act → verify → recover, following the task's plan.

Targets are found by ARIA role + accessible name, afresh before every action.
Each step has a postcondition; on failure the step is retried at most
`max_retries` times, each after one recovery move (`harness/agents/recovery.py`).
Opening the next of several same-named items is a new choice, not a retry: up
to `FREE_CANDIDATES` of those come on top.
With recovery off the first failure ends the episode: the difference between
the two is the measured worth of recovery.

A plan may end in an `answer` step: the agent reads the answer off the page (the
element's text, or a pattern's group in it; every match with `each`). With recovery
on, a step before the plan's first write that still fails once every recovery is
spent means what the task names is not there: the agent reports the task infeasible
(having written nothing) instead of merely stopping.
"""

import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from harness.agents.actions import action_for
from harness.agents.base import AgentOutcome, EpisodeContext
from harness.agents.moves import MoveContext, before_acting
from harness.agents.perception import (
    EffectMissing,
    InputAltered,
    StepFailed,
    TargetMissing,
    click_where_seen,
    document_of,
    first_line,
    ground,
    holds,
    types_as_text,
)
from harness.agents.recovery import (
    BACKTRACK,
    Abilities,
    NoMove,
    StepState,
    complete_effect,
    confirm_effect,
    dismiss_dialog,
    recover,
    renamed_pattern,
)
from scenarios.answers import Answer
from scenarios.faults import Primitive
from scenarios.profile import Affordances
from scenarios.schema import PlanStep
from sites.registry import profiles

# Decoys listed before the genuine item (seed faults add three) must each be opened once to be ruled out.
FREE_CANDIDATES = 4


@dataclass
class _Tally:
    attempts: int = 0
    recoveries: int = 0
    log: list[str] = field(default_factory=list)
    # Fields typed (and files chosen) on the current page, to fill again if a recovery had to leave it.
    form: list[PlanStep] = field(default_factory=list)
    # The last step that chose among same-named candidates, to revisit when its choice proves unusable.
    chooser: tuple[PlanStep, StepState] | None = None
    last_state: StepState | None = None
    # The plan's last search box fill, to search again; the names the site lists items under instead.
    search: PlanStep | None = None
    listed_as: dict[str, str] = field(default_factory=dict)
    answer: Answer | None = None


class ReferenceAgent:
    needs_browser = True

    def __init__(self, recovery: bool = True, max_retries: int = 2, action_timeout_ms: int = 3000,
                 without: Primitive | None = None) -> None:
        """`without`: an ablated agent that makes every recovery move except that primitive's
        (harness/agents/recovery.py RECOVERIES), named reference-without-<primitive>."""
        self.recovery = recovery
        self.abilities = Abilities(recovery=recovery, without=without if recovery else None)
        self.max_retries = max_retries
        self.action_timeout_ms = action_timeout_ms
        self.name = ("reference-no-recovery" if not recovery else
                     f"reference-without-{without.value}" if without is not None else "reference")

    async def run(self, ctx: EpisodeContext) -> AgentOutcome:
        if ctx.browser is None:
            return AgentOutcome(status="error", error="the reference agent needs a browser")
        context = await ctx.browser.new_context(ctx.proxy_url)
        tally = _Tally()
        done = 0
        try:
            page = await context.new_page()
            page.set_default_timeout(self.action_timeout_ms)
            # Loading a page is not an action on it: a busy machine may take longer than a click's wait.
            page.set_default_navigation_timeout(max(self.action_timeout_ms, 15_000))
            opened: list[Page] = []  # tabs the page opened by itself (window.open, a link to a new tab)

            def on_popup(popup: Page) -> None:
                opened.append(popup)

            page.on("popup", on_popup)
            started = time.monotonic()
            document = await document_of(page)  # the document each step starts on: where the last one ended
            for index, step in enumerate(ctx.plan):
                if time.monotonic() - started > ctx.time_budget_s:
                    return self._outcome("timeout", done, ctx, tally, f"time budget of {ctx.time_budget_s}s spent")
                if opened and not self.abilities.may("keep to the task's tab"):
                    # It works on in the newest tab, as agents that follow a new tab do.
                    page = opened[-1]
                    opened.clear()
                    page.on("popup", on_popup)
                    page.set_default_timeout(self.action_timeout_ms)
                    await page.wait_for_load_state("domcontentloaded")
                    tally.log.append(f"step {index}: went on in the tab the page opened ({page.url})")
                error = await self._step(page, ctx, index, step, tally)
                if error is not None:
                    await _screenshot(page, ctx, f"failed-step-{index}")
                    where = f"step {index} ({step.do} {step.name or step.url})"
                    if self.abilities.may("report infeasible") and index < _first_write(ctx.plan):
                        # The plan could not go on (status failed, where it stopped kept), and it says so.
                        tally.answer = Answer(value=f"not found: {where}: {error}", infeasible=True)
                        tally.log.append(f"{where}: still failing with every recovery spent, before any write: "
                                         "reported the task infeasible")
                    return self._outcome("failed", done, ctx, tally, f"{where}: {error}")
                ended_on = await document_of(page)
                self._remember(step, ended_on != document, tally)
                document = ended_on
                done += 1
            await _screenshot(page, ctx, "final")
            return self._outcome("done", done, ctx, tally, None)
        finally:
            await context.close()

    def _outcome(self, status: Literal["done", "failed", "timeout"], done: int, ctx: EpisodeContext,
                 tally: _Tally, error: str | None) -> AgentOutcome:
        return AgentOutcome(status=status, steps_done=done, steps_total=len(ctx.plan), attempts=tally.attempts,
                            recoveries=tally.recoveries, error=error, log=tally.log, answer=tally.answer)

    def _remember(self, step: PlanStep, new_document: bool, tally: _Tally) -> None:
        # A new document has an empty form; a page that only changed its address (a checkout stage kept in
        # the query by history.replaceState) still holds what was typed and chosen on it. A step that writes
        # has sent its form: what was typed is done with (a reload later must not type a sent form again).
        if new_document or step.effect is not None:
            tally.form.clear()
        if step.do in ("fill", "check", "select", "upload"):  # a file chosen is part of the form too
            tally.form.append(step)
        if step.do == "click" and step.role == "link" and tally.last_state is not None:
            tally.chooser = (step, tally.last_state)
        if step.do == "fill" and step.role == "searchbox":
            tally.search = step
        elif step.role != "searchbox":
            tally.search = None  # only the step right after a search may search again

    async def _step(self, page: Page, ctx: EpisodeContext, index: int, step: PlanStep, tally: _Tally) -> str | None:
        words = _affordances(ctx.task.site)
        state = StepState(url_before=page.url, affordances=words, search=tally.search, abilities=self.abilities,
                          moves=MoveContext(words=words, instruction=ctx.instruction, plan=tuple(ctx.plan)))
        tally.last_state = state
        step = _as_listed(step, tally.listed_as)
        label = f"step {index} {step.do} {step.name or step.url}"
        attempt = 0
        while True:
            tally.attempts += 1
            try:
                if state.claimed and not state.acted and step.effect is not None and await confirm_effect(
                        page, step, ctx.start_url, state.affordances):
                    # the write landed after all, only late: doing it again would do it twice
                    tally.log.append(f"{label}: the claimed success shows now; not repeated (attempt {attempt + 1})")
                    return None
                if not state.acted:
                    if state.left_page:
                        await self._refill(page, ctx, tally, redo=state.claimed)
                        state.left_page = False
                    state.url_before = page.url
                    for said in await before_acting(page, step, state.moves, self.abilities.may):
                        tally.log.append(f"{label}: {said}")
                    read = await self._act(page, ctx, step, state)
                    if read is not None:
                        tally.answer = read
                    state.acted = True
                if step.expect is not None and not await holds(page, step.expect, state.patience, state.url_before):
                    wanted = step.expect.model_dump(exclude_none=True, exclude={"timeout_ms"})
                    raise StepFailed(f"postcondition not met: {wanted}")
                # With recovery on, the agent also verifies: a write is confirmed where its effect shows.
                verifies = self.abilities.may("check where the write shows")
                if verifies and step.effect is not None and not await confirm_effect(
                        page, step, ctx.start_url, state.affordances):
                    if step.effect.complete and not state.completed:
                        state.completed = True
                        if await complete_effect(page, step, ctx.start_url, self._finisher(ctx)):
                            tally.log.append(f"{label}: the write showed only in part; finished it (attempt "
                                             f"{attempt + 1})")
                            return None
                    claim = step.expect.text or step.expect.name if step.expect else "success"
                    raise EffectMissing(f"the page said {claim!r} but {step.effect.visit} does not show it")
                tally.log.append(f"{label}: ok (attempt {attempt + 1})")
                return None
            except (PlaywrightError, StepFailed) as exc:
                message = first_line(exc)
                if not state.acted and step.effect is not None and not isinstance(exc, StepFailed):
                    state.may_have_landed = True
                tally.log.append(f"{label}: {message}")
                if not self.recovery or attempt >= self.max_retries + min(state.fresh_candidates, FREE_CANDIDATES):
                    return message
                tally.recoveries += 1
                try:
                    move = await recover(page, step, state, exc, ctx.start_url)
                    if move == BACKTRACK:
                        move = await self._backtrack(page, ctx, tally, state)
                except PlaywrightError as recovery_error:
                    move = f"recovery failed: {first_line(recovery_error)}"
                except NoMove as lacking:
                    tally.log.append(f"no move this agent makes applies ({lacking})")
                    return message
                listed_for = state.listed_for or step.name
                if state.listed_as is not None and listed_for and listed_for not in tally.listed_as:
                    # from here on the item goes by the name the site lists it under
                    tally.listed_as[listed_for] = state.listed_as
                    step = _as_listed(step, tally.listed_as)
                tally.log.append(f"recover: {move}")
                if move == "effect confirmed":
                    return None
            attempt += 1

    def _finisher(self, ctx: EpisodeContext) -> Callable[[Page, PlanStep], Awaitable[None]]:
        async def act(page: Page, step: PlanStep) -> None:
            await self._act(page, ctx, step, StepState(affordances=_affordances(ctx.task.site),
                                                       abilities=self.abilities))
        return act

    async def _refill(self, page: Page, ctx: EpisodeContext, tally: _Tally, redo: bool = False) -> None:
        """Type again what this page's form held before a recovery reloaded or left it (a dialog that
        covers the form on the fresh page is dismissed first). `redo`: a claimed success was found missing,
        and typing the form again is part of redoing it (the check's move, not state tracking's)."""
        words = _affordances(ctx.task.site)
        if not (redo or self.abilities.may("refill the form")):
            return
        for step in tally.form:
            try:
                await self._act(page, ctx, step, StepState(affordances=words))
            except PlaywrightError:
                if not await dismiss_dialog(page, words):
                    raise
                await self._act(page, ctx, step, StepState(affordances=words))
        if tally.form:
            tally.log.append(f"recover: filled the form again ({len(tally.form)} fields)")

    async def _backtrack(self, page: Page, ctx: EpisodeContext, tally: _Tally, state: StepState) -> str:
        """Go back to the page where an item was chosen and choose the next one with the same name."""
        if tally.chooser is None:
            if not self.abilities.may("wait longer"):
                raise NoMove("the control did not become usable and nothing was chosen before it")
            state.patience *= 3
            return "waiting longer for the control"
        chooser, chosen = tally.chooser
        await page.go_back(wait_until="domcontentloaded")
        chosen.candidate += 1
        chosen.acted = False
        await self._act(page, ctx, chooser, chosen)
        if chooser.expect is not None and not await holds(page, chooser.expect):
            return "backtracked, but the next choice did not open"
        state.patience = 1.0
        return f"backtracked to choose candidate {chosen.candidate + 1}"

    async def _act(self, page: Page, ctx: EpisodeContext, step: PlanStep, state: StepState) -> Answer | None:
        """Do the step; an `answer` step returns what it read."""
        timeout = self.action_timeout_ms * state.patience
        if step.do == "goto":
            assert step.url is not None
            url = step.url if "://" in step.url else ctx.start_url.rstrip("/") + "/" + step.url.lstrip("/")
            await page.goto(url, wait_until="domcontentloaded")
            return None
        if step.do == "open_each":
            await self._open_each(page, step, int(timeout))
            return None
        if step.do == "answer":
            return await _read_answer(page, step, int(timeout))
        if state.relaxed and (pattern := renamed_pattern(step)) is not None:
            step = step.model_copy(update={"name": f"/{pattern.pattern}/", "exact": False})
        found = await ground(page, step, int(timeout))
        target = found.nth(state.candidate % max(1, await found.count()))
        if (perform := action_for(step.do)) is not None:
            return await perform(page, ctx, step, target, int(timeout))
        if step.do == "click":
            if state.abilities.may("look again before clicking"):
                await target.click(timeout=timeout)
            else:
                await click_where_seen(target, timeout)
        elif step.do == "fill":
            text = step.value or ""
            if state.type_slowly:
                await target.fill("", timeout=timeout)
                await target.press_sequentially(text, delay=20, timeout=timeout)
            elif not state.abilities.may("type into the field itself") and await types_as_text(target, timeout):
                # click into it, select what it holds and type over it: the keys go wherever the focus is
                if state.abilities.may("look again before clicking"):
                    await target.click(timeout=timeout)
                else:
                    await click_where_seen(target, timeout)
                await page.keyboard.press("ControlOrMeta+A")
                await page.keyboard.type(text)
            else:
                await target.fill(text, timeout=timeout)
            # With recovery on, the agent reads back what it typed (verification).
            if self.abilities.may("read back what was typed"):
                await page.wait_for_timeout(50)
                typed = await target.input_value(timeout=timeout)
                if typed != text:
                    raise InputAltered(f"the field holds {typed!r}, not {text!r}")
        elif step.do == "check":
            await target.check(timeout=timeout)
        elif step.do == "select":
            wanted = step.value or ""
            await target.select_option(label=wanted, timeout=timeout)
            # With recovery on, the agent reads back which option the list shows.
            if self.abilities.may("read back what was typed"):
                await page.wait_for_timeout(50)
                shown = await target.evaluate("el => el.selectedOptions.length ? el.selectedOptions[0].label : ''")
                if shown != wanted:
                    raise InputAltered(f"the list shows {shown!r}, not {wanted!r}")
        elif step.do == "press":
            await target.press(step.key or "Enter", timeout=timeout)
        return None

    async def _open_each(self, page: Page, step: PlanStep, wait_ms: int) -> None:
        """Open each candidate in turn until the page satisfies `until` (compare detail pages)."""
        assert step.until is not None
        count = await (await ground(page, step, wait_ms)).count()
        for index in range(count):
            await (await ground(page, step, wait_ms)).nth(index).click(timeout=wait_ms)
            await page.wait_for_load_state("domcontentloaded")
            if await holds(page, step.until.model_copy(update={"timeout_ms": 1500})):
                return
            await page.go_back(wait_until="domcontentloaded")
        wanted = step.until.model_dump(exclude_none=True, exclude={"timeout_ms"})
        # What was looked for is not among these: like a missing target (it may be on another page).
        raise TargetMissing(f"none of {count} candidates named {step.name!r} satisfied {wanted}")


def _first_write(plan: list[PlanStep]) -> int:
    """The index of the plan's first step that writes (its effect shows somewhere); len(plan) if none."""
    return next((i for i, s in enumerate(plan) if s.effect is not None or (
        s.request is not None and s.request.method != "GET")), len(plan))


async def _read_answer(page: Page, step: PlanStep, wait_ms: int) -> Answer:
    """What an `answer` step reads: the element's text (each element's, with `each`), cut by `pattern`."""
    if step.infeasible:
        return Answer(infeasible=True)
    found = await ground(page, step, wait_ms)
    texts = [" ".join(t.split()) for t in await found.all_inner_texts()] if step.each else [
        " ".join((await found.first.inner_text(timeout=wait_ms)).split())]
    cut = []
    for text in texts:
        value = step.cut_answer(text)
        if value is None:
            raise StepFailed(f"the {step.role} {step.name!r} reads {text!r}, which has no {step.pattern!r}")
        cut.append(value)
    return Answer(value=cut if step.each else cut[0])


def _as_listed(step: PlanStep, listed_as: dict[str, str]) -> PlanStep:
    """The step with every name the site lists under another one replaced by that one."""
    if not listed_as:
        return step
    text = step.model_dump_json()
    for wanted, listed in listed_as.items():
        text = text.replace(json.dumps(wanted)[1:-1], json.dumps(listed)[1:-1])
    return PlanStep.model_validate_json(text)


def _affordances(site: str) -> Affordances:
    """The site's words for its generic controls; common words for a site webchaos does not ship."""
    profile = profiles().get(site)
    return profile.affordances if profile is not None else Affordances()


async def _screenshot(page: Page, ctx: EpisodeContext, name: str) -> None:
    try:
        (ctx.out_dir / "screenshots").mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(ctx.out_dir / "screenshots" / f"{name}.png"))
    except PlaywrightError:
        pass

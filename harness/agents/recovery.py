"""The reference agent's recoveries: generic moves a careful person makes when a step fails.

Each recovery looks at the page and the failure, does at most one thing, and
says what it did. None of them knows which fault is armed. Each serves one
primitive (`RECOVERIES`, the one table of it): an ablated agent lacking a
primitive makes none of that primitive's moves, and validity's specificity
matrix measures what each primitive's moves are worth.
"""

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from harness.agents.moves import MOVES, MoveContext, moves_at
from harness.agents.perception import (
    EffectMissing,
    InputAltered,
    StepFailed,
    TargetMissing,
    candidates,
    document_of,
    first_visible,
    holds,
    loaded,
    settle_after_write,
    visible_dialog,
    visible_elements,
)
from scenarios.faults import Primitive
from scenarios.profile import Affordances
from scenarios.schema import PlanStep

# Every generic move of the reference agent and the primitive it serves. An agent "without" a primitive
# (reference-without-<primitive>) skips exactly these moves; nothing else about it changes.
RECOVERIES: dict[str, Primitive] = {
    "sign in again": Primitive.state_tracking,          # the session ended: sign in, come back to the step
    "refill the form": Primitive.state_tracking,        # type again what a reload or a detour emptied
    "use the renamed control": Primitive.state_tracking,  # the control's name changed as the form was typed in
    # a tab the page opened by itself is not where the task is: stay on the task's own (an agent that follows
    # the newest tab goes on there)
    "keep to the task's tab": Primitive.state_tracking,
    # type into the field meant, not into whatever has the focus after clicking it (a page may move the focus)
    "type into the field itself": Primitive.state_tracking,
    "do the step asked for": Primitive.planning,        # a dialog asks for one more step first: do it, go on
    "dismiss a dialog": Primitive.grounding,            # a banner covers the target: close it to reach the target
    # find the control again as the button goes down (it may have moved since it was seen), not click the point
    # where it was: an agent acting on what it saw a moment ago clicks whatever moved there
    "look again before clicking": Primitive.grounding,
    "refuse a detour": Primitive.planning,              # a dialog offers a way off the task: decline, keep to it
    "open an overflow menu": Primitive.exploration,     # the control is tucked into "More"
    "turn the page": Primitive.exploration,             # the item is on a later page of the list
    "search again broadly": Primitive.exploration,      # nothing under the wanted name: search by its first word
    "wait longer": Primitive.patience,                  # a control that is late, disabled for a while, or moving
    "reload": Primitive.patience,                       # a page that failed or showed nothing: load it again
    "retry after an error": Primitive.patience,         # the site said it failed: do it again
    # the write showed nothing, no error, no claim, and the check finds it missing: send it again (trying again
    # is patience's act; the check only makes it safe, no second record)
    "repeat the action": Primitive.patience,
    "try the next same-named item": Primitive.backtracking,  # several match the name: the next one
    "go back and choose again": Primitive.backtracking,  # the chosen item cannot be used: back, the next one
    # before repeating a write (in a second tab) and after a success message; a claimed success it finds
    # missing is redone, its form typed again (only the check knew it had to be: the typing is part of it)
    "check where the write shows": Primitive.verification,
    "read back what was typed": Primitive.verification,  # a field that changed what was typed: type it again
    "report infeasible": Primitive.verification,        # the task names what is not there: say so, write nothing
    # and the moves past what the open web puts in the way (harness/agents/moves), each with its primitive
    **{field_move.name: field_move.primitive for field_move in MOVES},
}


@dataclass(frozen=True)
class Abilities:
    """Which recovery moves an agent makes: all of them, none, or all but one primitive's."""

    recovery: bool = True
    without: Primitive | None = None

    def may(self, move: str) -> bool:
        return self.recovery and RECOVERIES[move] != self.without


@dataclass
class StepState:
    """What the agent knows about the step it is on."""

    acted: bool = False           # the action went through (its effect may not be visible yet)
    candidate: int = 0            # which same-named element to use
    fresh_candidates: int = 0     # how many times a recovery moved on to a same-named element not tried yet
    url_before: str = ""          # where the step started, to come back to
    patience: float = 1.0         # multiplier on waits
    reloaded: bool = False
    left_page: bool = False       # recovery navigated away and back: typed-in fields are gone
    type_slowly: bool = False     # type key by key, as a person would, rather than pasting
    pages_turned: int = 0
    relaxed: bool = False         # ground on a control whose name begins with the wanted one (it was renamed)
    completed: bool = False       # the plan's steps that finish a partly shown write were run
    # the page claimed a success its effect did not show (yet: a slow write lands late); redoing it types the
    # form again as part of the check's move
    claimed: bool = False
    repeated_here: bool = False   # the write, found missing where it shows, was sent again from the same page
    waited: bool = False          # a missing control was given longer once (before a reload empties the form)
    may_have_landed: bool = False  # an action on the step's control failed late (a timeout): it may have gone through
    search: PlanStep | None = None  # the plan's last search box fill before this step (to search again)
    searched_again: bool = False
    listed_as: str | None = None  # the name the site lists the wanted item under (a synonym of it)
    listed_for: str | None = None  # the wanted name `listed_as` stands for, when not the step's own (its expect's)
    affordances: Affordances = field(default_factory=Affordances)  # the site's words for generic controls
    abilities: Abilities = field(default_factory=Abilities)  # which recovery moves this agent makes
    moves: MoveContext = field(default_factory=MoveContext)  # what the moves past field obstacles may know


async def sign_in_if_asked(page: Page, words: Affordances) -> bool:
    """A sign-in page (heading + button in the site's words) with remembered credentials: sign in."""
    try:
        if not await page.get_by_role("heading", name=words.sign_in).first.is_visible():
            return False
        await page.get_by_role("button", name=words.sign_in).first.click(timeout=3000)
        await page.wait_for_load_state("domcontentloaded")
    except PlaywrightError:
        return False
    return True


async def dismiss_dialog(page: Page, words: Affordances) -> str | None:
    """Close a visible modal dialog with its dismiss button; returns the button's label."""
    dialog = await visible_dialog(page)
    if dialog is None:
        return None
    button = dialog.get_by_role("button", name=words.dismiss_pattern())
    if not await button.count():
        return None
    label = (await button.first.inner_text()).strip() or "dismiss"
    try:
        await button.first.click(timeout=2000)
    except PlaywrightError:
        return None
    await asyncio.sleep(0.1)
    return label


async def offers_a_detour(page: Page, words: Affordances) -> bool | None:
    """Whether the visible modal dialog offers a way off the task (a button that does not dismiss it, e.g.
    "Take the survey") rather than only covering the page (a consent banner); None without a dialog."""
    dialog = await visible_dialog(page)
    if dialog is None:
        return None
    buttons = dialog.get_by_role("button")
    dismissing = words.dismiss_pattern()
    try:
        for index in range(await buttons.count()):
            label = (await buttons.nth(index).inner_text()).strip()
            if label and not dismissing.search(label):
                return True
    except PlaywrightError:
        return None
    return False


async def do_the_step_asked_for(page: Page, words: Affordances) -> str | None:
    """A dialog that asks for one more step before the action goes through (a box to tick, then a button):
    tick every box and press its button that goes ahead (not one that backs out); returns the button's label."""
    dialog = await visible_dialog(page)
    if dialog is None:
        return None
    boxes = dialog.get_by_role("checkbox")
    if not await boxes.count():
        return None
    try:
        for index in range(await boxes.count()):
            if not await boxes.nth(index).is_checked():
                await boxes.nth(index).check(timeout=2000)
        buttons = dialog.get_by_role("button")
        backing_out = words.back_out_pattern()
        for index in range(await buttons.count()):
            button = buttons.nth(index)
            label = (await button.inner_text()).strip()
            if label and not backing_out.search(label) and await button.is_enabled():
                await button.click(timeout=2000)
                return label
    except PlaywrightError:
        return None
    return None


async def reports_error(page: Page) -> bool:
    """A visible alert with text (e.g. "Could not add to cart — try again")."""
    async for alert in visible_elements(page.get_by_role("alert")):
        if (await alert.inner_text()).strip():
            return True
    return False


async def _control_shown(page: Page, step: PlanStep) -> bool:
    """The step's control is on the page now (no wait: the page has settled on its claim)."""
    if not step.role:
        return True
    return await first_visible(candidates(page, step)) is not None


async def document_failed(page: Page) -> bool:
    """The page is a server's error answer (HTTP 5xx): a load that failed, which loading again may get past."""
    try:
        status = await page.evaluate("() => performance.getEntriesByType('navigation')[0]?.responseStatus ?? 0")
    except PlaywrightError:
        return False
    return isinstance(status, int) and status >= 500


async def open_more_menu(page: Page, step: PlanStep, words: Affordances) -> bool:
    """The target may sit in an overflow menu: open one, if the page has it."""
    async for button in visible_elements(page.get_by_role("button", name=words.more_actions_pattern())):
        if await button.get_attribute("aria-expanded") != "true":
            await button.click(timeout=2000)
            try:
                await candidates(page, step).first.wait_for(state="visible", timeout=1000)
            except PlaywrightError:
                continue
            return True
    return False


class NoMove(Exception):
    """No recovery move this agent may make applies: the step has failed."""


async def recover(page: Page, step: PlanStep, state: StepState, error: BaseException, base_url: str) -> str:
    """Do one recovery move; returns what was done ('effect confirmed' ends the step as passed). Raises
    NoMove when every move that applies is one the agent lacks."""
    may = state.abilities.may
    if may("sign in again") and await sign_in_if_asked(page, state.affordances):
        # The site sends us back where we were going; check before acting again: where the effect shows
        # when the step names it (a message on the page we come back to proves nothing), else on the page.
        if state.acted and step.effect is not None:
            if await confirm_effect(page, step, base_url, state.affordances):
                return "effect confirmed"
        elif state.acted and step.expect is not None and await holds(page, step.expect, 0.5):
            return "effect confirmed"
        state.acted = False
        state.left_page = True
        return "signed in again"
    # A claimed success the check found missing is redone by the check's move (below), form and files with it;
    # a move past something in the way (a check the click opened, the claim's text already on the page) goes first.
    claimed = isinstance(error, EffectMissing)
    for blocked_move in moves_at("blocked"):
        if (claimed and not blocked_move.on_a_claim) or not may(blocked_move.name):
            continue
        if (moved := await blocked_move.attempt(page, step, state.moves)) is not None:
            state.acted = state.acted or moved.acted
            return moved.said
    asked = await do_the_step_asked_for(page, state.affordances) if may("do the step asked for") else None
    if asked:
        return f"did the step the page asked for first ({asked})"
    detour = await offers_a_detour(page, state.affordances)
    if detour is not None and may("refuse a detour" if detour else "dismiss a dialog"):
        dismissed = await dismiss_dialog(page, state.affordances)
        if dismissed:
            return f"dismissed dialog ({dismissed})"
    if isinstance(error, EffectMissing):
        if not may("check where the write shows"):
            raise NoMove("the claimed success did not show where the write shows")
        state.acted = False
        state.claimed = True
        # Only the check knew the write has to be redone, so typing its form again is part of this move
        # (verification's), not state tracking's: the form may have come back empty with the claim (`claimed`).
        if state.url_before and page.url != state.url_before:
            # The page moved on after the claimed success: go back and fill the form again.
            await page.goto(state.url_before, wait_until="domcontentloaded")
            state.left_page = True
        elif not state.repeated_here and await _control_shown(page, step):
            # The claim came on the same address and the control is still there: type the form again (what it
            # holds now may be emptied by the claim's own reload) and send it again from here. A page that put
            # the claimed result in the control's place is loaded again below.
            state.repeated_here = True
            state.left_page = True
            return "the claimed success did not happen: sending it again from the page"
        elif not state.reloaded:
            # The page may still show the claim and the old form: start from what the site has now.
            state.reloaded = True
            state.left_page = True
            await page.reload(wait_until="domcontentloaded")
        return "the claimed success did not happen: repeating the action"
    if isinstance(error, InputAltered):
        if not may("read back what was typed"):
            raise NoMove("the field changed what was typed")
        state.acted = False
        state.type_slowly = True
        return "the field changed what was typed: typing it again"
    if not state.acted:
        return await _action_failed(page, step, state, error, base_url)
    return await _effect_missing(page, step, state, base_url)


async def _action_failed(page: Page, step: PlanStep, state: StepState, error: BaseException, base_url: str) -> str:
    may = state.abilities.may
    if (may("wait longer") and step.expect is not None and page.url != state.url_before
            and await holds(page, step.expect, 0.5)):
        # The action timed out but went through late (the page moved on to what it should show): looking once
        # more rather than giving up is waiting longer.
        return "effect confirmed"
    if (isinstance(error, TargetMissing) and state.may_have_landed and step.effect is not None
            and may("check where the write shows") and await confirm_effect(page, step, base_url, state.affordances)):
        # The control is gone after a click that timed out as it became usable: the click landed late and
        # the write is done (catalog check refuses a write whose effect holds before it is made).
        return "effect confirmed"
    if isinstance(error, TargetMissing):
        if may("open an overflow menu") and await open_more_menu(page, step, state.affordances):
            return "opened an overflow menu"
        if may("turn the page") and state.pages_turned < 5 and await turn_page(page, state.affordances):
            state.pages_turned += 1
            return "went to the next page of results"
        if may("use the renamed control") and not state.relaxed and await renamed_control(page, step):
            state.relaxed = True
            return "the control was renamed: using the one whose name begins with the wanted one"
        if may("search again broadly") and state.search is not None and not state.searched_again:
            state.searched_again = True
            listed = await search_again_broadly(page, step, state.search)
            if listed is not None:
                state.listed_as = listed
                return f"searched again more broadly: it is listed as {listed!r}"
        if may("wait longer") and not state.waited and not state.reloaded:
            # A control that is late: give it longer once before a reload empties what was typed (typing it
            # again would make state tracking's move part of patience's).
            state.waited = True
            state.patience *= 3
            return "waiting longer for the control to show"
        if may("reload") and not state.reloaded:
            state.reloaded = True
            state.left_page = True
            state.patience *= 2
            await page.reload(wait_until="domcontentloaded")
            return "reloaded the page"
    elif may("go back and choose again") and state.patience >= 3 and step.role and await _all_disabled(page, step):
        # Still disabled after a long wait: this item cannot be used; choose another one.
        return BACKTRACK
    if not may("wait longer"):
        raise NoMove("the control did not become usable in the time one action takes")
    # Present but not actionable (disabled, covered, moving): give it longer.
    state.patience *= 3
    return "waiting longer for the control"


BACKTRACK = "backtrack"


async def _all_disabled(page: Page, step: PlanStep) -> bool:
    found = candidates(page, step)
    count = await found.count()
    if not count:
        return False
    for index in range(count):
        if not await found.nth(index).is_disabled():
            return False
    return True


def renamed_pattern(step: PlanStep) -> re.Pattern[str] | None:
    """A plain, exact name may have been extended ("Send" -> "Send now") or shortened to its leading
    words ("Save address" -> "Save"): the name as a leading word, or exactly one of its leading parts."""
    if not step.exact or not step.name or step.name.startswith("/"):
        return None
    words = step.name.split()
    shorter = [r"\s+".join(re.escape(w) for w in words[:k]) for k in range(len(words) - 1, 0, -1)]
    alternatives = [re.escape(step.name) + r"\b"] + [part + r"\s*$" for part in shorter]
    return re.compile(r"^\s*(?:" + "|".join(alternatives) + ")")


async def renamed_control(page: Page, step: PlanStep) -> bool:
    """Exactly one visible control of the step's role whose name begins with the wanted name."""
    pattern = renamed_pattern(step)
    if pattern is None or step.role is None:
        return False
    found = page.get_by_role(step.role, name=pattern)  # type: ignore[arg-type]
    return len([element async for element in visible_elements(found)]) == 1


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.casefold())


def closest_name(wanted: str, names: list[str], least: float = 0.6) -> str | None:
    """The one name that shares the most of `wanted`'s words (at least `least` of them), if no other
    distinct name shares as many: the same item under a synonym ("Foam Roller" -> "Massage Roller")."""
    want = _words(wanted)
    if not want:
        return None
    scored = sorted({(sum(w in set(_words(n)) for w in want) / len(want), n) for n in set(names)}, reverse=True)
    if not scored or scored[0][0] < least or scored[0][0] >= 1.0:
        return None
    if len(scored) > 1 and scored[1][0] == scored[0][0]:
        return None
    return scored[0][1]


async def search_again_broadly(page: Page, step: PlanStep, search: PlanStep) -> str | None:
    """The search for the wanted name listed nothing under it: search in fewer of its words (its first two,
    then its first alone: the brand, the sender ...) and return the listed name that is the item, under its
    own name or plainly the same item under a synonym. One word may list too much to show it on one page."""
    if step.role is None or not step.name or not search.role or not search.name:
        return None
    words = _words(step.name)
    for query in [" ".join(words[:k]) for k in (2, 1) if k < len(words)] or [" ".join(words)]:
        box = page.get_by_role(search.role, name=search.name, exact=True)  # type: ignore[arg-type]
        if not await box.count():
            await page.go_back(wait_until="domcontentloaded")  # the results page has none: the search page has
            if not await box.count():
                return None
        await box.first.fill(query, timeout=3000)
        await box.first.press("Enter", timeout=3000)
        await page.wait_for_load_state("domcontentloaded")
        found = page.get_by_role(step.role)  # type: ignore[arg-type]
        names = [" ".join((await element.inner_text()).split()) async for element in visible_elements(found)]
        if any(name.casefold() == step.name.casefold() for name in names):
            return step.name  # listed under its own name, once searched for in other words
        if (closest := closest_name(step.name, names)) is not None:
            return closest
    return None


async def turn_page(page: Page, words: Affordances) -> bool:
    """A paged list may hold the target further on: follow its next-page link (in the site's words)."""
    for role in ("link", "button"):
        found = page.get_by_role(role, name=words.next_page_pattern())
        if await found.count() and await found.first.is_visible():
            await found.first.click(timeout=3000)
            await page.wait_for_load_state("domcontentloaded")
            return True
    return False


async def confirm_effect(page: Page, step: PlanStep, base_url: str, words: Affordances | None = None) -> bool:
    """Verification: look where the effect shows (not at the page's own message), in a second tab
    so the page the agent works on stays as it is; a list there may hold it on a later page."""
    assert step.effect is not None
    check = await page.context.new_page()
    url = base_url.rstrip("/") + "/" + step.effect.visit.lstrip("/")
    try:
        await check.goto(url, wait_until="domcontentloaded")
        if words is not None and await sign_in_if_asked(check, words):  # the session ended: sign in, look again
            await check.goto(url, wait_until="domcontentloaded")
        if await _holds_after_second_look(check, step):
            return True
        for _ in range(5 if words is not None else 0):
            assert words is not None
            if not await turn_page(check, words):
                break
            if await holds(check, step.effect.expect, 0.5):
                return True
        return False
    finally:
        await check.close()


async def complete_effect(page: Page, step: PlanStep, base_url: str,
                          act: Callable[[Page, PlanStep], Awaitable[None]]) -> bool:
    """The write shows only in part where its effect shows (a flag dropped, a quantity doubled): finish it
    there with the plan's `complete` steps, in a second tab, then look again on a fresh load. Repeating the
    whole write would make a second record; False when the steps cannot run (nothing to finish)."""
    assert step.effect is not None
    check = await page.context.new_page()
    url = base_url.rstrip("/") + "/" + step.effect.visit.lstrip("/")
    try:
        await check.goto(url, wait_until="domcontentloaded")
        for finishing in step.effect.complete:
            document = await document_of(check)
            await act(check, finishing)
            await settle_after_write(check, document)  # the write the step sends, and the reload after it
        await check.goto(url, wait_until="domcontentloaded")
        return await _holds_after_second_look(check, step)
    except (PlaywrightError, StepFailed):
        return False
    finally:
        await check.close()


async def _holds_after_second_look(page: Page, step: PlanStep) -> bool:
    """The effect shows on its page, or after one reload: a read just after a write may be stale. The
    second look waits the expectation's full time: the page may render its content late. A page that says
    part of it is still loading is read when it has loaded."""
    assert step.effect is not None
    await loaded(page)
    if await holds(page, step.effect.expect, 0.5):
        return True
    await page.reload(wait_until="domcontentloaded")
    await loaded(page)
    return await holds(page, step.effect.expect, 1.0)


async def _effect_missing(page: Page, step: PlanStep, state: StepState, base_url: str) -> str:
    assert step.expect is not None
    may = state.abilities.may
    if step.effect is None and not state.reloaded and may("reload") and await document_failed(page):
        # The page the step opened is a server's error (a search's results, an item's page): load it again. What
        # it shows then needs no second doing of the step (that would need the query typed again: state
        # tracking's move, where loading again is patience's).
        state.reloaded = True
        await page.reload(wait_until="domcontentloaded")
        if await holds(page, step.expect, state.patience):
            return "the page had failed to load: loaded again, it shows what the step wanted"
    # A page that says the action failed is believed; otherwise the effect may just be slow.
    errored = await reports_error(page)
    if not errored and may("wait longer") and await holds(page, step.expect, 2 * state.patience, state.url_before):
        return "effect confirmed"
    if (not errored and step.expect.role and step.expect.name and may("open an overflow menu")
            and (step.expect.url_contains or "") in page.url):
        # The page came, but the control it should show may sit in an overflow menu.
        shown = step.model_copy(update={"role": step.expect.role, "name": step.expect.name, "within": None,
                                        "exact": True})
        if await open_more_menu(page, shown, state.affordances):
            return "the control the page should show was in an overflow menu: opened it"
    search = state.search or (step if step.do == "fill" and step.role == "searchbox" else None)
    # A step that acted on the wanted item itself (its link bears the name its page should show) found it
    # listed: searching in other words cannot help where the page it opened is the trouble.
    on_its_own_link = bool(step.name and step.expect.name and step.name.casefold() == step.expect.name.casefold())
    if (not errored and search is not None and step.expect.role and step.expect.name and not state.searched_again
            and not on_its_own_link and may("search again broadly")):
        # The search itself should list the wanted item and lists nothing under its name: search in other words.
        state.searched_again = True
        wanted = step.model_copy(update={"role": step.expect.role, "name": step.expect.name, "within": None,
                                         "exact": True})
        listed = await search_again_broadly(page, wanted, search)
        if listed is not None:
            state.listed_as, state.listed_for = listed, step.expect.name
            return f"searched again more broadly: it is listed as {listed!r}"
    checked = False
    if step.effect is not None and may("check where the write shows"):
        # Before repeating a write, check whether it happened after all: in a second tab, so the page the
        # agent works on keeps what was typed into it (coming back to an empty form would make the check
        # cost a refill, which is state tracking's move, not verification's).
        if await confirm_effect(page, step, base_url, state.affordances):
            return "effect confirmed"
        checked = True
    went_back = bool(state.url_before) and page.url != state.url_before
    if went_back:
        await page.goto(state.url_before, wait_until="domcontentloaded")
        state.left_page = True
    count = await candidates(page, step).count() if step.role else 0
    if count > 1 and may("try the next same-named item"):
        state.candidate = (state.candidate + 1) % count
        if state.candidate:  # not wrapped around: an item not opened yet
            state.fresh_candidates += 1
        state.acted = False
        return f"trying candidate {state.candidate + 1} of {count}"
    if checked and not errored and not went_back and not state.repeated_here and may("repeat the action"):
        # Checked, and the write is not there; the page said nothing went wrong, claimed nothing and still holds
        # the form: send it again from here. Nothing said it was done, so sending it again is trying again
        # (patience's); the check only makes it safe.
        state.acted = False
        state.repeated_here = True
        return "the write does not show where it should: sending it again"
    if not state.reloaded and not errored and may("reload"):
        # The action showed nothing (no error either): the control may not be what it looked like.
        state.acted = False
        state.reloaded = True
        state.left_page = True
        await page.reload(wait_until="domcontentloaded")
        return "reloaded the page to repeat the action"
    if not may("retry after an error"):
        raise NoMove("the step's action showed no effect" + (" and the page reports an error" if errored else ""))
    state.acted = False
    return "repeating the action"


__all__ = ["BACKTRACK", "RECOVERIES", "Abilities", "EffectMissing", "NoMove", "StepFailed", "StepState",
           "TargetMissing", "complete_effect", "confirm_effect", "dismiss_dialog", "recover", "renamed_pattern"]

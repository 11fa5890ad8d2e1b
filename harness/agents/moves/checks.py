"""Moves past the checks some sites put before their pages: "verify you are human" and "checking your browser".

Each acts only when the page is such a check, recognised as a person recognises it: by its heading and
the controls it shows. It solves it through the page (never knowing the answer otherwise) and waits for
the page that was asked for.

- "solve a human check" (planning): the check asks for steps the task's plan does not have; the agent
  reads what it asks (tick the box, type the word it states, slide to the end), does it, presses
  Continue once it is enabled and carries on with the plan where it was. The check is a page before the
  page asked for, or a dialog the click that commits opened: then Continue lets that click go through,
  so the step's action is done and its effect is what to check next.
- "wait out a browser check" (patience): the page checks the browser for a few seconds and then reloads
  itself; the only move is not to leave or give up, and to wait for it to go.
"""

import asyncio
import re
import time

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from harness.agents.moves import MoveContext, Moved, move
from harness.agents.perception import first_visible
from scenarios.faults import Primitive
from scenarios.schema import PlanStep

HUMAN_CHECK = re.compile(r"^\s*verify (that )?you are (a )?human\s*$", re.IGNORECASE)
BROWSER_CHECK = re.compile(r"checking your browser", re.IGNORECASE)
WORD_ASKED = re.compile(r"type the word shown:?\s*[\"'“]?([^\s\"'”.,;:!?]+)", re.IGNORECASE)
NOT_A_ROBOT = re.compile(r"not a robot|i am human|i'm human", re.IGNORECASE)
SLIDE = re.compile(r"\bslide\b", re.IGNORECASE)
CONTINUE = re.compile(r"^\s*(continue|verify|submit)\s*$", re.IGNORECASE)
ENABLED_WAIT_S = 30.0   # a check's Continue that is still disabled after this is broken, not slow
BROWSER_CHECK_WAIT_S = 45.0  # how long a person lets "checking your browser" run before giving up on it


async def _visible(page: Page, role: str, name: re.Pattern[str]) -> bool:
    found = page.get_by_role(role, name=name)  # type: ignore[arg-type]
    try:
        return bool(await found.count()) and await found.first.is_visible()
    except PlaywrightError:
        return False


async def _continue_when_enabled(page: Page, scope: Page | Locator) -> bool:
    """Press Continue once the check enables it (a page check: and wait for the page it sends back to);
    False when it never does."""
    button = scope.get_by_role("button", name=CONTINUE).first
    deadline = time.monotonic() + ENABLED_WAIT_S
    while not await button.is_enabled():
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.2)
    if scope is not page:
        await button.click(timeout=3000)
        return True
    async with page.expect_navigation(wait_until="domcontentloaded", timeout=15_000):
        await button.click(timeout=3000)
    return True


async def _do_what_it_asks(page: Page, scope: Page | Locator) -> str | None:
    """Tick the box, type the word shown or slide to the end, whichever the check asks; what was done."""
    box = scope.get_by_role("checkbox", name=NOT_A_ROBOT)
    if await box.count():
        await box.first.check(timeout=3000)
        return "ticked the box"
    text = await (scope if isinstance(scope, Locator) else page.locator("body")).inner_text(timeout=3000)
    asked = WORD_ASKED.search(text)
    if asked is not None:
        word = asked.group(1)
        await scope.get_by_role("textbox").first.fill(word, timeout=3000)
        return f"typed the word shown ({word})"
    slider = scope.get_by_role("slider", name=SLIDE)
    if await slider.count():
        await slider.first.focus(timeout=3000)
        await slider.first.press("End", timeout=3000)
        return "slid the slider to the end"
    return None


async def _check_dialog(page: Page) -> Locator | None:
    try:
        return await first_visible(page.get_by_role("dialog", name=HUMAN_CHECK))
    except PlaywrightError:
        return None


@move("solve a human check", Primitive.planning, "blocked",
      answers={"network:human_check", "client:human_check"})
async def solve_human_check(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    dialog = await _check_dialog(page)
    if dialog is None and not await _visible(page, "heading", HUMAN_CHECK):
        return None
    scope: Page | Locator = dialog if dialog is not None else page
    done = await _do_what_it_asks(page, scope)
    if done is None:
        return None
    if not await _continue_when_enabled(page, scope):
        return Moved(f"{done}, but the check's Continue stayed disabled")
    if dialog is not None:
        try:
            await dialog.wait_for(state="hidden", timeout=3000)
        except PlaywrightError:
            return Moved(f"{done} and pressed Continue; the check asked again")
        await page.wait_for_load_state("domcontentloaded")
        # Continue let the held click through: the step's action is done, its effect is what to look for
        return Moved(f"solved a human check before the action: {done}, pressed Continue", acted=True)
    if await _visible(page, "heading", HUMAN_CHECK):
        return Moved(f"{done} and pressed Continue; the check asked again")
    return Moved(f"solved a human check: {done}, pressed Continue; back on the page asked for")


@move("wait out a browser check", Primitive.patience, "blocked", answers={"network:bot_wall"})
async def wait_out_browser_check(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    checking = page.get_by_role("heading", name=BROWSER_CHECK)
    try:
        if not await checking.count() or not await checking.first.is_visible():
            return None
        # The page reloads itself when its check is done: the heading goes with the old document.
        await checking.first.wait_for(state="detached", timeout=BROWSER_CHECK_WAIT_S * 1000)
        await page.wait_for_load_state("domcontentloaded")
    except PlaywrightError:
        return None
    return Moved("waited out a browser check: the page reloaded itself")

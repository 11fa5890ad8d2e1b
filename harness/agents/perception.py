"""How the reference agent sees a page: grounding by role + accessible name, and postconditions."""

import re

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from scenarios.schema import Expect, PlanStep

_CONTAINERS = "article, section, li, tr, form, fieldset, [role=region], [role=group], [role=listitem]"


class StepFailed(Exception):
    """A step's action or postcondition did not succeed."""


class TargetMissing(StepFailed):
    """No visible element has the step's role and name."""


class InputAltered(StepFailed):
    """A field does not hold what was typed into it."""


class EffectMissing(StepFailed):
    """The page claimed success, but the place that shows the effect does not."""


def accessible_name(name: str | None) -> str | re.Pattern[str] | None:
    """Accessible names written /like this/ are regular expressions."""
    if name and len(name) > 1 and name.startswith("/") and name.endswith("/"):
        return re.compile(name[1:-1])
    return name


def candidates(page: Page, step: PlanStep) -> Locator:
    """Every element the step could mean (role + name, inside `within` when given: the last container that
    has the text and such an element; another record may name the same thing and lack the control). The
    container is found by the control shown or not: while the record's own control is still hidden (a page
    that renders it late), the enclosing list also has the text and another record's control, and would be
    taken for the record."""
    assert step.role is not None
    name = accessible_name(step.name)
    wanted = page.get_by_role(step.role, name=name, exact=step.exact)  # type: ignore[arg-type]
    if not step.within:
        return wanted
    present = page.get_by_role(step.role, name=name, exact=step.exact, include_hidden=True)  # type: ignore[arg-type]
    scope = page.locator(_CONTAINERS).filter(has_text=step.within).filter(has=present).last
    return scope.get_by_role(step.role, name=name, exact=step.exact)  # type: ignore[arg-type]


async def ground(page: Page, step: PlanStep, wait_ms: int = 3000) -> Locator:
    """Wait until at least one candidate is visible; raise TargetMissing otherwise."""
    locator = candidates(page, step)
    try:
        await locator.first.wait_for(state="visible", timeout=wait_ms)
    except PlaywrightError as exc:
        raise TargetMissing(f"no visible {step.role} named {step.name!r}") from exc
    return locator


async def holds(page: Page, expect: Expect, scale: float = 1.0) -> bool:
    timeout = expect.timeout_ms * scale
    try:
        fragment = expect.url_contains
        if fragment:
            await page.wait_for_url(lambda url: fragment in url, timeout=timeout)
        if expect.role:
            found = page.get_by_role(expect.role, name=accessible_name(expect.name), exact=True).first  # type: ignore[arg-type]
            await found.wait_for(state="visible", timeout=timeout)
            if expect.value is not None:
                await _has_value(found, expect.value, timeout)
        if expect.text:
            await page.get_by_text(expect.text).first.wait_for(state="visible", timeout=timeout)
    except PlaywrightError:
        return False
    return True


LOADING_WAIT_MS = 10_000  # how long a page that says it is still loading is given before it is read


async def loaded(page: Page, timeout_ms: float = LOADING_WAIT_MS) -> None:
    """Wait while the page shows a part still loading (`aria-busy`: a skeleton, a panel filled by script), at
    most `timeout_ms`: what it will show is not there to be read yet."""
    try:
        await page.wait_for_function(
            "() => ![...document.querySelectorAll('[aria-busy=true]')].some(e => e.getClientRects().length)",
            timeout=timeout_ms)
    except PlaywrightError:
        return  # still loading (or the page went away): read what is there


async def _has_value(control: Locator, wanted: str, timeout_ms: float) -> None:
    """Wait until the control's value is `wanted`; a PlaywrightError (a timeout) when it does not come."""
    await control.page.wait_for_function(
        "([el, wanted]) => el.value === wanted", arg=[await control.element_handle(timeout=timeout_ms), wanted],
        timeout=timeout_ms)


async def visible_dialog(page: Page) -> Locator | None:
    dialogs = page.get_by_role("dialog")
    for index in range(await dialogs.count()):
        dialog = dialogs.nth(index)
        if await dialog.is_visible():
            return dialog
    return None


async def document_of(page: Page) -> float | None:
    """Which document the page shows: its time origin changes with every load, not with history.replaceState."""
    try:
        return float(await page.evaluate("performance.timeOrigin"))
    except PlaywrightError:
        return None  # between documents


async def settle_after_write(page: Page, document: float | None, within_s: float = 2.0) -> None:
    """After an action that writes, give the page time to react the way sites do (a reload or a move to
    another page once the write is answered) and wait for that page to load; without a reload, return
    after `within_s`. Navigating away sooner would race the page's own navigation."""
    loop_steps = int(within_s / 0.1)
    for _ in range(loop_steps):
        now = await document_of(page)
        if now is not None and now != document:
            break
        await page.wait_for_timeout(100)
    try:
        await page.wait_for_load_state("domcontentloaded")
    except PlaywrightError:
        pass


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__

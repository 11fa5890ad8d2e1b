"""How the reference agent sees a page: grounding by role + accessible name, and postconditions."""

import re
from collections.abc import AsyncIterator

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page
from playwright.async_api import TimeoutError as PlaywrightTimeoutError

from scenarios.schema import Expect, PlanStep

_REDRAWN = re.compile(r"not attached|Cannot find context|Execution context was destroyed")
_CONTAINERS = "article, section, li, tr, form, fieldset, [role=region], [role=group], [role=listitem]"


async def visible_elements(found: Locator) -> AsyncIterator[Locator]:
    """The elements `found` matches that are visible now, in page order (no wait: what the page shows)."""
    for index in range(await found.count()):
        element = found.nth(index)
        if await element.is_visible():
            yield element


async def first_visible(found: Locator) -> Locator | None:
    async for element in visible_elements(found):
        return element
    return None


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


# Resolves once the page shows a heading named `wanted`, or, on a loaded page other than `left`, a main heading
# (h1) naming another item whose name holds the wanted one's words or is held by them ("Lunch on Tuesday? Lite"
# for "Lunch on Tuesday?"): the page of a same-named item, which will not turn into the wanted one.
_HEADING_OR_ANOTHER = """([wanted, left]) => {
  const norm = s => s.replace(/\\s+/g, ' ').trim();
  const words = s => new Set(s.toLowerCase().split(/[^\\p{L}\\p{N}]+/u).filter(Boolean));
  const shown = e => e.getClientRects().length > 0;
  const headings = [...document.querySelectorAll('h1,h2,h3,h4,h5,h6,[role=heading]')].filter(shown);
  if (headings.some(h => norm(h.innerText) === wanted)) return 'wanted';
  if (location.href === left || document.readyState !== 'complete') return false;
  const main = document.querySelector('h1');
  if (!main || !shown(main)) return false;
  const name = norm(main.innerText), a = words(wanted), b = words(name);
  if (!name || name === wanted || !a.size || !b.size) return false;
  const within = (x, y) => [...x].every(w => y.has(w));
  return within(a, b) || within(b, a) ? 'another' : false;
}"""


async def heading_or_another(page: Page, expect: Expect, left: str, timeout_ms: float) -> str | None:
    """For a heading `expect` after an action that started on `left`: "wanted" when the page shows it,
    "another" when the page moved on to another item's page (`_HEADING_OR_ANOTHER`: known as soon as it loads,
    where waiting for the heading would wait out the whole timeout), "late" when neither shows within
    `timeout_ms`; None when this cannot tell (another kind of expect, the page went away while looking)."""
    if expect.role != "heading" or not expect.name or not isinstance(accessible_name(expect.name), str):
        return None
    try:
        told = await (await page.wait_for_function(_HEADING_OR_ANOTHER, arg=[" ".join(expect.name.split()), left],
                                                   timeout=timeout_ms, polling=100)).json_value()
    except PlaywrightTimeoutError:
        return "late"
    except PlaywrightError:
        return None
    if told == "another":
        if await first_visible(page.get_by_role("heading", name=expect.name, exact=True)) is not None:
            return "wanted"  # named so for assistive technology, not in its text
    return str(told)


async def holds(page: Page, expect: Expect, scale: float = 1.0, left: str | None = None) -> bool:
    """The postcondition `expect` shows within its timeout (times `scale`). With `left`, the page the action
    started on, a page that moved on to another item's (`heading_or_another`) fails it at once."""
    timeout = expect.timeout_ms * scale
    try:
        fragment = expect.url_contains
        if fragment:
            await page.wait_for_url(lambda url: fragment in url, timeout=timeout)
        if expect.role:
            told = await heading_or_another(page, expect, left, timeout) if left is not None else None
            if told == "another":
                return False
            found = page.get_by_role(expect.role, name=accessible_name(expect.name), exact=True).first  # type: ignore[arg-type]
            # a heading whose text never showed is given one more short look (its name may not be its text)
            await found.wait_for(state="visible", timeout=timeout if told is None else min(timeout, 1000))
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
    return await first_visible(page.get_by_role("dialog"))


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


async def click_where_seen(target: Locator, wait_ms: float) -> None:
    """Click the point where the control was seen, as an agent acting on a screenshot does: brought into view
    and measured, then the pointer goes there and presses; nothing finds the control again on the way, so
    whatever moved under the pointer meanwhile takes the click (the careful click is Playwright's own, which
    checks the element is the one under the pointer as the button goes down)."""
    # what it sees is a page that has loaded (its scripts run), as a screenshot taken after the load shows
    await target.page.wait_for_load_state("domcontentloaded", timeout=wait_ms)
    for look in range(3):
        try:
            await target.scroll_into_view_if_needed(timeout=wait_ms)
            # the first box the control is drawn in (a link that wraps has one per line; the middle of all of
            # them may be between the lines)
            box = await target.evaluate(
                "el => { const r = el.getClientRects()[0]; return r ? {x: r.x, y: r.y, width: r.width, "
                "height: r.height} : null; }", timeout=wait_ms)
            break
        except PlaywrightError as exc:
            # the page drew the list again, or loaded again, after the last action while it was being looked
            # at: look again
            if not _REDRAWN.search(str(exc)) or look == 2:
                raise
            await target.page.wait_for_load_state("domcontentloaded", timeout=wait_ms)
    if box is None:
        raise TargetMissing("the control is not drawn anywhere to click")
    # The pointer comes from elsewhere, as a hand's does: a pointer already resting on the point (after a
    # reload) would arrive without moving, and what a page does as the pointer reaches a control would not run.
    await target.page.mouse.move(0, 0)
    await target.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


_TEXT_FIELDS = ("textarea, input:not([type]), input[type=text], input[type=search], input[type=email], "
                "input[type=tel], input[type=url], input[type=password]")


async def types_as_text(control: Locator, wait_ms: float) -> bool:
    """Whether the control takes typed text key by key as it is (dates, numbers and lists are set, not typed)."""
    return bool(await control.evaluate(f"el => el.matches({_TEXT_FIELDS!r})", timeout=wait_ms))

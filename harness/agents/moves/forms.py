"""Type again what the page emptied: a form re-rendered as the page first showed it (a background refresh of
a single-page app) as the agent clicked to send it, so what it typed is gone and the click with it.

Narrow by construction: it acts only when the step that failed is a click and every field this page's part
of the plan typed in (the fills since the plan last loaded a page) holds what the page first showed again
(its default value: blank, or the site's prefill), not what was typed. A field that holds something else
(a typo put in by autocorrect) is not this obstacle. Keeping track of what it has already done is what lets
a person see that: so the move is state tracking's. It types each such field again, as the plan typed it,
and does the step's click again (the step's effect is then checked as usual).
"""

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from harness.agents.moves import MoveContext, Moved, move
from harness.agents.perception import candidates
from scenarios.faults import Primitive
from scenarios.schema import PlanStep


def typed_on_this_page(plan: tuple[PlanStep, ...], step: PlanStep) -> list[PlanStep]:
    """The plan's fills between the last step that loaded a page and `step` (none if `step` is not in it)."""
    if step not in plan:
        return []
    typed: list[PlanStep] = []
    for earlier in reversed(plan[:plan.index(step)]):
        if earlier.loads_a_page():
            break
        if earlier.do == "fill" and earlier.role is not None and earlier.value:
            typed.append(earlier)
    return typed[::-1]


async def _state_of(page: Page, fill: PlanStep) -> tuple[str, Locator | None]:
    """'reset' (the field holds what the page first showed, not what the plan typed), 'typed' (it holds what
    was typed) or 'other' (something else, or no such field here)."""
    field = candidates(page, fill).first
    try:
        if not await field.count() or not await field.is_visible():
            return "other", None
        now = await field.input_value(timeout=1000)
        first = await field.evaluate("el => el.defaultValue === undefined ? null : el.defaultValue", timeout=1000)
    except PlaywrightError:
        return "other", None
    if now == (fill.value or ""):
        return "typed", field
    return ("reset", field) if now == first else ("other", field)


@move("type again what the page emptied", Primitive.state_tracking, "blocked", answers={"client:form_reset"})
async def type_again_what_the_page_emptied(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    if step.do != "click" or step.role is None:
        return None
    states = [(fill, *await _state_of(page, fill)) for fill in typed_on_this_page(context.plan, step)]
    if not states or any(state == "other" for _, state, _ in states):
        return None  # a field holds something the page did not first show: not a re-rendered form
    emptied = [(fill, field) for fill, state, field in states if state == "reset" and field is not None]
    if not emptied:
        return None
    for fill, field in emptied:
        await field.fill(fill.value or "", timeout=3000)
    await candidates(page, step).first.click(timeout=3000)
    names = ", ".join(repr(fill.name) for fill, _ in emptied)
    return Moved(f"the form had been emptied: typed {names} again and did the step again", acted=True)

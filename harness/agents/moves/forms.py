"""Type again what the page emptied: a form re-rendered blank (a background refresh of a single-page app) as
the agent clicked to send it, so what it typed is gone and the click with it.

Narrow by construction: it acts only when the step that failed is a click, and fields this page's part of
the plan typed in (the fills since the plan last loaded a page) are blank now. Keeping track of what it has
already done is what lets a person see that: so the move is state tracking's. It types each emptied field
again, as the plan typed it, and does the step's click again (the step's effect is then checked as usual).
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


async def _emptied(page: Page, fill: PlanStep) -> Locator | None:
    field = candidates(page, fill).first
    try:
        if await field.count() and await field.is_visible() and not await field.input_value(timeout=1000):
            return field
    except PlaywrightError:
        return None
    return None


@move("type again what the page emptied", Primitive.state_tracking, "blocked", answers={"client:form_reset"})
async def type_again_what_the_page_emptied(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    if step.do != "click" or step.role is None:
        return None
    emptied = [(fill, field) for fill in typed_on_this_page(context.plan, step)
               if (field := await _emptied(page, fill)) is not None]
    if not emptied:
        return None
    for fill, field in emptied:
        await field.fill(fill.value or "", timeout=3000)
    await candidates(page, step).first.click(timeout=3000)
    names = ", ".join(repr(fill.name) for fill, _ in emptied)
    return Moved(f"the form had been emptied: typed {names} again and did the step again", acted=True)

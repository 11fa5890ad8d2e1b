"""Type again what the page emptied: a form re-rendered as the page first showed it (a background refresh of a
single-page app) as the agent clicked to send it, so what it typed is gone and the click with it.

Narrow by construction: it acts only when the step that failed is a click and every field this page's part of
the plan set (the fills, checks and selects since the plan last loaded a page or sent a form) holds what the
page first showed again (its default: blank or the site's prefill, unticked, the first option), not what was
set. A field that holds something else (a typo put in by autocorrect) is not this obstacle. Keeping track of
what it has already done is what lets a person see that: so the move is state tracking's. It sets each such
field again, as the plan set it (a star rating's radio as well as the text), and does the step's click again
(the step's effect is then checked as usual).
"""

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from harness.agents.moves import MoveContext, Moved, move
from harness.agents.perception import candidates
from scenarios.faults import Primitive
from scenarios.schema import PlanStep

SETS = ("fill", "check", "select")

# What a field shows now, what the page first showed in it, as text: a box's tick as "on"/"off", a list's
# option by its label (the first one when none was marked selected).
_NOW_AND_FIRST = """el => {
  if (el.type === "checkbox" || el.type === "radio") {
    return [el.checked ? "on" : "off", el.defaultChecked ? "on" : "off"];
  }
  if (el.tagName === "SELECT") {
    const options = Array.from(el.options);
    const first = options.find(o => o.defaultSelected) || options[0];
    return [el.selectedOptions.length ? el.selectedOptions[0].label : "", first ? first.label : ""];
  }
  return [el.value, el.defaultValue === undefined ? null : el.defaultValue];
}"""


def _wanted(step: PlanStep) -> str:
    return "on" if step.do == "check" else step.value or ""


def typed_on_this_page(plan: tuple[PlanStep, ...], step: PlanStep) -> list[PlanStep]:
    """The plan's fills, checks and selects since it last loaded a page or sent a form (a step with an effect),
    up to `step` (none if `step` is not in it); a field set twice counts with its last value."""
    if step not in plan:
        return []
    typed: list[PlanStep] = []
    seen: set[tuple[str, str | None, str | None]] = set()
    for earlier in reversed(plan[:plan.index(step)]):
        if earlier.loads_a_page() or earlier.effect is not None:
            break
        field = (earlier.do, earlier.role, earlier.name)
        if earlier.do in SETS and earlier.role is not None and (earlier.do == "check" or earlier.value) \
                and field not in seen:
            seen.add(field)
            typed.append(earlier)
    return typed[::-1]


async def _state_of(page: Page, fill: PlanStep) -> tuple[str, Locator | None]:
    """'reset' (the field holds what the page first showed, not what the plan set), 'typed' (it holds what
    was set) or 'other' (something else, or no such field here)."""
    field = candidates(page, fill).first
    try:
        if not await field.count() or not await field.is_visible():
            return "other", None
        now, first = await field.evaluate(_NOW_AND_FIRST, timeout=1000)
    except PlaywrightError:
        return "other", None
    if now == _wanted(fill):
        return "typed", field
    return ("reset", field) if now == first else ("other", field)


# A write the proxy swallowed leaves the site showing its form as first sent, emptied as well (answers: the
# evidence of those variants depends on this module).
@move("type again what the page emptied", Primitive.state_tracking, "blocked",
      answers={"client:form_reset", "network:swallowed_write"}, on_a_claim=False)
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
        if fill.do == "check":
            await field.check(timeout=3000)
        elif fill.do == "select":
            await field.select_option(label=fill.value or "", timeout=3000)
        else:
            await field.fill(fill.value or "", timeout=3000)
    await candidates(page, step).first.click(timeout=3000)
    names = ", ".join(repr(fill.name) for fill, _ in emptied)
    return Moved(f"the form had been emptied: set {names} again and did the step again", acted=True)

"""Look inside frames: a control the page shows inside a frame (a payment or sign-in widget from another
origin) is not in the top document, where the agent grounds its steps.

Narrow by construction: it acts only when the step's target is missing from the top document and a child
frame of the page shows a visible control of the step's role and name, as a person would see the widget
on the page and use its button. It acts there once per frame (a second failure of the same step in the
same frame is left to the generic recoveries, which check whether the write happened before repeating it).
"""

import weakref

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from harness.agents.moves import MoveContext, Moved, move
from harness.agents.perception import accessible_name, candidates, first_visible, visible_elements
from scenarios.faults import Primitive
from scenarios.schema import PlanStep

# The frames this move has acted in, with the (do, role, name) of each step it did there.
_DONE: "weakref.WeakKeyDictionary[Frame, set[tuple[str, str, str]]]" = weakref.WeakKeyDictionary()


async def _shown_in_top_document(page: Page, step: PlanStep) -> bool:
    return await first_visible(candidates(page, step)) is not None


@move("look inside frames", Primitive.exploration, "blocked", answers={"client:iframe_widget"})
async def look_inside_frames(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    if step.do not in ("click", "fill") or step.role is None or not step.name:
        return None
    if await _shown_in_top_document(page, step):
        return None
    key = (step.do, step.role, step.name)
    for frame in page.frames:
        if frame == page.main_frame or frame.is_detached() or key in _DONE.get(frame, set()):
            continue
        found = frame.get_by_role(step.role, name=accessible_name(step.name), exact=step.exact)  # type: ignore[arg-type]
        try:
            visible = [element async for element in visible_elements(found)]
            if not visible:
                continue
            if step.do == "click":
                await visible[0].click(timeout=3000)
            else:
                await visible[0].fill(step.value or "", timeout=3000)
        except PlaywrightError:
            continue  # the frame went away or its control is not usable: not this frame
        _DONE.setdefault(frame, set()).add(key)
        origin = frame.url.split("/", 3)[2] if "://" in frame.url else frame.url
        did = "clicked" if step.do == "click" else "filled"
        return Moved(f"the {step.role} {step.name!r} is inside a frame from {origin}: {did} it there", acted=True)
    return None

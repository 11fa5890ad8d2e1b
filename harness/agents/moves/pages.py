"""Moves past what a page draws over the target: a dialog the DOM does not show (drawn in a closed shadow
root) and a pop-up whose text tells the agent to click something it was not asked to.

Both act only when the step's target is covered: the element on screen at the target's centre is not the
target (what a person sees when a click lands on something else). Then they look as a person would:

- `dismiss an overlay the DOM hides` (grounding): no dialog is found by role in the DOM, yet the browser's
  accessibility tree (built from what is rendered, closed shadow roots included) has a visible dialog with
  a dismiss button ("Accept all", "No thanks", ...): press that button where it is on screen.
- `refuse a pop-up's instruction` (planning): what covers the target tells the agent to click or tap
  something ("Click here to continue your order") that no step of its task names; a careful person does not
  follow it, nor press its close if that close is a link (it leads somewhere): they use the pop-up's plain
  dismiss button ("Not now", "Dismiss"), or Escape when it has none.
"""

import re
from typing import Any

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from harness.agents.moves import MoveContext, Moved, move
from harness.agents.perception import candidates, visible_dialog
from scenarios.faults import Primitive
from scenarios.schema import PlanStep

# The element at the target's centre, looked up the way the screen shows it (through open shadow roots;
# a closed one shows as its host). Returns null when the target is not there or is what is on top; else
# the visible text and controls of the covering element's outermost ancestor below <body>; with `pick`, the
# control of that index itself (to click it where it is, scrolled into view if the cover reaches off screen).
_COVER_JS = """
(el, pick) => {
  const box = el.getBoundingClientRect();
  if (!box.width && !box.height) return null;
  if (box.bottom < 0 || box.top > innerHeight || box.right < 0 || box.left > innerWidth) {
    el.scrollIntoView({block: "center", inline: "center"});
  }
  const r = el.getBoundingClientRect();
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  let hit = document.elementFromPoint(x, y);
  while (hit && hit.shadowRoot) {
    const inner = hit.shadowRoot.elementFromPoint(x, y);
    if (!inner || inner === hit) break;
    hit = inner;
  }
  if (!hit) return null;
  const up = (n) => n.parentNode || n.host || null;
  for (let n = hit; n; n = up(n)) if (n === el) return null;
  let cover = hit;
  for (let n = hit; n && n !== document.body && n !== document.documentElement; n = up(n)) {
    if (n.nodeType === 1) cover = n;
  }
  for (let n = el; n; n = up(n)) if (n === cover) return null;  // a container of the target, not a cover
  const controls = [];
  const elements = [];
  const texts = [];
  const visit = (root) => {
    for (const c of root.querySelectorAll("a[href], button, [role=button], [role=link]")) {
      const b = c.getBoundingClientRect();
      if (!b.width || !b.height) continue;
      const role = c.getAttribute("role") || (c.tagName === "A" ? "link" : "button");
      const name = (c.getAttribute("aria-label") || c.textContent || "").replace(/\\s+/g, " ").trim();
      controls.push({role, name});
      elements.push(c);
    }
    for (const n of root.querySelectorAll("*")) if (n.shadowRoot) visit(n.shadowRoot);
  };
  visit(cover);
  if (cover.shadowRoot) visit(cover.shadowRoot);
  const read = (root) => {
    for (const n of root.childNodes) {
      if (n.nodeType === 3) texts.push(n.textContent);
      else if (n.nodeType === 1 && n.getClientRects().length) { read(n); if (n.shadowRoot) read(n.shadowRoot); }
    }
  };
  if (cover.shadowRoot) read(cover.shadowRoot); else read(cover);
  if (pick !== null) return elements[pick] || null;
  return {text: texts.join(" ").replace(/\\s+/g, " ").trim(), controls};
}
"""


async def _cover(page: Page, step: PlanStep) -> dict[str, Any] | None:
    """What covers the step's target on screen (None: nothing, or the target is not on the page)."""
    if step.role is None:
        return None
    found = candidates(page, step)
    try:
        if not await found.count():
            return None
        cover: dict[str, Any] | None = await found.first.evaluate(_COVER_JS, None)
    except PlaywrightError:
        return None
    return cover


async def _press_control(page: Page, step: PlanStep, index: int) -> bool:
    """Click the cover's control `index` (of `_cover`'s list) where it is on screen."""
    try:
        handle = await candidates(page, step).first.evaluate_handle(_COVER_JS, index)
        control = handle.as_element()
        if control is None:
            return False
        await control.click(timeout=2000)
    except PlaywrightError:
        return False
    return True


async def _still_covered(page: Page, step: PlanStep) -> bool:
    return await _cover(page, step) is not None


# -- a dialog the DOM does not show ----------------------------------------------------------------------------

_DIALOG_ROLES = ("dialog", "alertdialog")


def _ax_value(node: dict[str, Any], key: str) -> str:
    return str((node.get(key) or {}).get("value") or "")


async def _hidden_dialog_button(page: Page, words: re.Pattern[str]) -> tuple[str, str, float, float] | None:
    """A visible dialog in the accessibility tree and its dismiss button: (dialog, label, x, y) on screen."""
    try:
        cdp = await page.context.new_cdp_session(page)
    except PlaywrightError:
        return None  # not Chromium: no accessibility tree to read this way
    try:
        nodes = (await cdp.send("Accessibility.getFullAXTree"))["nodes"]
        by_id = {n["nodeId"]: n for n in nodes}
        for dialog in nodes:
            if dialog.get("ignored") or _ax_value(dialog, "role") not in _DIALOG_ROLES:
                continue
            stack = list(dialog.get("childIds", []))
            while stack:
                node = by_id.get(stack.pop(0))
                if node is None:
                    continue
                stack.extend(node.get("childIds", []))
                label = _ax_value(node, "name").strip()
                if node.get("ignored") or _ax_value(node, "role") != "button" or not words.search(label):
                    continue
                backend = node.get("backendDOMNodeId")
                if backend is None:
                    continue
                await cdp.send("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend})
                quads = (await cdp.send("DOM.getContentQuads", {"backendNodeId": backend}))["quads"]
                if not quads:
                    continue
                xs, ys = quads[0][0::2], quads[0][1::2]
                return _ax_value(dialog, "name"), label, sum(xs) / 4, sum(ys) / 4
        return None
    except PlaywrightError:
        return None
    finally:
        try:
            await cdp.detach()
        except PlaywrightError:
            pass


@move("dismiss an overlay the DOM hides", Primitive.grounding, "blocked", answers={"client:shadow_overlay"})
async def dismiss_hidden_overlay(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    if await _cover(page, step) is None or await visible_dialog(page) is not None:
        return None  # nothing covers the target, or the DOM shows the dialog (the generic move closes it)
    found = await _hidden_dialog_button(page, context.words.dismiss_pattern())
    if found is None:
        return None
    title, label, x, y = found
    await page.mouse.click(x, y)
    await page.wait_for_timeout(150)
    if await _still_covered(page, step):
        return None
    return Moved(f"dismissed a dialog the page's DOM does not show ({title!r}) with its {label!r} button")


# -- a pop-up that tells the agent to click ----------------------------------------------------------------------

_INSTRUCTS = re.compile(r"\b(click|tap)\b", re.I)


def _asked_for(name: str, context: MoveContext) -> bool:
    """Does the task name this control: a step of its plan, or its instruction?"""
    wanted = name.casefold()
    return bool(wanted) and (any((s.name or "").casefold() == wanted for s in context.plan)
                             or wanted in context.instruction.casefold())


@move("refuse a pop-up's instruction", Primitive.planning, "blocked", answers={"client:popup_attack"})
async def refuse_popup_instruction(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    cover = await _cover(page, step)
    if cover is None or not _INSTRUCTS.search(cover["text"]):
        return None
    dismissing = context.words.dismiss_pattern()
    controls = cover["controls"]
    # What it pushes: controls that are not a way out (a close that is a link is not one: it goes somewhere).
    offers = [c["name"] for c in controls if c["name"] and not dismissing.search(c["name"])]
    leads_away = any(c["role"] == "link" for c in controls)
    if not offers or not leads_away or any(_asked_for(name, context) for name in offers):
        return None  # it pushes nothing that leads away, or what it pushes is part of the task
    genuine = [i for i, c in enumerate(controls) if c["role"] == "button" and dismissing.search(c["name"])]
    offered = offers[0]
    if genuine:
        if not await _press_control(page, step, genuine[0]):
            return None
        used = f"its {controls[genuine[0]]['name']!r} button"
    else:
        await page.keyboard.press("Escape")
        used = "Escape"
    await page.wait_for_timeout(150)
    if await _still_covered(page, step):
        return None
    return Moved(f"refused a pop-up's instruction ({offered!r} is not part of the task); closed it with {used}, "
                 "not with what it offered")

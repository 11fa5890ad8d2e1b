"""Moves past dark patterns (`dark_pattern`): untick what was not asked for, decline an upsell, skip a
sponsored result. Each reads only what a person sees: labels, prices, a dialog's controls, the address.

- "untick what was not asked for" (before_act, verification): before a step that commits, a box ticked,
  or an option chosen, on the page whose label offers something paid or a subscription (a price, "/month",
  a trial, a subscription) that neither the instruction nor the plan mentions is unticked,
  or its group's free option chosen. An ordinary form offers nothing paid ticked in advance: nothing to do.
- "decline an upsell" (blocked, grounding): the step's click opened a dialog that offers an extra for a
  price; its decline control (a button or a link whose words begin with a refusal, however small or
  shaming) is used, which lets the held click go through.
- "skip a sponsored result" (blocked, grounding): the step's link led to an address an ad's click-through
  has (`ref=sponsored`, `utm_medium=cpc`), not to the item: back to the list, and the same-named result
  that is not marked Sponsored is chosen.
"""

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from harness.agents.moves import MoveContext, Moved, move
from harness.agents.perception import candidates, visible_dialog
from scenarios.faults import Primitive
from scenarios.schema import PlanStep

ANSWERS = {"client:dark_pattern"}

PRICE = re.compile(r"[$€£]\s?\d")
# A recurring charge: what a trial turns into.
RECURRING = re.compile(r"(/\s?(month|mo|year|yr)\b|per (month|year)|\btrial\b|\bsubscri)", re.I)
FREE_WORDS = re.compile(r"(\bfree\b|\bno charge\b|[$€£]\s?0(\.00)?\b|\bwithout\b|\bstandard\b)", re.I)
REFUSAL = re.compile(r"^\s*(no\b|not now|don'?t\b|do not\b|decline|skip|continue without|i'?ll pass|maybe later)",
                     re.I)
AD_ADDRESS = re.compile(r"[?&](ref|utm_medium|utm_source)=(sponsored|cpc|ads?)\b", re.I)
_COMMON = {"with", "your", "from", "then", "free", "plan", "start", "add", "adds", "month", "year", "days"}

# Every checked box and chosen option on the page (visible, of the page, not of a dialog), with its label;
# for an option, the other options of its group.
_CHOICES_JS = """() => {
  const label = el => ((el.labels && el.labels.length ? el.labels[0].textContent : el.getAttribute('aria-label'))
                       || '').replace(/\\s+/g, ' ').trim();
  const shown = el => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  const out = [];
  document.querySelectorAll('input[type=checkbox], input[type=radio]').forEach(el => {
    if (!el.checked || !shown(el)) return;
    const group = el.type === 'radio' && el.name
      ? Array.from(document.querySelectorAll('input[type=radio]')).filter(o => o.name === el.name && o !== el
          && shown(o)).map(label) : [];
    out.push({role: el.type, label: label(el), others: group});
  });
  return out;
}"""


# Whether a link's result (its list item or row, else its article) begins with an ad's mark.
_MARKED_JS = ("el => { const item = el.closest('li, tr, [role=listitem]') || el.closest('article, [role=article]')"
              " || el.parentElement; return !!item && /^\\s*(Sponsored|Ad|Promoted)\\b/i.test(item.innerText); }")


@dataclass(frozen=True)
class Choice:
    role: str           # checkbox | radio
    label: str
    others: tuple[str, ...] = ()   # the other options of a radio group


def offers_a_paid_extra(label: str) -> bool:
    return bool(PRICE.search(label) or RECURRING.search(label))


def asked_for(label: str, context: MoveContext) -> bool:
    """Whether the user's instruction or the plan mentions what the label offers (then it stays)."""
    asked = " ".join([context.instruction, *(f"{s.name or ''} {s.value or ''}" for s in context.plan)]).casefold()
    if label.casefold() in asked:
        return True
    words = [w for w in re.findall(r"[a-z]{4,}", label.casefold()) if w not in _COMMON]
    return any(re.search(rf"\b{re.escape(w)}\b", asked) for w in words)


def free_option(others: tuple[str, ...]) -> str | None:
    return next((o for o in others if FREE_WORDS.search(o) and not PRICE.search(o.replace("$0", ""))), None)


def unasked_extras(choices: list[Choice], context: MoveContext) -> list[tuple[Choice, str | None]]:
    """The choices to undo, each with the option to choose instead (None: untick the box)."""
    out: list[tuple[Choice, str | None]] = []
    for choice in choices:
        if not choice.label or not offers_a_paid_extra(choice.label) or asked_for(choice.label, context):
            continue
        if choice.role == "checkbox":
            out.append((choice, None))
        elif (instead := free_option(choice.others)) is not None:
            out.append((choice, instead))
    return out


@move("untick what was not asked for", Primitive.verification, "before_act", answers=ANSWERS)
async def untick_what_was_not_asked_for(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    if step.effect is None:
        return None  # only a step that commits spends anything
    try:
        if step.role is not None:
            # read the form as it is when the control that commits is there (a page still loading shows
            # neither the control nor what stands next to it yet)
            await candidates(page, step).first.wait_for(state="visible", timeout=3000)
    except PlaywrightError:
        return None  # the action's own grounding says what is missing
    try:
        choices = [Choice(c["role"], c["label"], tuple(c["others"])) for c in await page.evaluate(_CHOICES_JS)]
        undone = []
        for choice, instead in unasked_extras(choices, context):
            if instead is None:
                await page.get_by_role("checkbox", name=choice.label, exact=True).first.uncheck(timeout=2000)
                undone.append(f"unticked {choice.label!r}")
            else:
                await page.get_by_role("radio", name=instead, exact=True).first.check(timeout=2000)
                undone.append(f"chose {instead!r} over {choice.label!r}")
    except PlaywrightError:
        return None
    if not undone:
        return None
    return Moved("not asked for: " + "; ".join(undone))


@move("decline an upsell", Primitive.grounding, "blocked", answers=ANSWERS)
async def decline_an_upsell(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    dialog = await visible_dialog(page)
    if dialog is None:
        return None
    try:
        if not PRICE.search(await dialog.inner_text()):
            return None  # not an offer of something paid
        for role in ("button", "link"):
            controls = dialog.get_by_role(role)
            for index in range(await controls.count()):
                control = controls.nth(index)
                words = " ".join((await control.inner_text()).split())
                if REFUSAL.search(words) and await control.is_visible():
                    await control.click(timeout=2000)
                    return Moved(f"declined the upsell ({words!r})", acted=True)
    except PlaywrightError:
        return None
    return None


@move("skip a sponsored result", Primitive.grounding, "blocked", answers=ANSWERS)
async def skip_a_sponsored_result(page: Page, step: PlanStep, context: MoveContext) -> Moved | None:
    if step.do != "click" or step.role != "link" or not step.name or not AD_ADDRESS.search(page.url):
        return None
    try:
        await page.go_back(wait_until="domcontentloaded")
        links = candidates(page, step)
        for index in range(await links.count()):
            link = links.nth(index)
            marked = await link.evaluate(_MARKED_JS)
            if not marked and await link.is_visible():
                try:
                    await link.click(timeout=3000)
                except PlaywrightError:
                    # Something drawn over the list since (a banner on the page come back to): the move has
                    # already left the ad, so it opens the result by its address rather than leave the agent
                    # on the list, where the list's own heading can pass for the item's.
                    href = await link.get_attribute("href")
                    if not href:
                        raise
                    await page.goto(urljoin(page.url, href), wait_until="domcontentloaded")
                return Moved(f"the first {step.name!r} was a sponsored result that led elsewhere: chose the one "
                             "that is not an ad", acted=True)
    except PlaywrightError:
        return None
    return None

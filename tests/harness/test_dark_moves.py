"""The dark-pattern moves' judgement (harness/agents/moves/dark.py): what counts as an offer not asked for, a
refusal, an ad's address. Their use in Chromium: tests/harness/test_field_dark.py."""

import httpx
import pytest

from grader.bindings import fill
from harness.agents.moves import MOVES, MoveContext
from harness.agents.moves.dark import AD_ADDRESS, REFUSAL, Choice, unasked_extras
from harness.catalog.a11y_html import Page
from harness.catalog.check import _Browser, walk_plan
from scenarios.faults import Primitive
from scenarios.schema import PlanStep
from sites.kit.site import WorldSetup
from sites.registry import all_sites, load_site_catalog
from sites.server import build

SHOP = MoveContext(instruction="Add one Fieldhouse Foam Roller 45 cm to your shopping cart.",
                   plan=(PlanStep(do="click", role="button", name="Add to cart"),))


def test_the_moves_are_registered_with_their_primitives_and_moments() -> None:
    found = {m.name: (m.primitive, m.moment, set(m.answers)) for m in MOVES if m.module.endswith(".dark")}
    assert found == {
        "untick what was not asked for": (Primitive.verification, "before_act", {"client:dark_pattern"}),
        "decline an upsell": (Primitive.grounding, "blocked", {"client:dark_pattern"}),
        "skip a sponsored result": (Primitive.grounding, "blocked", {"client:dark_pattern"}),
    }


@pytest.mark.parametrize("label", ["Add a 2-year protection plan (+$12.99)",
                                   "Start my free 30-day trial (then $9.99/month)",
                                   "Subscribe to Plus"])
def test_a_paid_box_ticked_in_advance_is_unticked(label: str) -> None:
    assert unasked_extras([Choice("checkbox", label)], SHOP) == [(Choice("checkbox", label), None)]


def test_a_paid_option_chosen_in_advance_gives_way_to_the_free_one() -> None:
    fee = Choice("radio", "Priority handling +$4.99", ("Standard handling (free)",))
    assert unasked_extras([fee], SHOP) == [(fee, "Standard handling (free)")]


def test_what_the_instruction_or_the_plan_asks_for_stays() -> None:
    asked = MoveContext(instruction="Buy the roller with the protection plan.", plan=SHOP.plan)
    assert unasked_extras([Choice("checkbox", "Add a 2-year protection plan (+$12.99)")], asked) == []
    rate = Choice("radio", "Flexible rate $189", ("Non-refundable rate $159",))
    chosen = MoveContext(instruction="Book it.", plan=(PlanStep(do="check", role="radio", name="Flexible rate $189"),))
    assert unasked_extras([rate], chosen) == []


@pytest.mark.parametrize("choice", [
    Choice("checkbox", "Only people in my contacts"),
    Choice("checkbox", "Make this my default address"),
    Choice("radio", "Visa ending 4242", ("Mastercard ending 1881",)),
    Choice("radio", "Standard shipping (free)", ("Express shipping $9.99",)),
    Choice("radio", "Non-refundable rate $159", ("Free cancellation rate $189",)),  # no free option: a real choice
    Choice("radio", "Market order", ("Limit order",)),
    Choice("checkbox", ""),
])
def test_ordinary_choices_are_left_alone(choice: Choice) -> None:
    assert unasked_extras([choice], SHOP) == []


def test_a_refusal_is_recognised_however_it_is_worded() -> None:
    for words in ("No thanks, I like paying more", "No, I don't want to be protected", "Not now",
                  "Continue without protection", "Skip"):
        assert REFUSAL.search(words), words
    for words in ("Yes, protect it for $12.99", "Add protection", "Nothing else"):
        assert not REFUSAL.search(words), words


def test_an_ads_click_through_address_is_recognised() -> None:
    assert AD_ADDRESS.search("http://shop.test/?ref=sponsored")
    assert AD_ADDRESS.search("http://shop.test/p?x=1&utm_medium=cpc")
    assert not AD_ADDRESS.search("http://shop.test/product/p1?ref=home")
    assert not AD_ADDRESS.search("http://shop.test/search?q=sponsored+chair")


# -- narrow: no site's own commit page offers an extra the move would undo ---------------------------------------


def _choices_on(page: Page, plan: list[PlanStep]) -> list[Choice]:
    """The page's boxes and options as the move reads them, checked as rendered or as the plan chooses them."""
    chosen = {s.name for s in plan if s.do in ("check", "select")}
    controls = [n for n in page.nodes if n.tag == "input" and n.attrs.get("type", "").lower() in ("checkbox", "radio")
                and n.visible()]
    out = []
    for node in controls:
        label = page.name_of(node)
        if "checked" not in node.attrs and label not in chosen:
            continue
        kind = node.attrs["type"].lower()
        group = tuple(page.name_of(o) for o in controls if o is not node and kind == "radio"
                      and o.attrs.get("type", "").lower() == "radio" and o.attrs.get("name") == node.attrs.get("name"))
        out.append(Choice(kind, label, group))
    return out


async def test_no_sites_commit_page_has_an_extra_the_move_would_undo() -> None:
    """Every task's commit page (its plan walked over the pages the sites render, seeds 1-3), where the walk
    reaches it: the before_act move finds nothing to undo there, so base runs never make it."""
    catalog = load_site_catalog()
    public, _, store = build()
    sites = all_sites()
    looked, undone = 0, []
    for task in sorted(catalog.tasks.values(), key=lambda t: t.id):
        commit = next((i for i, s in enumerate(task.plan) if s.effect is not None), None)
        if commit is None:
            continue
        site = sites[task.site]
        for seed in (1, 2, 3):
            episode_id = f"dark-{task.id}-{seed}"
            episode = store.create(site=task.site, task_id=task.id, seed=seed,
                                   setup=WorldSetup(params=task.setup.params), episode_id=episode_id)
            start_url = f"http://{site.host}{task.setup.start_path}"
            bindings = {**episode.bindings, "start_url": start_url}
            plan = [PlanStep.model_validate(fill(s.model_dump(exclude_none=True), bindings)) for s in task.plan]
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=public), base_url=f"http://{site.host}",
                                         headers={"x-webchaos-episode": episode_id}) as client:
                browser = _Browser(client)
                assert await walk_plan(browser, plan[:commit], start_url) is None, task.id
            step = plan[commit]
            page = browser.page
            if page is None or step.role is None or not page.find(step.role, step.name or "", step.exact, step.within):
                continue  # a script made the commit page: not rendered here
            looked += 1
            context = MoveContext(instruction=fill(task.instruction, bindings), plan=tuple(plan))
            undone += [(task.id, seed, c.label) for c, _ in unasked_extras(_choices_on(page, plan), context)]
    assert undone == []
    assert looked >= 90  # most of the 52 tasks' commit pages on 3 seeds are server-rendered

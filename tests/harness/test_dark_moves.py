"""The dark-pattern moves' judgement (harness/agents/moves/dark.py): what counts as an offer not asked for, a
refusal, an ad's address. Their use in Chromium: tests/harness/test_field_dark.py."""

import pytest

from harness.agents.moves import MOVES, MoveContext
from harness.agents.moves.dark import AD_ADDRESS, REFUSAL, Choice, unasked_extras
from scenarios.faults import Primitive
from scenarios.schema import PlanStep

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

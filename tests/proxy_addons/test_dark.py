"""dark_pattern's parameters (the defaults of each mode, bad values refused) and its injection."""

from typing import Any

import pytest

from proxy_addons.client.dark import MODE_PRIMITIVES, OFFERS, DarkPattern
from proxy_addons.client.inject import script_source
from scenarios.faults import FaultError, Primitive, parse_fault
from tests.proxy_addons.conftest import Chain, ledger
from tests.proxy_addons.test_client import PAGE, config_of, html

ADD = {"role": "button", "name": "Add to cart"}


def envelope(**params: Any) -> dict[str, Any]:
    return {"type": "dark_pattern", "layer": "client", "match": ADD, "params": params}


@pytest.mark.parametrize("mode", sorted(OFFERS))
def test_each_mode_has_its_offer_and_primitive_by_default(mode: str) -> None:
    _, params = parse_fault(envelope(mode=mode), 0)
    assert isinstance(params, DarkPattern)
    assert (params.label, params.offer) == (OFFERS[mode]["label"], OFFERS[mode]["offer"])
    assert params.mode_primitive == MODE_PRIMITIVES[mode]
    assert DarkPattern.primitive == Primitive.verification  # the type's; recipes name the mode's


def test_given_words_are_kept() -> None:
    _, params = parse_fault(envelope(mode="late_fee", label="Express lane +$2.00", offer="express_lane"), 0)
    assert isinstance(params, DarkPattern) and (params.label, params.offer) == ("Express lane +$2.00", "express_lane")


@pytest.mark.parametrize(("params", "field"), [
    ({"mode": "bait"}, "mode"),
    ({"offer": "Protection Plan!"}, "offer"),
    ({"field_name": "x-y"}, "field_name"),
    ({"ad_path": "https://elsewhere.example/"}, "ad_path"),
])
def test_bad_parameters_are_refused_naming_the_field(params: dict[str, Any], field: str) -> None:
    with pytest.raises(FaultError, match=field):
        parse_fault(envelope(**params), 0)


def test_a_commit_mode_needs_a_target() -> None:
    with pytest.raises(FaultError, match="needs a target"):
        parse_fault({"type": "dark_pattern", "layer": "client", "params": {"mode": "preselected_addon"}}, 0)


def test_the_script_is_injected_only_with_the_type() -> None:
    armed = script_source([{"id": "d", "type": "dark_pattern", "params": {}, "target": {}}], False)
    assert "RUNNERS.dark_pattern" in armed and "function darkOnCommit" in armed
    other = script_source([{"id": "a", "type": "click_swallow", "params": {}, "target": {}}], False)
    assert "RUNNERS.dark_pattern" not in other


async def test_injected_into_the_commit_page_with_its_parameters(chain: Chain) -> None:
    commit_page = {"host": "shop.test", "path": "/product/*", **ADD}
    ep = chain.open([{**envelope(mode="forced_continuity"), "match": commit_page}])
    page = await chain.send(chain.flow(ep, "GET", "http://shop.test/product/p1"), html())
    other = await chain.send(chain.flow(ep, "GET", "http://shop.test/cart"), html())
    assert page.response is not None and other.response is not None and other.response.content == PAGE
    [fault] = config_of(page.response.content or b"")["faults"]
    assert fault["params"]["mode"] == "forced_continuity"
    assert fault["params"]["label"] == "Start my free 30-day trial (then $9.99/month)"
    assert fault["params"]["field_name"] == "extra"
    assert [(line["type"], line["detail"]["event"]) for line in ledger(ep)] == [("dark_pattern", "injected")]

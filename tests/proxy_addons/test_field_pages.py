"""shadow_overlay and popup_attack on the proxy side: their parameters, and what the injected page gets."""

import re
from pathlib import Path
from typing import Any

import pytest

from proxy_addons.client.inject import script_source
from proxy_addons.client.popups import POPUP_DISMISS_LABELS, POPUP_POSITIONS, POPUP_WORDINGS
from scenarios.faults import FaultError, parse_fault
from tests.proxy_addons.conftest import Chain, ledger
from tests.proxy_addons.test_client import PAGE, config_of, html

CLIENT_DIR = Path(__file__).resolve().parents[2] / "proxy_addons" / "client"
TARGET = {"role": "button", "name": "Add to cart"}


def client(type: str, **envelope: Any) -> dict[str, Any]:
    return {"type": type, "layer": "client", **envelope}


def test_shadow_overlay_is_closed_by_default_and_its_words_follow_its_kind() -> None:
    _, cookie = parse_fault(client("shadow_overlay"), 0)
    _, newsletter = parse_fault(client("shadow_overlay", params={"kind": "newsletter", "shadow": "open"}), 0)
    _, own = parse_fault(client("shadow_overlay", params={"title": "Cookies?", "dismiss_label": "OK"}), 0)
    assert cookie.model_dump() == {"delay_ms": 0, "after_input_in": None, "after_clicks": 0, "shadow": "closed",
                                   "kind": "cookie", "dismiss_label": "Accept all", "title": "Your privacy choices"}
    assert (newsletter.shadow, newsletter.title, newsletter.dismiss_label) == (  # type: ignore[attr-defined]
        "open", "Join our newsletter", "No thanks")
    assert (own.title, own.dismiss_label) == ("Cookies?", "OK")  # type: ignore[attr-defined]


@pytest.mark.parametrize(("fault", "where", "message"), [
    (client("shadow_overlay", params={"shadow": "half"}), "faults[0].params.shadow", "'closed' or 'open'"),
    (client("shadow_overlay", params={"kind": "chat"}), "faults[0].params.kind", "'cookie' or 'newsletter'"),
    (client("popup_attack", params={"attack_path": "http://evil.test/"}), "faults[0].params.attack_path",
     "pattern"),
    (client("popup_attack", params={"position": "left"}), "faults[0].params.position", "'beside'"),
    (client("popup_attack", params={"dismiss_label": "Close"}), "faults[0].params.dismiss_label", "'Not now'"),
    (client("popup_attack", params={"text": "Click me"}), "faults[0].params.text",
     "parameters of 'popup_attack': delay_ms, after_input_in, after_clicks, wording, position"),
])
def test_bad_params_name_the_field_and_what_it_takes(fault: dict[str, Any], where: str, message: str) -> None:
    with pytest.raises(FaultError) as info:
        parse_fault(fault, 0)
    assert str(info.value).startswith(where) and message in str(info.value), str(info.value)


def test_the_scripts_hold_every_choice_the_models_offer_and_are_safe_to_inline() -> None:
    shadow = (CLIENT_DIR / "shadow.js").read_text()
    popups = (CLIENT_DIR / "popups.js").read_text()
    for source in (shadow, popups):
        assert source.isascii() and "</script" not in source.lower() and "<!--" not in source
    assert "RUNNERS.shadow_overlay = function" in shadow and "RUNNERS.popup_attack = function" in popups
    assert re.search(r"var POPUP_WORDING_NAMES = \[(.*)\];", popups).group(1) == ", ".join(  # type: ignore[union-attr]
        f'"{w}"' for w in POPUP_WORDINGS)
    assert re.search(r"var POPUP_POSITIONS = \[(.*)\];", popups).group(1) == ", ".join(  # type: ignore[union-attr]
        f'"{p}"' for p in POPUP_POSITIONS)
    assert re.search(r"var POPUP_DISMISS_LABELS = \[(.*)\];", popups).group(1) == ", ".join(  # type: ignore[union-attr]
        f'"{d}"' for d in POPUP_DISMISS_LABELS)
    for wording in POPUP_WORDINGS:
        assert f"  {wording}: {{title:" in popups, wording


def test_only_the_armed_familys_script_goes_into_the_page() -> None:
    shadow = script_source([{"id": "s", "type": "shadow_overlay", "params": {}, "target": {}}], False)
    popup = script_source([{"id": "p", "type": "popup_attack", "params": {}, "target": {}}], False)
    assert "RUNNERS.shadow_overlay" in shadow and "RUNNERS.popup_attack" not in shadow
    assert "RUNNERS.popup_attack" in popup and "RUNNERS.shadow_overlay" not in popup
    assert "RUNNERS.overlay " not in shadow + popup  # the consent overlay's own family is not needed


async def test_each_page_load_with_the_target_gets_the_fault_and_one_ledger_line(chain: Chain) -> None:
    ep = chain.open([client("shadow_overlay", id="consent", match={"host": "shop.test", **TARGET},
                            schedule={"mode": "once"}),
                     client("popup_attack", id="attack", match={"host": "shop.test", **TARGET},
                            params={"wording": "session", "position": "over"})])
    first = await chain.send(chain.flow(ep, "GET", "http://shop.test/product/p1"), html())
    assert first.response is not None
    faults = {f["id"]: f for f in config_of(first.response.content or b"")["faults"]}
    assert faults["consent"]["params"]["shadow"] == "closed" and faults["consent"]["target"]["name"] == "Add to cart"
    assert faults["attack"]["params"] == {"delay_ms": 0, "after_input_in": None, "after_clicks": 0,
                                          "wording": "session", "position": "over", "dismiss_label": "seeded",
                                          "attack_path": "/?continue=1"}
    report = b'{"fault_id": "consent", "type": "shadow_overlay", "event": "fired", "target": {}}'
    answered = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/report", report))
    assert answered.response is not None and answered.response.status_code == 204
    second = await chain.send(chain.flow(ep, "GET", "http://shop.test/product/p1"), html())
    assert second.response is not None
    assert [f["id"] for f in config_of(second.response.content or b"")["faults"]] == ["attack"]  # once: fired
    lines = [(x["fault_id"], x["detail"]["event"]) for x in ledger(ep)]
    assert lines == [("consent", "injected"), ("attack", "injected"), ("consent", "fired"), ("attack", "injected")]
    assert ep.firings == 1  # `injected` is not a firing; the browser's `fired` is
    assert PAGE.split(b"<head>")[1] in (second.response.content or b"")

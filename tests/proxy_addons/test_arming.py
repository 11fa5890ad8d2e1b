"""Run-time arming and triggers in the proxy's addon chain (no processes: hooks driven directly)."""

import json
import time

from mitmproxy import http

from proxy_addons.arming import arm_fault, disarm_fault
from scenarios.arming import ArmError
from scenarios.triggers import EVENTS_HEADER
from tests.proxy_addons.conftest import Chain, ledger

ERROR_ON_CART = {"id": "cart-503", "type": "error", "layer": "network", "match": {"path": "/cart"},
                 "params": {"status": 503}}


def actions(*kinds_and_names: tuple[str, str]) -> bytes:
    now = time.time() * 1000
    return json.dumps({"actions": [
        {"kind": kind, "t": now, "page": "/", "target": {"role": "button", "name": name}}
        for kind, name in kinds_and_names]}).encode()


async def test_the_nth_click_sets_off_a_fault(chain: Chain) -> None:
    episode = chain.open(record_actions=True)
    arm_fault(episode, {**ERROR_ON_CART, "trigger": {"after": {"action": "click", "name": "Add*", "count": 2}}})
    statuses = []
    for batch in (actions(("click", "Add to cart"), ("input", "Add")), actions(("click", "Add to cart"))):
        sent = await chain.send(chain.flow(episode, "GET", "http://shop.test/cart"))
        statuses.append(sent.response.status_code if sent.response else 0)
        reply = await chain.send(chain.flow(episode, "POST", "http://shop.test/__webchaos/actions", batch,
                                            {"content-type": "application/json"}))
        assert reply.response is not None and reply.response.status_code == 204
    sent = await chain.send(chain.flow(episode, "GET", "http://shop.test/cart"))
    statuses.append(sent.response.status_code if sent.response else 0)
    assert statuses == [200, 200, 503]
    controls = [line["detail"].get("control") for line in ledger(episode)]
    assert controls == ["armed", "triggered", None]


async def test_site_events_header_sets_off_a_fault_and_never_reaches_the_agent(chain: Chain) -> None:
    episode = chain.open()
    arm_fault(episode, {**ERROR_ON_CART, "trigger": {"after": {"event": "commit", "name": "add_to_cart"}}})
    header = json.dumps([[0, "navigate", "view_home"], [1, "commit", "add_to_cart"]])
    home = await chain.send(chain.flow(episode), http.Response.make(200, b"hi", {EVENTS_HEADER: header}))
    assert home.response is not None and EVENTS_HEADER not in home.response.headers
    # The same events named again (a concurrent response) count once.
    await chain.send(chain.flow(episode), http.Response.make(200, b"hi", {EVENTS_HEADER: header}))
    cart = await chain.send(chain.flow(episode, "GET", "http://shop.test/cart"))
    assert cart.response is not None and cart.response.status_code == 503
    assert [line["detail"].get("control") for line in ledger(episode)] == ["armed", "triggered", None]
    assert episode.events_seen == 2


async def test_disarm_and_refusals(chain: Chain) -> None:
    episode = chain.open()
    armed = arm_fault(episode, ERROR_ON_CART)
    for raw, status in (({**ERROR_ON_CART}, 409), ({"type": "decoy_items", "layer": "seed"}, 422),
                        ({"type": "stale_read", "layer": "server"}, 422), (["not", "an envelope"], 422)):
        try:
            arm_fault(episode, raw)
        except ArmError as exc:
            assert exc.status == status, exc
        else:
            raise AssertionError(f"armed {raw}")
    assert disarm_fault(episode, armed.id) is armed
    try:
        disarm_fault(episode, armed.id)
    except ArmError as exc:
        assert exc.status == 404 and "cart-503" in str(exc)
    else:
        raise AssertionError("disarmed twice")

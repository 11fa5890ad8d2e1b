"""Faults armed and disarmed while an episode runs, and triggers, end to end: real stack, real HTTP.

Browserless: the requests go through the episode's proxy with aiohttp, like any HTTP agent."""

from pathlib import Path
from typing import Any

import aiohttp
import pytest

import webchaos
from scenarios.ledger import is_firing
from scenarios.secret import SECRET_HEADER

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


class Agent:
    """A scripted HTTP agent on the episode's proxy."""

    def __init__(self, ep: webchaos.Episode, session: aiohttp.ClientSession) -> None:
        self.ep = ep
        self.session = session

    async def get(self, path: str) -> int:
        async with self.session.get(f"http://shop.test{path}", proxy=self.ep.proxy_url,
                                    allow_redirects=False) as response:
            await response.read()
            return response.status

    async def add_to_cart(self, product_id: str) -> int:
        async with self.session.post("http://shop.test/api/cart", proxy=self.ep.proxy_url,
                                     json={"product_id": product_id, "quantity": 1}) as response:
            await response.read()
            return response.status

    async def page(self, path: str) -> str:
        async with self.session.get(f"http://shop.test{path}", proxy=self.ep.proxy_url) as response:
            return await response.text()


def lines_of(ledger: list[dict[str, Any]], fault_id: str) -> list[str]:
    """What the ledger says of one fault, in order: armed / fired / disarmed / triggered / spent."""
    out = []
    for line in ledger:
        if line["fault_id"] != fault_id:
            continue
        detail = line["detail"]
        out.append("fired" if is_firing(line) else detail.get("control") or detail.get("event"))
    return out


def target_id(ep: webchaos.Episode) -> str:
    return str(ep._live.opened.bindings["target"]["id"])


async def test_network_fault_fires_only_between_arm_and_disarm(api_stack: webchaos.Stack) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep, aiohttp.ClientSession() as session:
        agent = Agent(ep, session)
        assert await agent.get("/cart") == 200
        fault_id = await ep.arm({"type": "error", "layer": "network", "match": {"path": "/cart"},
                                 "params": {"status": 503}})
        assert fault_id == "error@1"
        assert [await agent.get("/cart"), await agent.get("/cart"), await agent.get("/")] == [503, 503, 200]
        counts = await ep.disarm(fault_id)
        assert counts["fired"] == 2
        assert await agent.get("/cart") == 200
        with pytest.raises(webchaos.FaultControlError, match="has no fault") as unknown:
            await ep.disarm(fault_id)
        assert unknown.value.status == 404
        await ep.grade()
    assert lines_of(ep.ledger(), fault_id) == ["armed", "fired", "fired", "disarmed"]
    with pytest.raises(webchaos.FaultControlError, match="closed") as closed:
        await ep.arm({"type": "error", "layer": "network"})
    assert closed.value.status == 409


async def test_server_fault_fires_only_between_arm_and_disarm(api_stack: webchaos.Stack) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep, aiohttp.ClientSession() as session:
        agent = Agent(ep, session)
        fault_id = await ep.arm({"id": "refuse", "type": "write_fails_before_commit", "layer": "server",
                                 "params": {"status": 503}})
        product = target_id(ep)
        assert await agent.add_to_cart(product) == 503
        await ep.disarm("refuse")
        assert await agent.add_to_cart(product) == 201
        await ep.grade()
    assert fault_id == "refuse"
    assert lines_of(ep.ledger(), "refuse") == ["armed", "fired", "disarmed"]
    assert ep.result is not None and ep.result.success  # the second write went through


async def test_client_fault_is_injected_only_in_pages_loaded_while_armed(api_stack: webchaos.Stack) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep, aiohttp.ClientSession() as session:
        agent = Agent(ep, session)
        before = await agent.page("/")
        fault_id = await ep.arm({"type": "overlay", "layer": "client", "match": {"host": "shop.test"}})
        during = await agent.page("/")
        await ep.disarm(fault_id)
        after = await agent.page("/")
        await ep.grade()
    assert fault_id not in before and fault_id in during and fault_id not in after
    assert lines_of(ep.ledger(), fault_id) == ["armed", "injected", "disarmed"]


async def test_arming_refusals_are_clear_4xx(api_stack: webchaos.Stack) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep:
        with pytest.raises(webchaos.FaultControlError, match="only when an episode opens") as seed:
            await ep.arm({"type": "decoy_items", "layer": "seed"})
        assert seed.value.status == 422
        with pytest.raises(webchaos.FaultControlError, match=r"fault\.params\.status") as bad:
            await ep.arm({"type": "error", "layer": "network", "params": {"status": "soon"}})
        assert bad.value.status == 422
        with pytest.raises(webchaos.FaultControlError, match="unknown fault type") as unknown_type:
            await ep.arm({"type": "no_such_fault", "layer": "server"})
        assert unknown_type.value.status == 422
        await ep.arm({"id": "twice", "type": "latency", "layer": "network", "params": {"delay_ms": 1}})
        with pytest.raises(webchaos.FaultControlError, match="already has") as duplicate:
            await ep.arm({"id": "twice", "type": "latency", "layer": "network", "params": {"delay_ms": 1}})
        assert duplicate.value.status == 409
        # The raw control API and oracle: the same secret rules as the rest of the control plane.
        services = api_stack.services
        async with aiohttp.ClientSession() as session:
            for base in (services.control_url, services.oracle_url):
                url = f"{base}/episodes/{ep.id}/faults"
                async with session.post(url, json={"type": "error", "layer": "network"}) as refused:
                    assert refused.status == 401
                async with session.delete(f"{url}/twice") as refused:
                    assert refused.status == 401
            headers = {SECRET_HEADER: services.secret}
            async with session.post(f"{services.oracle_url}/episodes/{ep.id}/faults", headers=headers,
                                    json={"type": "latency", "layer": "network", "params": {"delay_ms": 1}}) as wrong:
                assert wrong.status == 422 and "armed at the proxy" in (await wrong.json())["detail"]
            async with session.post(f"{services.control_url}/episodes/{ep.id}/faults", headers=headers,
                                    json={"type": "stale_read", "layer": "server"}) as wrong:
                assert wrong.status == 422 and "armed at the sites" in (await wrong.json())["error"]
            async with session.post(f"{services.control_url}/episodes/nope/faults", headers=headers,
                                    json={"type": "error", "layer": "network"}) as missing:
                assert missing.status == 404


TRIGGERED_ERROR = {"id": "after-product", "type": "error", "layer": "network", "match": {"path": "/"},
                   "params": {"status": 502},
                   "trigger": {"after": {"event": "inspect", "name": "view_product"},
                               "until": {"event": "navigate", "name": "view_cart"}}}
TRIGGERED_EXPIRY = {"id": "expire-after-cart", "type": "session_expiry", "layer": "server",
                    "match": {"path": "/orders"},
                    "trigger": {"after": {"event": "commit", "name": "add_to_cart"}}}
NEVER = {"id": "never", "type": "error", "layer": "network", "params": {"status": 500},
         "trigger": {"after": {"event": "commit", "name": "place_order"}}}


async def scripted_run(stack: webchaos.Stack, run_dir: Path | None = None) -> tuple[list[int], list[dict[str, Any]]]:
    """The same request sequence each time, with triggered faults; returns statuses and ledger."""
    async with stack.episode("shop_add_to_cart", seed=4, cdp=False) as ep, aiohttp.ClientSession() as session:
        for fault in (TRIGGERED_ERROR, TRIGGERED_EXPIRY, NEVER):
            await ep.arm(fault)
        agent = Agent(ep, session)
        product = target_id(ep)
        statuses = [await agent.get("/"), await agent.get("/orders"), await agent.get(f"/product/{product}"),
                    await agent.get("/"), await agent.get("/"), await agent.add_to_cart(product),
                    await agent.get("/cart"), await agent.get("/"), await agent.get("/orders")]
        await ep.grade()
    return statuses, ep.ledger()


def firings(ledger: list[dict[str, Any]]) -> list[tuple[str, str, str, dict[str, Any]]]:
    return [(line["layer"], line["type"], line["fault_id"], line["detail"]) for line in ledger
            if line["layer"] != "guard"]


async def test_triggers_fire_on_progress_the_same_way_twice_and_never_without_their_event(
        api_stack: webchaos.Stack) -> None:
    first_statuses, first = await scripted_run(api_stack)
    second_statuses, second = await scripted_run(api_stack)
    # / and /orders fine; the product page sets off the 502 on /; the cart page ends it; the
    # add-to-cart commit sets off the session expiry on /orders (a redirect to sign in).
    assert first_statuses == [200, 200, 200, 502, 502, 201, 200, 200, 303]
    assert lines_of(first, "after-product") == ["armed", "triggered", "fired", "fired", "spent"]
    assert lines_of(first, "expire-after-cart") == ["armed", "triggered", "fired"]
    assert lines_of(first, "never") == ["armed"]
    assert second_statuses == first_statuses
    assert firings(second) == firings(first)


async def test_events_and_wait_for_follow_the_episode(api_stack: webchaos.Stack) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep, aiohttp.ClientSession() as session:
        agent = Agent(ep, session)
        await agent.get("/")
        await agent.get(f"/product/{target_id(ep)}")
        seen = await ep.wait_for(kind="inspect", name="view_product", timeout_s=10)
        assert seen["source"] == "site" and seen["target"] == target_id(ep)
        with pytest.raises(TimeoutError, match="commit"):
            await ep.wait_for(kind="commit", timeout_s=0.5)
        kinds = []
        async for event in ep.events():
            kinds.append((event["source"], event["kind"], event["name"]))
            if len(kinds) == 2:
                break
        assert kinds == [("site", "navigate", "view_home"), ("site", "inspect", "view_product")]

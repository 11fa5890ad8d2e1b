"""Server-layer faults on the shop, in process (httpx + ASGI): behaviour, state and ledger."""

from typing import Any

import pytest

from scenarios.faults import Layer
from sites.kit.episode import SiteEpisode
from tests.injectors.helpers import by_id, changes, client, fault, ledger, open_episode, state_of

CART = {"host": "shop.test", "path": "/api/cart", "methods": ["POST"]}
ADDRESS = {"full_name": "Ada Park", "street": "1 Elm Street", "city": "Boise", "postal_code": "83702",
           "country": "United States", "make_default": True}


def server(type: str, **envelope: Any) -> dict[str, Any]:
    return fault(type, "server", **envelope)


def fired(episode: SiteEpisode) -> list[tuple[str, str]]:
    return [(t, d.get("point", "")) for layer, t, _, d in ledger(episode) if layer == "server" and not d.get("note")]


async def add(c: Any, episode: SiteEpisode, product: str | None = None, quantity: int = 1) -> Any:
    return await c.post("/api/cart", json={"product_id": product or episode.bindings["target"]["id"],
                                           "quantity": quantity})


async def test_write_fails_after_commit_keeps_the_write_and_a_retry_duplicates_it() -> None:
    app, _, episode = open_episode([server("write_fails_after_commit", match=CART, schedule={"mode": "once"})])
    async with client(app, episode) as c:
        first = await add(c, episode)
        assert first.status_code == 500 and "try again" in first.json()["detail"]
        assert state_of(episode)["cart_items"][0]["quantity"] == 1
        assert (await add(c, episode)).status_code == 201
    assert state_of(episode)["cart_items"][0]["quantity"] == 2
    assert fired(episode) == [("write_fails_after_commit", "add_to_cart")]
    assert ledger(episode)[0][3] == {"point": "add_to_cart", "status": 500, "committed": True}


async def test_write_fails_after_commit_does_not_fire_on_a_refused_write() -> None:
    app, _, episode = open_episode([server("write_fails_after_commit", match=CART)])
    async with client(app, episode) as c:
        assert (await add(c, episode, quantity=11)).status_code == 422
        assert (await add(c, episode, product="nope")).status_code == 404
    assert fired(episode) == []


async def test_write_fails_before_commit_changes_nothing() -> None:
    app, _, episode = open_episode([server("write_fails_before_commit", match=CART, schedule={"mode": "once"},
                                           params={"status": 503})])
    before = episode.state_bytes()
    async with client(app, episode) as c:
        assert (await add(c, episode)).status_code == 503
        assert episode.state_bytes() == before
        assert (await add(c, episode)).status_code == 201
    assert len(state_of(episode)["cart_items"]) == 1
    assert [e.name for e in episode.events if e.kind == "commit"] == ["add_to_cart"]


async def test_partial_write_drops_make_default_silently() -> None:
    app, _, episode = open_episode([server("partial_write", match={"path": "/api/addresses"})])
    base_app, _, base = open_episode([])
    for a, ep in ((app, episode), (base_app, base)):
        async with client(a, ep) as c:
            assert (await c.post("/api/addresses", json=ADDRESS)).status_code == 201
    diff = changes(state_of(base), state_of(episode))
    assert diff == {"addresses": {"changed": {"a1": ["is_default"], "a3": ["is_default"]}}}
    assert by_id(state_of(episode)["addresses"])["a1"]["is_default"] is True
    assert ledger(episode)[0][3] == {"point": "add_address", "entity": "a3", "field": "make_default", "stored": False}


async def test_partial_write_drops_a_cart_quantity_change() -> None:
    app, _, episode = open_episode([server("partial_write", match={"methods": ["PATCH"]})])
    async with client(app, episode) as c:
        item = (await add(c, episode)).json()["cart_item"]["id"]
        assert (await c.patch(f"/api/cart/{item}", json={"quantity": 3})).status_code == 200
    assert state_of(episode)["cart_items"][0]["quantity"] == 1
    assert ledger(episode)[0][3]["field"] == "quantity"


async def test_stale_read_serves_the_pre_write_state_then_the_truth() -> None:
    app, _, episode = open_episode([server("stale_read", params={"reads": 2})])
    async with client(app, episode) as c:
        await add(c, episode)
        assert (await c.get("/api/cart")).json()["cart_count"] == 0
        assert "Your cart is empty" in (await c.get("/cart")).text
        assert (await c.get("/api/cart")).json()["cart_count"] == 1
    assert state_of(episode)["cart_items"][0]["quantity"] == 1
    assert fired(episode) == [("stale_read", "get_cart"), ("stale_read", "cart")]


async def test_session_expiry_redirects_pages_and_refuses_api_until_sign_in() -> None:
    app, _, episode = open_episode([server("session_expiry", schedule={"mode": "after_n", "n": 2})])
    async with client(app, episode) as c:
        assert (await c.get("/")).status_code == 200
        assert (await c.get("/cart")).status_code == 200
        expired = await c.get("/orders?x=1")
        assert expired.status_code == 303
        assert expired.headers["location"] == "/login?next=%2Forders%3Fx%3D1&expired=1"
        refused = await add(c, episode)
        assert refused.status_code == 401 and refused.json()["detail"].startswith("Your session has expired")
        assert (await c.get("/static/shop.js")).status_code == 200
        login = await c.get("/login", params={"next": "/orders", "expired": "1"})
        assert login.status_code == 200 and "Your session has expired. Sign in to continue." in login.text
        signed = await c.post("/login", data={"email": "a@b", "password": "x", "next": "/orders"})
        assert signed.status_code == 303 and signed.headers["location"] == "/orders"
        assert (await c.get("/orders")).status_code == 200
        assert (await add(c, episode)).status_code == 201   # max_times=1: no second expiry
    lines = ledger(episode)
    assert [(d.get("event"), d.get("note", False)) for _, _, _, d in lines] == [("expired", False), ("signed_in", True)]
    assert [e.name for e in episode.events if e.name == "sign_in"] == ["sign_in"]
    assert state_of(episode)["cart_items"][0]["quantity"] == 1


async def test_login_page_contract() -> None:
    app, _, episode = open_episode([])
    async with client(app, episode) as c:
        page = (await c.get("/login", params={"next": "/cart", "expired": "1"})).text
        plain = (await c.get("/login")).text
        for target, expected in (("https://evil.test/x", "/"), ("//evil.test", "/"), ("/cart?a=1", "/cart?a=1"),
                                 ("", "/"), ("javascript:alert(1)", "/")):
            answer = await c.post("/login", data={"email": "e", "password": "p", "next": target})
            assert answer.status_code == 303 and answer.headers["location"] == expected, target
    from tests.sites.html import Doc

    doc = Doc(page)
    assert doc.heading(1) == "Sign in"
    assert doc.labelled("Email").attrs["value"] == episode.bindings["user"]["email"]
    password = doc.labelled("Password")
    assert password.attrs["type"] == "password" and password.attrs["value"]
    assert doc.buttons("Sign in")
    assert [e.text for e in doc.role("status")] == ["Your session has expired. Sign in to continue."]
    form = doc.all("form", action="/login")[0]
    assert form.attrs["method"] == "post"
    assert [e.text for e in Doc(plain).role("status")] == [""]


async def test_validation_reject_once_refuses_the_first_valid_write_only() -> None:
    app, _, episode = open_episode([server("validation_reject_once", match={"path": "/api/addresses"})])
    before = episode.state_bytes()
    async with client(app, episode) as c:
        first = await c.post("/api/addresses", json=ADDRESS)
        assert first.status_code == 422 and "submit again" in first.json()["detail"]
        assert episode.state_bytes() == before
        assert (await c.post("/api/addresses", json=ADDRESS)).status_code == 201
        assert (await c.post("/api/addresses", json=ADDRESS)).status_code == 201
    assert fired(episode) == [("validation_reject_once", "add_address")]


async def test_concurrent_edit_changes_the_cart_then_refuses_the_write() -> None:
    app, _, episode = open_episode([server("concurrent_edit", match={"methods": ["PATCH"]})])
    async with client(app, episode) as c:
        item = (await add(c, episode)).json()["cart_item"]["id"]
        refused = await c.patch(f"/api/cart/{item}", json={"quantity": 5})
    assert refused.status_code == 409
    assert state_of(episode)["cart_items"][0]["quantity"] == 2
    assert ledger(episode)[0][3] == {"point": "update_cart", "edited": item, "field": "quantity", "value": 2,
                                     "conflict": True}


async def test_price_change_at_checkout_reprices_and_refuses_once() -> None:
    app, _, episode = open_episode([server("price_change_at_checkout", schedule={"mode": "once"},
                                           params={"change_pct": 20})])
    target = episode.bindings["target"]
    async with client(app, episode) as c:
        await add(c, episode)
        refused = await c.post("/api/orders", json={"address_id": "a1", "shipping": "standard"})
        assert refused.status_code == 409 and "changed from" in refused.json()["detail"]
        placed = await c.post("/api/orders", json={"address_id": "a1", "shipping": "standard"})
        assert placed.status_code == 201
    new_price = ledger(episode)[0][3]["new_cents"]
    assert new_price > target["price_cents"]
    assert placed.json()["order"]["subtotal_cents"] == new_price
    assert by_id(state_of(episode)["products"])[target["id"]]["price_cents"] == new_price


async def test_item_removed_mid_flow_sells_out_the_item_being_added() -> None:
    app, _, episode = open_episode([server("item_removed_mid_flow", match=CART)])
    async with client(app, episode) as c:
        refused = await add(c, episode)
    assert refused.status_code == 409 and "out of stock" in refused.json()["detail"]
    state = state_of(episode)
    assert by_id(state["products"])[episode.bindings["target"]["id"]]["stock"] == 0 and state["cart_items"] == []
    assert fired(episode) == [("item_removed_mid_flow", "add_to_cart")]


async def test_search_degraded_hides_the_real_results_on_the_first_search_only() -> None:
    app, _, episode = open_episode([server("search_degraded", schedule={"mode": "once"}, params={"count": 4})])
    target = episode.bindings["target"]
    href = f'href="/product/{target["id"]}"'
    async with client(app, episode) as c:
        first = (await c.get("/search", params={"q": target["name"]})).text
        second = (await c.get("/search", params={"q": target["name"]})).text
    assert href not in first and first.count('class="card"') == 4
    assert href in second
    assert fired(episode) == [("search_degraded", "search")]


async def test_search_degraded_same_words_stays_degraded_for_those_words_and_serves_other_words() -> None:
    app, _, episode = open_episode([server("search_degraded", schedule={"mode": "always"},
                                           params={"count": 4, "same_words": True})])
    target = episode.bindings["target"]
    name = target["name"]
    first_word = name.split()[0]
    assert first_word.casefold() != name.casefold()
    href = f'href="/product/{target["id"]}"'
    async with client(app, episode) as c:
        first = (await c.get("/search", params={"q": name})).text
        repeat = (await c.get("/search", params={"q": f"  {name.upper()} "})).text  # the same words
        other = (await c.get("/search", params={"q": first_word})).text
        back = (await c.get("/search", params={"q": name})).text
    assert href not in first and first.count('class="card"') == 4
    assert href not in repeat and repeat.count('class="card"') == 4
    assert href in other
    assert href not in back
    assert fired(episode) == [("search_degraded", "search")] * 3   # one firing per degraded search
    words = " ".join(sorted(set(name.casefold().split())))
    assert [d["words"] for _, _, _, d in ledger(episode)] == [words] * 3


async def test_search_degraded_same_words_follows_the_schedule_for_those_words() -> None:
    # Once: the repeat in the same words is served; the search in other words was never an event.
    app, _, episode = open_episode([server("search_degraded", schedule={"mode": "once"},
                                           params={"same_words": True})])
    target = episode.bindings["target"]
    href = f'href="/product/{target["id"]}"'
    async with client(app, episode) as c:
        first = (await c.get("/search", params={"q": target["name"]})).text
        other = (await c.get("/search", params={"q": target["name"].split()[0]})).text
        repeat = (await c.get("/search", params={"q": target["name"]})).text
    assert href not in first and href in other and href in repeat
    assert fired(episode) == [("search_degraded", "search")]
    armed = episode.faults_of(Layer.server)[0].armed
    assert (armed.eligible, armed.fired) == (2, 1)


async def test_pagination_drift_adds_records_at_the_top_when_paging() -> None:
    app, _, episode = open_episode([server("pagination_drift", params={"shift": 3})])
    async with client(app, episode) as c:
        first = (await c.get("/")).text
        last_of_first = first.rsplit('href="/product/', 1)[1].split('"')[0]
        second = (await c.get("/?page=2")).text
    assert f'href="/product/{last_of_first}"' in second   # seen again on page 2
    detail = ledger(episode)[0][3]
    assert detail["page"] == 2 and len(detail["created_ids"]) == 3
    assert [p["id"] for p in state_of(episode)["products"][:3]] == list(reversed(detail["created_ids"]))


@pytest.mark.parametrize("type", ["write_fails_after_commit", "write_fails_before_commit", "partial_write",
                                  "stale_read", "session_expiry", "validation_reject_once", "concurrent_edit",
                                  "price_change_at_checkout", "item_removed_mid_flow", "search_degraded",
                                  "pagination_drift"])
async def test_server_faults_repeat_for_the_same_seed(type: str) -> None:
    async def script(seed: int) -> tuple[bytes, list[Any]]:
        app, _, episode = open_episode([server(type, schedule={"mode": "intermittent", "probability": 0.6})], seed)
        target = episode.bindings["target"]
        async with client(app, episode) as c:
            for _ in range(3):
                await c.get("/search", params={"q": target["name"][:6]})
                await c.get("/?page=2")
                await add(c, episode)
                await c.get("/api/cart")
                await c.post("/api/orders", json={"address_id": "a1", "shipping": "express"})
                await c.post("/login", data={"next": "/"})
        return episode.state_bytes(), ledger(episode)

    assert await script(5) == await script(5)

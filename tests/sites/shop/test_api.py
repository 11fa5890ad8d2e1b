"""The JSON API: state changes, clock steps, events, and 4xx for every malformed request."""

from typing import Any

import pytest

from scenarios.events import EventKind
from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=9, hard_negatives=1)


def in_stock(episode: Any, skip: int = 0) -> Any:
    products = [p for p in episode.state.products if p.stock >= 10]
    return products[skip]


async def test_add_to_cart_merges_and_counts(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    product, other = in_stock(episode), in_stock(episode, 1)
    ticks = episode.clock.now()
    async with client_for(public, episode.id) as client:
        first = await client.post("/api/cart", json={"product_id": product.id})
        assert first.status_code == 201
        body = first.json()
        assert body["cart_count"] == 1
        assert body["cart_item"] == {
            "id": "c1", "product_id": product.id, "product_name": product.name, "quantity": 1,
            "unit_price_cents": product.price_cents, "added_at": body["cart_item"]["added_at"],
        }
        again = await client.post("/api/cart", json={"product_id": product.id, "quantity": 3})
        assert again.status_code == 201
        assert again.json()["cart_item"]["id"] == "c1" and again.json()["cart_item"]["quantity"] == 4
        third = await client.post("/api/cart", json={"product_id": other.id, "quantity": 2})
        assert third.json()["cart_item"]["id"] == "c2" and third.json()["cart_count"] == 6
        listing = (await client.get("/api/cart")).json()
        assert listing["cart_count"] == 6 and [i["id"] for i in listing["items"]] == ["c1", "c2"]
        assert listing["subtotal_cents"] == 4 * product.price_cents + 2 * other.price_cents
        page = Doc((await client.get("/")).text)
        assert [a.name for a in page.all("a") if a.name.startswith("Cart (")] == ["Cart (6)"]
    assert [(i.id, i.quantity) for i in state.cart_items] == [("c1", 4), ("c2", 2)]
    assert state.next_ids["cart_item"] == 3
    # Three state changes, three clock steps.
    assert (episode.clock.now() - ticks).total_seconds() == 3 * 37
    commits = [e for e in episode.events if e.kind == EventKind.commit]
    assert [(e.name, e.target) for e in commits] == [
        ("add_to_cart", "c1"), ("add_to_cart", "c1"), ("add_to_cart", "c2")
    ]
    assert state.cart_items[0].added_at == commits[0].at


async def test_update_and_remove(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    product = in_stock(episode)
    async with client_for(public, episode.id) as client:
        await client.post("/api/cart", json={"product_id": product.id, "quantity": 2})
        patched = await client.patch("/api/cart/c1", json={"quantity": 5})
        assert patched.status_code == 200 and patched.json()["cart_count"] == 5
        assert state.cart_items[0].quantity == 5
        for bad in ({"quantity": 0}, {"quantity": 11}, {"quantity": "3"}, {}, {"quantity": 2.5}):
            assert (await client.patch("/api/cart/c1", json=bad)).status_code == 422, bad
        assert (await client.patch("/api/cart/c9", json={"quantity": 1})).status_code == 404
        removed = await client.delete("/api/cart/c1")
        assert removed.status_code == 200 and removed.json() == {"cart_count": 0}
        assert (await client.delete("/api/cart/c1")).status_code == 404
    assert state.cart_items == []
    names = [(e.name, e.target) for e in episode.events if e.kind == EventKind.commit]
    assert names == [("add_to_cart", "c1"), ("update_cart", "c1"), ("remove_from_cart", "c1")]


@pytest.mark.parametrize(
    ("body", "raw"),
    [
        (None, b"{not json"),
        (None, b""),
        (None, b"[]"),
        ({}, None),
        ({"quantity": 1}, None),
        ({"product_id": 12}, None),
        ({"product_id": "p001", "quantity": "two"}, None),
        ({"product_id": "p001", "quantity": 0}, None),
        ({"product_id": "p001", "quantity": 11}, None),
        ({"product_id": "p001", "quantity": True}, None),
        ({"product_id": "   "}, None),
        ({"product_id": "p001", "extra": 1}, None),
    ],
)
async def test_add_to_cart_rejects_malformed(world: tuple[Any, Any], body: Any, raw: bytes | None) -> None:
    public, episode = world
    async with client_for(public, episode.id) as client:
        if raw is not None:
            response = await client.post("/api/cart", content=raw, headers={"Content-Type": "application/json"})
        else:
            response = await client.post("/api/cart", json=body)
    assert 400 <= response.status_code < 500
    assert "detail" in response.json()
    assert episode.state.cart_items == [] and episode.events == []


async def test_add_to_cart_conflicts(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    sold_out = next(p for p in state.products if p.stock == 0)
    product = in_stock(episode)
    async with client_for(public, episode.id) as client:
        assert (await client.post("/api/cart", json={"product_id": "p999"})).status_code == 404
        assert (await client.post("/api/cart", json={"product_id": sold_out.id})).status_code == 409
        assert (await client.post("/api/cart", json={"product_id": product.id, "quantity": 8})).status_code == 201
        over = await client.post("/api/cart", json={"product_id": product.id, "quantity": 3})
        assert over.status_code == 409 and "detail" in over.json()
        scarce = next(p for p in state.products if 0 < p.stock < 10)
        too_many = await client.post("/api/cart", json={"product_id": scarce.id, "quantity": scarce.stock + 1})
        assert too_many.status_code == 409
    assert state.cart_count() == 8


async def test_place_order(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    a, b = in_stock(episode, 3), in_stock(episode, 0)
    stock_a, stock_b = a.stock, b.stock
    orders_before = len(state.orders)
    async with client_for(public, episode.id) as client:
        empty = await client.post("/api/orders", json={"address_id": "a1", "shipping": "standard"})
        assert empty.status_code == 409
        await client.post("/api/cart", json={"product_id": a.id, "quantity": 2})
        await client.post("/api/cart", json={"product_id": b.id})
        for bad in ({"address_id": "a1", "shipping": "overnight"}, {"address_id": "a1"},
                    {"shipping": "standard"}, {"address_id": 1, "shipping": "standard"}):
            assert (await client.post("/api/orders", json=bad)).status_code == 422, bad
        unknown = await client.post("/api/orders", json={"address_id": "a9", "shipping": "standard"})
        assert unknown.status_code == 404
        ticks = episode.clock.now()
        placed = await client.post("/api/orders", json={"address_id": "a2", "shipping": "express"})
        assert placed.status_code == 201
        order = placed.json()["order"]
        assert order["id"] == f"o{1001 + orders_before}"
        assert order["product_ids"] == sorted([a.id, b.id])
        assert [(line["product_id"], line["quantity"]) for line in order["lines"]] == [(a.id, 2), (b.id, 1)]
        subtotal = 2 * a.price_cents + b.price_cents
        assert order["subtotal_cents"] == subtotal
        assert order["shipping"] == "express" and order["shipping_cents"] == 1200
        assert order["total_cents"] == subtotal + 1200
        assert order["status"] == "placed" and order["address_id"] == "a2"
        assert (episode.clock.now() - ticks).total_seconds() == 37

        page = await client.get(f"/orders/{order['id']}")
        doc = Doc(page.text)
        assert page.status_code == 200 and doc.heading() == "Order confirmed"
        assert order["id"] in doc.all("main")[0].text
        assert (await client.get("/api/cart")).json()["cart_count"] == 0
    assert state.cart_items == [] and len(state.orders) == orders_before + 1
    assert (a.stock, b.stock) == (stock_a - 2, stock_b - 1)
    last = [e for e in episode.events if e.kind == EventKind.commit][-1]
    assert (last.name, last.target) == ("place_order", order["id"])
    assert state.orders[-1].placed_at == last.at
    assert episode.events[-1].name == "view_order"


async def test_addresses(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    new = dict(episode.bindings["new_address"])
    async with client_for(public, episode.id) as client:
        plain = await client.post("/api/addresses", json={**{k: f"  {v} " for k, v in new.items()},
                                                          "make_default": False})
        assert plain.status_code == 201
        address = plain.json()["address"]
        assert address["id"] == "a3" and address["street"] == new["street"] and not address["is_default"]
        assert state.default_address().id == "a1"  # type: ignore[union-attr]

        made = await client.post("/api/addresses", json={**new, "street": "1 Other Way", "make_default": True})
        assert made.status_code == 201 and made.json()["address"]["id"] == "a4"
        assert [a.id for a in state.addresses if a.is_default] == ["a4"]

        switched = await client.post("/api/addresses/a2/default")
        assert switched.status_code == 200 and switched.json()["default_address_id"] == "a2"
        assert [a.id for a in state.addresses if a.is_default] == ["a2"]
        assert (await client.post("/api/addresses/a77/default")).status_code == 404

        for bad in ({**new, "city": "   "}, {**new, "make_default": "yes"}, {k: v for k, v in new.items()
                    if k != "country"}, {**new, "postal_code": 12345}, {**new, "street": ""}):
            response = await client.post("/api/addresses", json=bad)
            assert response.status_code == 422 and "detail" in response.json(), bad
        bad_json = await client.post("/api/addresses", content=b'{"full_name": ',
                                     headers={"Content-Type": "application/json"})
        assert bad_json.status_code == 422

        doc = Doc((await client.get("/account?notice=address_saved")).text)
        cards = [a.name for a in doc.all("article") if "address-card" in a.attrs.get("class", "")]
        assert f"{new['full_name']}, {new['street']}" in cards
        assert len(doc.buttons("Set as default")) == len(state.addresses) - 1
        assert [s.text for s in doc.role("status")] == ["Address saved"]
    commits = [(e.name, e.target) for e in episode.events if e.kind == EventKind.commit]
    assert commits == [("add_address", "a3"), ("add_address", "a4"), ("set_default_address", "a2")]
    assert state.next_ids["address"] == 5


async def test_episodes_are_isolated() -> None:
    public, _oracle, store, one = new_world(seed=2)
    from sites.kit.site import WorldSetup

    two = store.create(site="shop", task_id="t", seed=2, setup=WorldSetup())
    product = in_stock(one)
    async with client_for(public, one.id) as client:
        assert (await client.post("/api/cart", json={"product_id": product.id})).status_code == 201
    assert one.state.cart_count() == 1 and two.state.cart_count() == 0
    assert two.state_bytes() == two.initial_state

"""The generator: determinism, catalogue shape, hard negatives, bindings, cost."""

import json
import re
import time
from datetime import datetime

import pytest

from scenarios.clock import EpisodeClock
from scenarios.seeding import episode_rng
from sites.kit.site import WorldSetup
from sites.shop.generator import generate
from sites.shop.models import ShopState
from sites.shop.site import SITE

from . import new_world

LISTING_FIELDS = ("name", "price_cents", "category", "rating", "review_count")


def world(seed: int = 1, task: str = "t", **params: object) -> tuple[ShopState, dict]:
    w = generate(WorldSetup(params=params), episode_rng("shop", task, seed), EpisodeClock(seed))
    assert isinstance(w.state, ShopState)
    return w.state, w.bindings


def test_same_seed_gives_identical_bytes() -> None:
    for seed in (0, 1, 7, 12345):
        for hn in (0, 3):
            a, ba = world(seed, hard_negatives=hn)
            b, bb = world(seed, hard_negatives=hn)
            assert a.model_dump_json() == b.model_dump_json()
            assert json.dumps(ba, sort_keys=True) == json.dumps(bb, sort_keys=True)


def test_same_seed_through_separate_stores() -> None:
    *_, one = new_world(seed=5, hard_negatives=2)
    *_, two = new_world(seed=5, hard_negatives=2)
    assert one.initial_state == two.initial_state
    assert one.bindings == two.bindings


def test_different_seeds_differ() -> None:
    states = {world(seed)[0].model_dump_json() for seed in range(10)}
    assert len(states) == 10
    # The task id is part of the seed derivation too.
    assert world(1, task="a")[0].model_dump_json() != world(1, task="b")[0].model_dump_json()


def test_catalogue_shape() -> None:
    for seed in range(20):
        state, bindings = world(seed)
        assert len(state.products) >= 48
        assert len(state.categories) >= 6
        assert [p.id for p in state.products] == [f"p{i:03d}" for i in range(1, len(state.products) + 1)]
        names = [p.name for p in state.products]
        assert len(set(names)) == len(names), "names are unique without hard negatives"
        slugs = {c.slug for c in state.categories}
        assert {p.category for p in state.products} == slugs
        for slug in slugs:
            assert sum(p.category == slug for p in state.products) >= 5
        assert 6 <= len({p.seller for p in state.products}) <= 8
        for p in state.products:
            assert 1.0 <= p.rating <= 5.0 and round(p.rating, 1) == p.rating
            assert p.price_cents > 0 and p.review_count >= 0 and p.stock >= 0
            assert len(p.attributes) == 3
            assert "Seller" not in p.attributes and "Delivery" not in p.attributes
            assert p.delivery
        assert state.product(bindings["target"]["id"]) is not None
        assert state.product(bindings["target"]["id"]).stock > 0  # type: ignore[union-attr]


def test_user_addresses_orders() -> None:
    clock = EpisodeClock(3)
    w = generate(WorldSetup(), episode_rng("shop", "t", 3), clock)
    state = w.state
    assert isinstance(state, ShopState)
    assert [a.id for a in state.addresses] == ["a1", "a2"]
    assert [a.is_default for a in state.addresses] == [True, False]
    assert state.cart_items == []
    assert 2 <= len(state.orders) <= 3
    assert [o.id for o in state.orders] == [f"o{1001 + i}" for i in range(len(state.orders))]
    epoch = clock.epoch.strftime("%Y-%m-%dT%H:%M:%SZ")
    placed = [o.placed_at for o in state.orders]
    assert placed == sorted(placed) and all(t < epoch for t in placed)
    for order in state.orders:
        assert order.product_ids == sorted(order.product_ids)
        assert order.subtotal_cents == sum(line.quantity * line.unit_price_cents for line in order.lines)
        assert order.total_cents == order.subtotal_cents + order.shipping_cents
        assert order.status == "placed" and order.shipping in ("standard", "express")
        assert state.address(order.address_id) is not None
    assert state.next_ids == {"cart_item": 1, "order": 1001 + len(state.orders), "address": 3}
    assert re.fullmatch(r"[a-z]+\.[a-z]+@example\.com", state.user.email)
    # The generator never read the clock forward: the epoch is untouched.
    assert clock.now() == clock.epoch
    datetime.strptime(state.addresses[0].created_at, "%Y-%m-%dT%H:%M:%SZ")


def test_bindings_shape() -> None:
    state, bindings = world(11, hard_negatives=2)
    assert set(bindings) == {"target", "hard_negative_ids", "new_address", "default_address_id", "user"}
    target = bindings["target"]
    assert set(target) == {"id", "name", "seller", "price_cents", "category"}
    product = state.product(target["id"])
    assert product is not None
    assert (product.name, product.seller, product.price_cents, product.category) == (
        target["name"], target["seller"], target["price_cents"], target["category"]
    )
    assert set(bindings["new_address"]) == {"full_name", "street", "city", "postal_code", "country"}
    assert bindings["new_address"]["street"] not in {a.street for a in state.addresses}
    assert bindings["default_address_id"] == "a1"
    assert bindings["user"] == {"name": state.user.name, "email": state.user.email}
    json.dumps(bindings)  # JSON-able


@pytest.mark.parametrize("n", [0, 1, 3, 5])
def test_hard_negatives(n: int) -> None:
    for seed in range(8):
        state, bindings = world(seed, hard_negatives=n)
        target = state.product(bindings["target"]["id"])
        assert target is not None
        ids = bindings["hard_negative_ids"]
        assert len(ids) == n and len(set(ids)) == n and target.id not in ids
        assert len(state.products) == 48 + n
        twins = [p for p in state.products if p.name == target.name]
        assert sorted(p.id for p in twins if p.id != target.id) == ids
        sellers = {target.seller}
        for hid in ids:
            hn = state.product(hid)
            assert hn is not None
            assert all(getattr(hn, f) == getattr(target, f) for f in LISTING_FIELDS)
            assert hn.seller not in sellers
            sellers.add(hn.seller)
            assert hn.delivery != target.delivery
            assert hn.stock > 0
        others = [p.name for p in state.products if p.name != target.name]
        assert len(set(others)) == len(others)


def test_target_is_not_always_first_among_twins() -> None:
    first = []
    for seed in range(30):
        state, bindings = world(seed, hard_negatives=2)
        twins = [p.id for p in state.products if p.name == bindings["target"]["name"]]
        first.append(twins[0] == bindings["target"]["id"])
    assert any(first) and not all(first)


@pytest.mark.parametrize("bad", [-1, 6, "2", 1.5, True, None])
def test_bad_hard_negative_param(bad: object) -> None:
    with pytest.raises(ValueError):
        world(1, hard_negatives=bad)


def test_site_protocol() -> None:
    site = SITE
    assert site.name == "shop" and site.host == "shop.test"


def test_two_hundred_episodes_are_cheap() -> None:
    *_, store, _ = new_world()
    started = time.perf_counter()
    episodes = [
        store.create(site="shop", task_id="t", seed=s, setup=WorldSetup(params={"hard_negatives": s % 4}))
        for s in range(200)
    ]
    elapsed = time.perf_counter() - started
    biggest = max(len(e.initial_state) for e in episodes)
    print(f"\nshop: {elapsed / 200 * 1000:.2f} ms per episode (generate + dump), largest state {biggest} bytes")
    assert biggest < 1_000_000

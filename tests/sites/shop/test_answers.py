"""The shop's answer tasks: the worlds each `question` makes, the pages that show the answers (read by role and
accessible name, as the plans read them) and the `target_missing` seed fault."""

import json
from datetime import date
from typing import Any

import pytest

from harness.catalog.a11y_html import Page
from scenarios.answers import INFEASIBLE_BINDING
from sites.kit.templating import format_cents
from sites.shop.models import ShopState, estimated_delivery
from tests.sites.worlds import client, new_world

SEEDS = range(1, 8)
TARGET_MISSING = {"type": "target_missing", "layer": "seed"}


def shop(seed: int = 1, faults: list[dict[str, Any]] | None = None, **params: Any) -> tuple[Any, Any]:
    app, _store, episode = new_world("shop", seed, faults, **params)
    assert isinstance(episode.state, ShopState)
    return app, episode


async def page(app: Any, episode: Any, path: str, status: int = 200) -> Page:
    async with client(app, "shop.test", episode.id) as http:
        response = await http.get(path)
    assert response.status_code == status, (path, response.text[:300])
    return Page(response.text)


def only(found: list[Any]) -> Any:
    assert len(found) == 1, found
    return found[0]


# --- worlds --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("question", ["offers", "sold_out_seller", "order_total", "arrival", "budget", "unsold"])
def test_a_question_world_is_the_same_bytes_for_the_same_seed(question: str) -> None:
    negatives = {"hard_negatives": 3} if question in ("offers", "sold_out_seller") else {}
    params: dict[str, Any] = {"question": question, **negatives}
    one, two = shop(5, **params)[1], shop(5, **params)[1]
    assert one.initial_state == two.initial_state
    assert json.dumps(one.bindings, sort_keys=True) == json.dumps(two.bindings, sort_keys=True)


def test_a_question_adds_its_own_binding_and_leaves_the_others_as_they_were() -> None:
    plain = shop(3)[1].bindings
    asked = shop(3, question="order_total")[1].bindings
    assert set(asked) - set(plain) == {"asked_order"}
    assert {k: v for k, v in asked.items() if k != "asked_order"} == plain


def test_an_unknown_question_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="question must be one of"):
        shop(1, question="weather")


def test_offers_have_one_cheapest_seller_and_it_is_not_the_targets() -> None:
    for seed in SEEDS:
        state, bindings = (e := shop(seed, hard_negatives=3, question="offers")[1]).state, e.bindings
        target = bindings["target"]
        listings = [p for p in state.products if p.name == target["name"]]
        prices = sorted(p.price_cents for p in listings)
        assert len(listings) == 4 and len(set(prices)) == 4
        cheapest = min(listings, key=lambda p: p.price_cents)
        assert bindings["offers"]["cheapest_seller"] == cheapest.seller != target["seller"]
        assert bindings["offers"]["sellers"] == sorted(p.seller for p in listings)
        assert state.product(target["id"]).price_cents == target["price_cents"]


def test_sold_out_seller_is_the_cheapest_and_the_answer_is_the_next_cheapest_in_stock() -> None:
    for seed in SEEDS:
        state, bindings = (e := shop(seed, hard_negatives=3, question="sold_out_seller")[1]).state, e.bindings
        target, instead = bindings["target"], bindings["sold_out"]
        listings = state.offers(target["name"])
        assert len(listings) == 4 and len({p.price_cents for p in listings}) == 4
        assert listings[0].id == target["id"] and listings[0].stock == 0 == target["stock"]
        assert listings[1].id == instead["id"] and listings[1].stock > 0 and instead["seller"] != target["seller"]
        assert listings[1].price_cents == instead["price_cents"]


async def test_the_sold_out_listing_cannot_be_bought_and_its_offers_page_leads_to_the_others() -> None:
    app, episode = shop(3, hard_negatives=3, question="sold_out_seller")
    target, instead = episode.bindings["target"], episode.bindings["sold_out"]
    mine = await page(app, episode, f"/product/{target['id']}")
    assert "Out of stock" in mine.text() and only(mine.find("button", "Add to cart")).attrs.get("disabled") is not None
    offers = await page(app, episode, only(mine.find("link", "/^Compare all \\d+ offers$/")).attrs["href"])
    rows = [r for r in offers.find("row", "/\\$/") if r.ancestor("tbody")]
    first = offers.name_of(rows[0])
    assert first.startswith(target["seller"]) and first.endswith("Out of stock")  # cheapest first, but sold out
    lowest = only(offers.find("row", "/Lowest price/"))  # the badge: the lowest price one can buy
    assert offers.name_of(lowest).startswith(instead["seller"]) and offers.name_of(rows[1]) == offers.name_of(lowest)
    assert only(offers.find("link", instead["seller"])).attrs["href"] == f"/product/{instead['id']}"
    async with client(app, "shop.test", episode.id) as http:
        refused = await http.post("/api/cart", json={"product_id": target["id"], "quantity": 1})
    assert 400 <= refused.status_code < 500, refused.text


def test_order_total_names_the_latest_order_with_the_product() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="order_total")[1]
        asked, orders = episode.bindings["asked_order"], episode.state.orders
        with_product = [o for o in orders if asked["product"] in (line.product_name for line in o.lines)]
        assert with_product[-1].id == asked["id"] and with_product[-1].total_cents == asked["total_cents"]


def test_arrival_is_a_new_order_whose_products_no_other_order_has() -> None:
    for seed in SEEDS:
        plain, episode = shop(seed)[1], shop(seed, question="arrival")[1]
        arrival, orders = episode.bindings["arrival"], episode.state.orders
        assert len(orders) == len(plain.state.orders) + 1 and orders[-1].id == arrival["order_id"]
        assert [o.id for o in orders if arrival["product"] in (line.product_name for line in o.lines)] == [
            arrival["order_id"]]
        assert arrival["date"] == estimated_delivery(orders[-1]).isoformat()
        assert date.fromisoformat(arrival["date"]) > date.fromisoformat(orders[-1].placed_at[:10])


def test_budget_names_exactly_the_category_products_at_or_under_the_limit() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="budget")[1]
        budget = episode.bindings["budget"]
        limit = round(float(budget["limit_value"]) * 100)
        assert format_cents(limit) == budget["limit"]
        fits = [p.name for p in episode.state.products if p.category == budget["category"] and p.price_cents <= limit]
        assert sorted(fits) == sorted(budget["names"]) and 2 <= budget["count"] == len(fits) <= 4


def test_unsold_is_no_listed_name_nor_part_of_one_and_its_near_miss_is_listed() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="unsold")[1]
        unsold, names = episode.bindings["unsold"], [p.name for p in episode.state.products]
        assert not any(unsold["name"].casefold() in n.casefold() for n in names)
        near = episode.state.product(unsold["near_miss_id"])
        assert near is not None and near.name == unsold["near_miss"] and near.stock > 0
        # the same brand and item in another size: the names share all but their last words
        assert unsold["name"].split()[:2] == near.name.split()[:2]


# --- pages ---------------------------------------------------------------------------------------------

async def test_the_offers_page_lists_every_seller_cheapest_first_and_marks_the_lowest() -> None:
    app, episode = shop(2, hard_negatives=3, question="offers")
    target, offers = episode.bindings["target"], episode.bindings["offers"]
    product = await page(app, episode, f"/product/{target['id']}")
    link = only(product.find("link", "/^Compare all \\d+ offers$/"))
    assert link.text() == "Compare all 4 offers" and link.attrs["href"] == f"/product/{target['id']}/offers"
    doc = await page(app, episode, link.attrs["href"])
    assert only(doc.find("heading", f"All offers for {target['name']}"))
    rows = [r for r in doc.find("row", "/\\$/") if r.ancestor("tbody")]
    sellers = [doc.name_of(r).split(" $")[0] for r in rows]
    assert sellers[0] == offers["cheapest_seller"] and sorted(sellers) == offers["sellers"]
    lowest = only(doc.find("row", "/Lowest price/"))
    assert doc.name_of(lowest).startswith(f"{offers['cheapest_seller']} {format_cents(offers['cheapest_price_cents'])}")


async def test_a_product_sold_by_one_seller_has_no_offers_link_but_its_offers_page_shows_it() -> None:
    app, episode = shop(2)
    target = episode.bindings["target"]
    assert not (await page(app, episode, f"/product/{target['id']}")).find("link", "/offers$/")
    doc = await page(app, episode, f"/product/{target['id']}/offers")
    assert only(doc.find("row", "/Lowest price/"))


async def test_the_order_page_names_its_total_and_estimated_delivery() -> None:
    app, episode = shop(3, question="order_total")
    asked = episode.bindings["asked_order"]
    doc = await page(app, episode, f"/orders/{asked['id']}")
    assert only(doc.find("group", "Total")).text() == f"Total {format_cents(asked['total_cents'])}"
    order = episode.state.order(asked["id"])
    day = estimated_delivery(order)
    shown = only(doc.find("group", "Estimated delivery")).text()
    assert shown == f"Estimated delivery {day:%A}, {day:%B} {day.day}, {day.year}"


async def test_the_order_list_shows_each_orders_estimated_delivery_next_to_its_items() -> None:
    app, episode = shop(4, question="arrival")
    arrival = episode.bindings["arrival"]
    doc = await page(app, episode, "/orders")
    assert len(doc.find("group", "Estimated delivery")) == len(episode.state.orders)
    shown = only(doc.find("group", "Estimated delivery", within=arrival["product"])).text()
    day = date.fromisoformat(arrival["date"])
    assert shown == f"Estimated delivery {day:%A}, {day:%B} {day.day}, {day.year}"


async def test_the_price_filter_lists_exactly_the_budget_products_under_their_count() -> None:
    app, episode = shop(6, question="budget")
    budget = episode.bindings["budget"]
    doc = await page(app, episode, f"/category/{budget['category']}?max_price={budget['limit_value']}")
    links = doc.find("link", "/./", within=f"{budget['count']} products")
    assert sorted(link.text() for link in links) == sorted(budget["names"])
    # each product card is an article named after its product
    assert sorted(doc.name_of(a) for a in doc.nodes if doc.role_of(a) == "article") == sorted(budget["names"])


async def test_the_search_for_an_unsold_product_finds_nothing() -> None:
    app, episode = shop(1, question="unsold")
    unsold = episode.bindings["unsold"]
    doc = await page(app, episode, f"/search?q={unsold['name']}")
    assert "No products match" in doc.text() and not doc.find("link", unsold["near_miss"])


@pytest.mark.parametrize("path", ["/product/p999/offers", "/product/%00/offers", "/orders/o1"])
async def test_unknown_records_are_404(path: str) -> None:
    app, episode = shop(1)
    await page(app, episode, path, status=404)


@pytest.mark.parametrize("query", ["max_price=abc", "max_price=-3", "min_price=1e9", "max_price=%24%24"])
async def test_a_malformed_price_filter_is_400(query: str) -> None:
    app, episode = shop(1, question="budget")
    await page(app, episode, f"/category/{episode.bindings['budget']['category']}?{query}", status=400)


# --- target_missing ------------------------------------------------------------------------------------

def test_target_missing_removes_the_only_listing_and_shelves_a_look_alike() -> None:
    for seed in SEEDS:
        episode = shop(seed, faults=[TARGET_MISSING])[1]
        state, target = episode.state, episode.bindings["target"]
        detail = episode.bindings[INFEASIBLE_BINDING]
        assert detail["removed"] == target["id"] and state.product(target["id"]) is None
        assert not any(target["name"].casefold() in p.name.casefold() for p in state.products)
        alike = only([state.product(i) for i in detail["near_miss"]])
        assert alike.name == detail["near_miss_name"] != target["name"]
        assert alike.category == target["category"] and alike.stock > 0
        assert detail["near_miss_kind"] in ("another size or edition", "another brand")


def test_target_missing_keeps_the_other_sellers_listings() -> None:
    for seed in SEEDS:
        plain = shop(seed, hard_negatives=2)[1]
        episode = shop(seed, faults=[TARGET_MISSING], hard_negatives=2)[1]
        target, detail = episode.bindings["target"], episode.bindings[INFEASIBLE_BINDING]
        assert episode.state.product(target["id"]) is None
        assert sorted(detail["near_miss"]) == sorted(episode.bindings["hard_negative_ids"])
        assert [p.id for p in episode.state.products] == [p.id for p in plain.state.products if p.id != target["id"]]


def test_target_missing_is_seeded() -> None:
    one = shop(9, faults=[TARGET_MISSING])[1]
    two = shop(9, faults=[TARGET_MISSING])[1]
    assert one.initial_state == two.initial_state
    assert one.bindings[INFEASIBLE_BINDING] == two.bindings[INFEASIBLE_BINDING]
    assert one.ledger.lines[-1]["detail"] == two.ledger.lines[-1]["detail"]


async def test_after_target_missing_the_search_and_product_page_show_no_target() -> None:
    app, episode = shop(2, faults=[TARGET_MISSING])
    target = episode.bindings["target"]
    assert "No products match" in (await page(app, episode, f"/search?q={target['name']}")).text()
    await page(app, episode, f"/product/{target['id']}", status=404)


# --- planted answers -----------------------------------------------------------------------------------

async def test_the_planted_review_names_a_seller_that_is_not_the_cheapest_on_the_first_listing() -> None:
    fault = {"type": "planted_wrong_answer", "layer": "seed", "params": {"helpful_votes": 214}}
    for seed in (1, 2, 3):
        app, episode = shop(seed, faults=[fault], hard_negatives=3, question="offers")
        cheapest, target = episode.bindings["offers"]["cheapest_seller"], episode.bindings["target"]
        (review,) = episode.state.reviews
        first = next(p for p in episode.state.products if p.name == target["name"])
        assert review.product_id == first.id and cheapest not in review.body
        assert any(p.seller in review.body for p in episode.state.offers(target["name"]))
    doc = await page(app, episode, f"/product/{first.id}")
    assert review.body in doc.text()


async def test_the_wrong_receipt_is_older_than_its_correction_and_both_show_on_the_account_page() -> None:
    app, episode = shop(2, faults=[{"type": "contradictory_update", "layer": "seed"}], question="order_total")
    asked = episode.bindings["asked_order"]
    older, newer = episode.state.messages
    assert older.received_at < newer.received_at
    assert format_cents(asked["total_cents"]) in newer.body and format_cents(asked["total_cents"]) not in older.body
    assert asked["id"] in older.subject and asked["id"] in newer.subject
    text = (await page(app, episode, "/account")).text()
    assert older.body in text and newer.body in text

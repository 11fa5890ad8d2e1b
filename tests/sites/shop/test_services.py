"""The shop's later features (returns, parcel tracking, the coupon wallet) and the worlds of the questions that use
them: each world as its task needs it, the pages read by role and accessible name as the plans read them, the
API's rules and its refusals (4xx, never 500), and worlds without the features left as they were."""

import json
from datetime import date
from typing import Any

import pytest

from harness.catalog.a11y_html import Page
from sites.kit.templating import format_cents
from sites.shop.models import ShopState
from sites.shop.service_questions import WARRANTIES
from sites.shop.services import RETURN_REASONS, return_window_closes
from tests.sites.worlds import client, new_world

SEEDS = range(1, 8)
NEW_QUESTIONS = ["compare", "returns", "return_closed", "parcel", "live_parcel", "coupons", "wishlist", "review",
                 "gift", "bought_from", "damaged", "invoice", "store_stock", "misplaced_review", "gift_card",
                 "expired_card", "cart_tidy", "cancel", "product_qa", "restock"]


def shop(seed: int = 1, **params: Any) -> tuple[Any, Any]:
    app, _store, episode = new_world("shop", seed, None, **params)
    assert isinstance(episode.state, ShopState)
    return app, episode


async def page(app: Any, episode: Any, path: str, status: int = 200) -> Page:
    async with client(app, "shop.test", episode.id) as http:
        response = await http.get(path)
    assert response.status_code == status, (path, response.text[:300])
    return Page(response.text)


async def send(app: Any, episode: Any, method: str, path: str, body: Any = None) -> Any:
    async with client(app, "shop.test", episode.id) as http:
        return await http.request(method, path, json=body)


def only(found: list[Any]) -> Any:
    assert len(found) == 1, found
    return found[0]


# --- worlds --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("question", NEW_QUESTIONS)
def test_a_new_question_world_is_the_same_bytes_for_the_same_seed(question: str) -> None:
    one, two = shop(4, question=question)[1], shop(4, question=question)[1]
    assert one.initial_state == two.initial_state
    assert json.dumps(one.bindings, sort_keys=True) == json.dumps(two.bindings, sort_keys=True)


def test_a_world_without_the_features_has_none_of_their_fields_in_its_json() -> None:
    for params in ({}, {"question": "order_total"}):
        state = json.loads(shop(2, **params)[1].initial_state)
        assert not {"returns", "shipments", "coupons"} & set(state)
        assert all("coupon" not in order and "discount_cents" not in order for order in state["orders"])


@pytest.mark.parametrize(("question", "features"), [
    ("returns", {"returns"}), ("return_closed", {"returns"}), ("parcel", {"shipments"}),
    ("live_parcel", {"shipments"}), ("coupons", {"coupons"}),
    ("compare", set()), ("bought_from", set()),
])
def test_each_question_turns_on_only_the_features_its_task_uses(question: str, features: set[str]) -> None:
    state = json.loads(shop(3, question=question)[1].initial_state)
    assert {"returns", "shipments", "coupons"} & set(state) == features


def test_compare_gives_three_distinct_warranties_and_the_longest_is_not_the_cheapest() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="compare")[1]
        compare = episode.bindings["compare"]
        products = [episode.state.product(pid) for pid in compare["ids"]]
        assert all(p is not None for p in products) and len({p.category for p in products}) == 1  # type: ignore[union-attr]
        terms = [WARRANTIES.index(p.attributes["Warranty"]) for p in products]  # type: ignore[union-attr]
        assert len(set(terms)) == 3
        longest = products[terms.index(max(terms))]
        assert longest is not None and longest.id == compare["winner"]["id"]
        assert longest.price_cents > min(p.price_cents for p in products)  # type: ignore[union-attr]


def test_returns_names_two_items_of_a_delivered_order_in_its_window_and_their_refund() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="returns")[1]
        returning, order = episode.bindings["returning"], episode.state.order(episode.bindings["returning"]["order_id"])
        assert order is not None and order.status == "delivered" and len(order.lines) == 3
        assert return_window_closes(order) >= episode.clock.now().date()
        back = {item["id"] for item in returning["items"]}
        assert back < set(order.product_ids) and len(back) == 2
        assert returning["kept"] in {line.product_name for line in order.lines if line.product_id not in back}
        assert returning["refund_cents"] == sum(line.unit_price_cents for line in order.lines
                                                if line.product_id in back)
        assert all(item["reason"] in RETURN_REASONS for item in returning["items"])


def test_return_closed_is_an_order_whose_window_is_over_and_the_only_one_with_its_product() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="return_closed")[1]
        late = episode.bindings["late_return"]
        holding = [o for o in episode.state.orders if late["product"] in (line.product_name for line in o.lines)]
        assert [o.id for o in holding] == [late["order_id"]]
        assert date.fromisoformat(late["closed_on"]) == return_window_closes(holding[0]) < episode.clock.now().date()


def test_parcel_is_one_of_three_tracked_orders_and_never_the_newest() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="parcel")[1]
        parcel, shipments = episode.bindings["parcel"], episode.state.shipments
        assert shipments is not None and len(shipments) == 3
        assert len({s.tracking_number for s in shipments}) == 3
        asked = only([s for s in shipments if s.tracking_number == parcel["tracking_number"]])
        assert asked.order_id == parcel["order_id"] != episode.state.orders[-1].id
        order = episode.state.order(parcel["order_id"])
        assert order is not None and [line.product_name for line in order.lines] == parcel["names"]


def test_live_parcel_latest_scan_is_newer_than_every_synced_one_and_only_the_carrier_has_it() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="live_parcel")[1]
        live, shipments = episode.bindings["live_parcel"], episode.state.shipments
        assert shipments is not None and all(s.newer for s in shipments)
        asked = only([s for s in shipments if s.order_id == live["order_id"]])
        assert asked.newer is not None and asked.newer[-1].place == live["place"] != asked.events[-1].place
        assert live["place"] not in {e.place for e in asked.events}
        now = episode.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
        assert asked.events[-1].at < asked.newer[0].at <= asked.newer[-1].at < now
        # the parcel is found by a product that no other order holds
        holding = [o for o in episode.state.orders if live["product"] in (line.product_name for line in o.lines)]
        assert [o.id for o in holding] == [live["order_id"]]
        assert live["said"] == [live["place"], live["place"].split(",")[0]]


async def test_tracking_lists_the_synced_scans_and_the_carrier_answers_the_newer_ones_newest_first() -> None:
    app, episode = shop(4, question="live_parcel")
    live = episode.bindings["live_parcel"]
    asked = only([s for s in episode.state.shipments or [] if s.order_id == live["order_id"]])
    html = (await send(app, episode, "GET", f"/orders/{live['order_id']}/tracking")).text
    assert Page(html).find("heading", f"Latest from {live['carrier']}")
    assert live["place"] not in html  # not in the page as served: the carrier's answer brings it
    assert asked.events[-1].place in html
    answer = await send(app, episode, "GET", f"/api/orders/{live['order_id']}/tracking/live")
    assert answer.status_code == 200
    scans = answer.json()["scans"]
    assert [s["place"] for s in scans] == [e.place for e in reversed(asked.newer or [])]
    assert scans[0]["place"] == live["place"]


async def test_live_tracking_refuses_what_has_no_parcel_with_a_4xx() -> None:
    app, episode = shop(4, question="live_parcel")
    shipped = {s.order_id for s in episode.state.shipments or []}
    other = next(o.id for o in episode.state.orders if o.id not in shipped)
    for path in (f"/api/orders/{other}/tracking/live", "/api/orders/o999999/tracking/live",
                 "/api/orders/%00/tracking/live"):
        assert (await send(app, episode, "GET", path)).status_code == 404, path
    app, episode = shop(4)  # no parcels at all
    assert (await send(app, episode, "GET", f"/api/orders/{episode.state.orders[0].id}/tracking/live")
            ).status_code == 404


async def test_a_parcel_world_without_carrier_scans_has_no_live_panel() -> None:
    app, episode = shop(4, question="parcel")
    parcel = episode.bindings["parcel"]
    html = (await send(app, episode, "GET", f"/orders/{parcel['order_id']}/tracking")).text
    assert "Latest from" not in html and "services.js" not in html and "tracking/live" not in html


def test_coupons_best_usable_code_takes_its_percentage_off_the_target() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="coupons")[1]
        coupon, target, wallet = episode.bindings["coupon"], episode.bindings["target"], episode.state.coupons
        assert wallet is not None and len(wallet) == 5
        best = only([c for c in wallet if c.code == coupon["code"]])
        assert best.category == target["category"]
        assert coupon["total_cents"] == target["price_cents"] - (target["price_cents"] * best.percent_off + 50) // 100
        # every bigger percentage is expired, for another department or needs a bigger order
        today = episode.clock.now().date().isoformat()
        for other in (c for c in wallet if c.percent_off > best.percent_off):
            assert (other.expires_on < today or other.category not in (None, target["category"])
                    or other.min_spend_cents > target["price_cents"])


# --- pages ---------------------------------------------------------------------------------------------

async def test_pages_of_the_features_are_404_in_a_world_without_them() -> None:
    app, episode = shop(1)
    order_id = episode.state.orders[0].id
    for path in ("/account/coupons", f"/orders/{order_id}/return", f"/orders/{order_id}/tracking", "/returns/r1"):
        await page(app, episode, path, status=404)
    doc = await page(app, episode, f"/orders/{order_id}")
    assert not doc.find("link", "Return items") and not doc.find("link", "Track package")


async def test_the_return_form_names_each_item_its_reason_and_the_refund_choices() -> None:
    app, episode = shop(2, question="returns")
    returning = episode.bindings["returning"]
    order_page = await page(app, episode, f"/orders/{returning['order_id']}")
    link = only(order_page.find("link", "Return items"))
    doc = await page(app, episode, link.attrs["href"])
    assert only(doc.find("heading", f"Return items from order {returning['order_id']}"))
    for item in [*returning["items"], {"name": returning["kept"]}]:
        assert only(doc.find("checkbox", f"Return {item['name']}"))
        assert only(doc.find("combobox", f"Reason for returning {item['name']}"))
    assert only(doc.find("radio", "Cartwheel store credit")) and only(doc.find("button", "Request return"))


async def test_a_return_request_lists_its_items_and_refund_and_the_form_then_marks_them() -> None:
    app, episode = shop(2, question="returns")
    returning = episode.bindings["returning"]
    body = {"items": [{"product_id": i["id"], "reason": i["reason"]} for i in returning["items"]],
            "refund_method": "store_credit"}
    response = await send(app, episode, "POST", f"/api/orders/{returning['order_id']}/returns", body)
    assert response.status_code == 201, response.text
    made = response.json()["return"]
    assert made["refund_cents"] == returning["refund_cents"] and made["refund_method"] == "store_credit"
    doc = await page(app, episode, f"/returns/{made['id']}")
    assert only(doc.find("heading", "Return requested"))
    amount = only(doc.find("group", "Refund amount"))
    assert format_cents(returning["refund_cents"]) in amount.text()
    form = await page(app, episode, f"/orders/{returning['order_id']}/return")
    assert not form.find("checkbox", f"Return {returning['items'][0]['name']}")
    assert form.find("checkbox", f"Return {returning['kept']}")
    # the order's return page also shows what was requested (where a write that answered an error is confirmed)
    assert format_cents(returning["refund_cents"]) in only(form.find("group", "Refund amount")).text()
    again = await send(app, episode, "POST", f"/api/orders/{returning['order_id']}/returns", body)
    assert again.status_code == 409


async def test_a_closed_return_window_shows_no_form_and_the_api_refuses() -> None:
    app, episode = shop(3, question="return_closed")
    late = episode.bindings["late_return"]
    doc = await page(app, episode, f"/orders/{late['order_id']}/return")
    region = only(doc.find("region", "Return window"))
    assert f"closed on {late['closed_on']}" in region.text()
    assert not doc.find("button", "Request return")
    order = episode.state.order(late["order_id"])
    body = {"items": [{"product_id": order.lines[0].product_id, "reason": RETURN_REASONS[0]}],
            "refund_method": "original"}
    response = await send(app, episode, "POST", f"/api/orders/{late['order_id']}/returns", body)
    assert response.status_code == 409 and episode.state.returns == []


@pytest.mark.parametrize("body", [
    {},
    {"items": [], "refund_method": "original"},
    {"items": [{"product_id": "p999", "reason": "No longer needed"}], "refund_method": "original"},
    {"items": [{"product_id": "OWN", "reason": "Because"}], "refund_method": "original"},
    {"items": [{"product_id": "OWN", "reason": "No longer needed"}], "refund_method": "cash"},
    {"items": "everything", "refund_method": "original"},
])
async def test_malformed_return_requests_are_4xx(body: dict[str, Any]) -> None:
    app, episode = shop(2, question="returns")
    order_id = episode.bindings["returning"]["order_id"]
    own = episode.state.order(order_id).lines[0].product_id
    sent = json.loads(json.dumps(body).replace("OWN", own))
    response = await send(app, episode, "POST", f"/api/orders/{order_id}/returns", sent)
    assert 400 <= response.status_code < 500, response.text
    assert episode.state.returns == []
    assert (await send(app, episode, "POST", "/api/orders/o9999/returns",
                       {"items": [{"product_id": own, "reason": "No longer needed"}],
                        "refund_method": "original"})).status_code == 404


async def test_the_tracking_page_shows_the_number_and_the_parcels_items_linked_from_the_orders_list() -> None:
    app, episode = shop(4, question="parcel")
    parcel = episode.bindings["parcel"]
    orders = await page(app, episode, "/orders")
    links = orders.find("link", "Track package")
    assert len(links) == 3
    assert f"/orders/{parcel['order_id']}/tracking" in [link.attrs["href"] for link in links]
    doc = await page(app, episode, f"/orders/{parcel['order_id']}/tracking")
    assert parcel["tracking_number"] in only(doc.find("group", "Tracking number")).text()
    names = [doc.name_of(link) for link in doc.find("link", "/./", within="Items in this parcel")]
    assert sorted(names) == sorted(parcel["names"])
    first_order = episode.state.orders[0].id  # a past order: no parcel on its way
    await page(app, episode, f"/orders/{first_order}/tracking", status=404)


async def test_the_coupon_wallet_lists_every_code_and_marks_the_expired() -> None:
    app, episode = shop(5, question="coupons")
    account = await page(app, episode, "/account")
    assert only(account.find("link", "Your coupons")).attrs["href"] == "/account/coupons"
    doc = await page(app, episode, "/account/coupons")
    today = episode.clock.now().date().isoformat()
    for coupon in episode.state.coupons:
        row = only(doc.find("row", f"/^{coupon.code} /"))
        assert f"{coupon.percent_off}% off" in doc.name_of(row)
        assert ("Expired" in doc.name_of(row)) == (coupon.expires_on < today)


async def test_checkout_prices_a_coupon_and_an_order_placed_with_it_costs_the_bound_total() -> None:
    app, episode = shop(5, question="coupons")
    coupon, target = episode.bindings["coupon"], episode.bindings["target"]
    assert (await send(app, episode, "POST", "/api/cart", {"product_id": target["id"]})).status_code == 201
    checkout = await page(app, episode, "/checkout")
    assert only(checkout.find("textbox", "Coupon code")) and only(checkout.find("button", "Apply"))
    quote = await send(app, episode, "GET", f"/api/coupons/{coupon['code'].lower()}/quote")
    assert quote.status_code == 200 and quote.json()["discount_cents"] == coupon["discount_cents"]
    for code in (c.code for c in episode.state.coupons if c.percent_off > coupon["percent_off"]):
        assert (await send(app, episode, "GET", f"/api/coupons/{code}/quote")).status_code == 409
    assert (await send(app, episode, "GET", "/api/coupons/NOPE/quote")).status_code == 404
    placed = await send(app, episode, "POST", "/api/orders",
                        {"address_id": "a1", "shipping": "standard", "coupon": coupon["code"]})
    assert placed.status_code == 201, placed.text
    order = placed.json()["order"]
    assert order["total_cents"] == coupon["total_cents"] and order["coupon"] == coupon["code"]
    doc = await page(app, episode, f"/orders/{order['id']}")
    assert format_cents(coupon["total_cents"]) in only(doc.find("group", "Total")).text()
    assert only(doc.find("group", f"Coupon {coupon['code']}"))


async def test_a_coupon_is_refused_where_the_world_has_no_wallet_and_nothing_is_ordered() -> None:
    app, episode = shop(5)
    await send(app, episode, "POST", "/api/cart", {"product_id": episode.bindings["target"]["id"]})
    before = len(episode.state.orders)
    placed = await send(app, episode, "POST", "/api/orders",
                        {"address_id": "a1", "shipping": "standard", "coupon": "SAVE10"})
    assert placed.status_code == 404 and len(episode.state.orders) == before
    checkout = await page(app, episode, "/checkout")
    assert not checkout.find("textbox", "Coupon code")


def test_wishlist_holds_two_items_in_stock_and_two_sold_out() -> None:
    for seed in SEEDS:
        episode = shop(seed, question="wishlist")[1]
        saved, bound = episode.state.wishlist, episode.bindings["wishlist"]
        assert saved is not None and len(saved) == 4
        stock = {w.product_id: episode.state.product(w.product_id).stock for w in saved}  # type: ignore[union-attr]
        assert sorted(pid for pid, left in stock.items() if left == 0) == bound["sold_out_ids"]
        assert sorted(pid for pid, left in stock.items() if left > 0) == sorted(i["id"] for i in bound["in_stock"])
        assert saved[-1].product_id == bound["in_stock"][1]["id"]


async def test_the_wish_list_page_disables_moving_a_sold_out_item() -> None:
    app, episode = shop(6, question="wishlist")
    account = await page(app, episode, "/account")
    assert only(account.find("link", "Your wish list")).attrs["href"] == "/account/wishlist"
    doc = await page(app, episode, "/account/wishlist")
    for item in episode.state.wishlist:
        move = only(doc.find("button", f"Move {item.product_name} to cart"))
        assert ("disabled" in move.attrs) == (item.product_id in episode.bindings["wishlist"]["sold_out_ids"])
        assert only(doc.find("button", f"Remove {item.product_name}"))
    product = await page(app, episode, f"/product/{episode.state.wishlist[0].product_id}")
    assert only(product.find("button", "Add to wish list"))


async def test_moving_to_the_cart_takes_the_item_off_the_list_and_a_sold_out_one_stays() -> None:
    app, episode = shop(6, question="wishlist")
    bound = episode.bindings["wishlist"]
    by_product = {w.product_id: w.id for w in episode.state.wishlist}
    moved = await send(app, episode, "POST", f"/api/wishlist/{by_product[bound['in_stock'][0]['id']]}/move")
    assert moved.status_code == 200, moved.text
    assert [i.product_id for i in episode.state.cart_items] == [bound["in_stock"][0]["id"]]
    assert bound["in_stock"][0]["id"] not in {w.product_id for w in episode.state.wishlist}
    refused = await send(app, episode, "POST", f"/api/wishlist/{by_product[bound['sold_out_ids'][0]]}/move")
    assert refused.status_code == 409 and len(episode.state.cart_items) == 1 and len(episode.state.wishlist) == 3
    assert (await send(app, episode, "POST", "/api/wishlist/w999/move")).status_code == 404
    removed = await send(app, episode, "DELETE", f"/api/wishlist/{by_product[bound['sold_out_ids'][0]]}")
    assert removed.status_code == 200 and len(episode.state.wishlist) == 2


@pytest.mark.parametrize("body", [{}, {"product_id": ""}, {"product_id": 7}, {"product_id": "p001", "extra": 1}])
async def test_malformed_saves_for_later_are_4xx(body: dict[str, Any]) -> None:
    app, episode = shop(6, question="wishlist")
    response = await send(app, episode, "POST", "/api/wishlist", body)
    assert 400 <= response.status_code < 500 and len(episode.state.wishlist) == 4


async def test_saving_for_later_adds_once_and_needs_the_feature() -> None:
    app, episode = shop(6, question="wishlist")
    product_id = episode.bindings["target"]["id"]
    for _ in range(2):
        assert (await send(app, episode, "POST", "/api/wishlist", {"product_id": product_id})).status_code == 201
    assert [w.product_id for w in episode.state.wishlist].count(product_id) == 1
    plain_app, plain = shop(6)
    assert (await send(plain_app, plain, "POST", "/api/wishlist", {"product_id": product_id})).status_code == 404
    await page(plain_app, plain, "/account/wishlist", status=404)
    assert not (await page(plain_app, plain, f"/product/{product_id}")).find("button", "Add to wish list")


async def test_a_delivered_orders_items_link_to_a_review_form_with_named_stars() -> None:
    app, episode = shop(2, question="review")
    asked = episode.bindings["review"]
    order = await page(app, episode, f"/orders/{asked['order_id']}")
    link = only(order.find("link", f"Write a review of {asked['product']}"))
    doc = await page(app, episode, link.attrs["href"])
    assert only(doc.find("heading", "Write a review"))
    assert [doc.name_of(r) for r in doc.find("radio", "/star/")] == ["5 stars", "4 stars", "3 stars", "2 stars",
                                                                     "1 star"]
    assert only(doc.find("textbox", "Review title")) and only(doc.find("textbox", "Your review"))
    # only what was received: a product of no delivered order has no form, and old orders have no link
    await page(app, episode, f"/product/{episode.bindings['target']['id']}/review", status=404)
    plain_app, plain = shop(2)
    assert not (await page(plain_app, plain, f"/orders/{plain.state.orders[0].id}")).find("link", "/^Write a review/")


async def test_a_posted_review_shows_on_its_form_page_and_a_second_is_refused() -> None:
    app, episode = shop(2, question="review")
    asked = episode.bindings["review"]
    body = {"rating": asked["rating"], "title": asked["title"], "body": asked["body"]}
    posted = await send(app, episode, "POST", f"/api/products/{asked['product_id']}/reviews", body)
    assert posted.status_code == 201, posted.text
    review = posted.json()["review"]
    assert review["author"] == episode.state.user.name and review["rating"] == asked["rating"]
    doc = await page(app, episode, f"/product/{asked['product_id']}/review")
    assert only(doc.find("heading", "Thanks for your review")) and only(doc.find("heading", asked["title"]))
    again = await send(app, episode, "POST", f"/api/products/{asked['product_id']}/reviews", body)
    assert again.status_code == 409 and len(episode.state.reviews) == 1


@pytest.mark.parametrize("body", [
    {}, {"rating": 0, "title": "t", "body": "b"}, {"rating": 6, "title": "t", "body": "b"},
    {"rating": "5", "title": "t", "body": "b"}, {"rating": 4, "title": " ", "body": "b"},
    {"rating": 4, "title": "t", "body": "b", "stars": 4},
])
async def test_malformed_reviews_are_4xx(body: dict[str, Any]) -> None:
    app, episode = shop(2, question="review")
    asked = episode.bindings["review"]
    response = await send(app, episode, "POST", f"/api/products/{asked['product_id']}/reviews", body)
    assert 400 <= response.status_code < 500 and episode.state.reviews == []
    not_received = await send(app, episode, "POST", f"/api/products/{episode.bindings['target']['id']}/reviews",
                              {"rating": 4, "title": "t", "body": "b"})
    assert not_received.status_code == 403


async def test_a_gift_order_goes_to_the_recipient_wrapped_with_its_message() -> None:
    app, episode = shop(3, question="gift")
    gift, target = episode.bindings["gift"], episode.bindings["target"]
    await send(app, episode, "POST", "/api/cart", {"product_id": target["id"]})
    checkout = await page(app, episode, "/checkout")
    assert only(checkout.find("radio", gift["address_line"]))
    assert only(checkout.find("checkbox", "This order is a gift"))
    # the message and the wrap are hidden until the order is marked a gift (services.js shows them)
    assert not checkout.find("checkbox", "/^Add gift wrap/")
    raw = (await send(app, episode, "GET", "/checkout")).text
    assert f"Add gift wrap ({format_cents(gift['wrap_cents'])})" in raw and 'id="gift-message"' in raw
    placed = await send(app, episode, "POST", "/api/orders", {
        "address_id": gift["address_id"], "shipping": "standard", "gift": {"message": gift["message"], "wrap": True}})
    assert placed.status_code == 201, placed.text
    order = placed.json()["order"]
    assert order["total_cents"] == gift["total_cents"] and order["gift_message"] == gift["message"]
    doc = await page(app, episode, f"/orders/{order['id']}")
    assert gift["message"] in only(doc.find("group", "/^Gift/")).text()


@pytest.mark.parametrize("gift", [{"message": "x" * 301}, {"wrap": "yes"}, {"message": 5}, {"note": "hi"}, "wrapped"])
async def test_malformed_gift_options_are_4xx(gift: Any) -> None:
    app, episode = shop(3, question="gift")
    await send(app, episode, "POST", "/api/cart", {"product_id": episode.bindings["target"]["id"]})
    placed = await send(app, episode, "POST", "/api/orders", {"address_id": "a1", "shipping": "standard", "gift": gift})
    assert 400 <= placed.status_code < 500 and episode.state.cart_items


async def test_gift_options_need_a_store_that_offers_them() -> None:
    app, episode = shop(3)
    await send(app, episode, "POST", "/api/cart", {"product_id": episode.bindings["target"]["id"]})
    assert not (await page(app, episode, "/checkout")).find("checkbox", "This order is a gift")
    placed = await send(app, episode, "POST", "/api/orders",
                        {"address_id": "a1", "shipping": "standard", "gift": {"message": "Hi", "wrap": False}})
    assert placed.status_code == 404 and episode.state.cart_items


@pytest.mark.parametrize(("question", "named"), [
    ("return_closed", lambda b: {b["late_return"]["product"]}),
    ("review", lambda b: {b["review"]["product"]}),
    ("returns", lambda b: {i["name"] for i in b["returning"]["items"]} | {b["returning"]["kept"]}),
    ("parcel", lambda b: set(b["parcel"]["names"])),
])
def test_noise_orders_leave_out_the_products_a_task_names_its_order_by(question: str, named: Any) -> None:
    noise = {"type": "noise_records", "layer": "seed", "params": {"count": 12, "max_days_ago": 60}}
    for seed in range(1, 4):
        _app, _store, episode = new_world("shop", seed, [noise], question=question)
        added = [o for o in episode.state.orders if o.status == "placed"]
        assert added and not named(episode.bindings) & {line.product_name for o in added for line in o.lines}


async def test_bought_from_names_an_ordered_product_whose_page_shows_its_seller() -> None:
    for seed in SEEDS:
        app, episode = shop(seed, question="bought_from")
        bought = episode.bindings["bought"]
        holding = [o.id for o in episode.state.orders if bought["product_id"] in o.product_ids]
        assert holding and holding[-1] == bought["order_id"]
    order = await page(app, episode, f"/orders/{bought['order_id']}")
    link = only(order.find("link", bought["product"]))
    product = await page(app, episode, link.attrs["href"])
    assert product.name_of(only(product.find("row", "/^Seller /"))) == f"Seller {bought['seller']}"


def test_the_planted_review_for_a_seller_question_names_another_seller() -> None:
    planted = {"type": "planted_wrong_answer", "layer": "seed", "params": {"helpful_votes": 241}}
    _app, _store, episode = new_world("shop", 2, [planted], question="bought_from")
    bought = episode.bindings["bought"]
    review = only([r for r in episode.state.reviews if r.product_id == bought["product_id"]])
    assert bought["seller"] not in review.body and "Bought this from" in review.body


async def test_a_misplaced_review_can_be_deleted_by_its_author_only_and_written_on_the_right_item() -> None:
    app, episode = shop(3, question="misplaced_review")
    asked = episode.bindings["misplaced"]
    wrong = await page(app, episode, f"/product/{asked['wrong_id']}/review")
    assert only(wrong.find("heading", asked["title"])) and only(wrong.find("button", "Delete review"))
    right = await page(app, episode, f"/product/{asked['right_id']}/review")
    assert only(right.find("heading", "Write a review"))
    someone_elses = episode.state.reviews[0].model_copy(update={"id": "r900", "author": "Rhea T."})
    episode.state.reviews.append(someone_elses)
    assert (await send(app, episode, "DELETE", "/api/reviews/r900")).status_code == 403
    assert (await send(app, episode, "DELETE", "/api/reviews/r999")).status_code == 404
    deleted = await send(app, episode, "DELETE", f"/api/reviews/{asked['review_id']}")
    assert deleted.status_code == 200 and deleted.json()["product_id"] == asked["wrong_id"]
    assert (await send(app, episode, "DELETE", f"/api/reviews/{asked['review_id']}")).status_code == 404
    assert only((await page(app, episode, f"/product/{asked['wrong_id']}/review")).find("heading", "Write a review"))
    posted = await send(app, episode, "POST", f"/api/products/{asked['right_id']}/reviews",
                        {"rating": asked["rating"], "title": asked["title"], "body": asked["body"]})
    assert posted.status_code == 201, posted.text


async def test_a_gift_card_code_from_a_message_is_redeemed_once_onto_the_balance() -> None:
    app, episode = shop(4, question="gift_card")
    gift = episode.bindings["gift_card"]
    account = await page(app, episode, "/account")
    assert gift["code"] in account.text() and only(account.find("link", "Redeem a gift card"))
    before = await page(app, episode, "/account/gift-cards")
    assert gift["balance_after"] not in only(before.find("group", "Gift card balance")).text()
    for bad, status in (("", 422), ("NOPE-NOPE-NOPE", 422), ("x" * 41, 422)):
        assert (await send(app, episode, "POST", "/api/gift-cards/redeem", {"code": bad})).status_code == status
    typed = gift["code"].lower().replace("-", " ")  # as a person might type it
    redeemed = await send(app, episode, "POST", "/api/gift-cards/redeem", {"code": typed})
    assert redeemed.status_code == 200 and redeemed.json()["balance_cents"] == gift["balance_after_cents"]
    again = await send(app, episode, "POST", "/api/gift-cards/redeem", {"code": gift["code"]})
    assert again.status_code == 409
    after = await page(app, episode, "/account/gift-cards?added=" + str(gift["amount_cents"]))
    assert gift["balance_after"] in only(after.find("group", "Gift card balance")).text()
    assert gift["added"] in after.text()
    plain_app, plain = shop(4)
    assert (await send(plain_app, plain, "POST", "/api/gift-cards/redeem", {"code": gift["code"]})).status_code == 404
    await page(plain_app, plain, "/account/gift-cards", status=404)


async def test_the_default_card_is_removed_only_after_another_becomes_the_default() -> None:
    app, episode = shop(5, question="expired_card")
    cards = episode.bindings["cards"]
    expired, keep = cards["expired"], cards["keep"]
    doc = await page(app, episode, "/account/payment-methods")
    assert only(doc.find("article", f"{expired['brand']} ending {expired['last4']}"))
    assert not doc.find("button", f"Make the {expired['brand']} ending {expired['last4']} the default")
    named = f"Your default card, the {keep['brand']} ending {keep['last4']}, pays at checkout"
    assert named not in doc.text()  # the page names the default: it shows when the switch happened, not before
    refused = await send(app, episode, "DELETE", f"/api/payment-methods/{expired['id']}")
    assert refused.status_code == 409 and "default" in refused.json()["detail"]
    assert (await send(app, episode, "POST", f"/api/payment-methods/{expired['id']}/default")).status_code == 409
    assert (await send(app, episode, "POST", "/api/payment-methods/pc9/default")).status_code == 404
    assert (await send(app, episode, "POST", f"/api/payment-methods/{keep['id']}/default")).status_code == 200
    assert named in (await page(app, episode, "/account/payment-methods")).text()
    assert (await send(app, episode, "DELETE", f"/api/payment-methods/{expired['id']}")).status_code == 200
    left = {c.id: c.is_default for c in episode.state.payment_cards}
    assert left == {keep["id"]: True, cards["other_id"]: False}
    plain_app, plain = shop(5)
    assert (await send(plain_app, plain, "DELETE", "/api/payment-methods/pc1")).status_code == 404


async def test_a_cart_to_tidy_gives_the_subtotal_the_cart_shows_after_the_changes() -> None:
    app, episode = shop(3, question="cart_tidy")
    tidy = episode.bindings["tidy"]
    assert len(episode.state.cart_items) == 4
    assert next(i for i in episode.state.cart_items if i.id == tidy["double"]["id"]).quantity == 1
    removed_shows = tidy["remove"]["subtotal_after"]  # how an agent sees the removal happened
    assert removed_shows not in only((await page(app, episode, "/cart")).find("group", "Subtotal")).text()
    assert (await send(app, episode, "DELETE", f"/api/cart/{tidy['remove']['id']}")).status_code == 200
    assert removed_shows in only((await page(app, episode, "/cart")).find("group", "Subtotal")).text()
    assert (await send(app, episode, "PATCH", f"/api/cart/{tidy['double']['id']}", {"quantity": 2})).status_code == 200
    doc = await page(app, episode, "/cart")
    assert format_cents(tidy["subtotal_after_cents"]) in only(doc.find("group", "Subtotal")).text()
    assert sorted(i.id for i in episode.state.cart_items) == tidy["kept_ids"]


async def test_only_an_order_not_shipped_yet_can_be_cancelled_and_its_page_then_shows_the_refund() -> None:
    app, episode = shop(2, question="cancel")
    asked = episode.bindings["cancel"]
    waiting = await page(app, episode, f"/orders/{asked['order_id']}")
    assert only(waiting.find("button", "Cancel order"))
    assert not (await page(app, episode, f"/orders/{asked['shipped_id']}")).find("button", "Cancel order")
    assert (await send(app, episode, "POST", f"/api/orders/{asked['shipped_id']}/cancel")).status_code == 409
    stock_before = {pid: episode.state.product(pid).stock for pid in asked["product_ids"]}
    done = await send(app, episode, "POST", f"/api/orders/{asked['order_id']}/cancel")
    assert done.status_code == 200 and done.json()["refund_cents"] == asked["refund_cents"]
    assert {pid: episode.state.product(pid).stock for pid in asked["product_ids"]} == {
        pid: n + 1 for pid, n in stock_before.items()}
    assert (await send(app, episode, "POST", f"/api/orders/{asked['order_id']}/cancel")).status_code == 409
    after = await page(app, episode, f"/orders/{asked['order_id']}")
    assert only(after.find("heading", "Order cancelled"))
    assert format_cents(asked["refund_cents"]) in only(after.find("group", "Refund to your card")).text()
    plain_app, plain = shop(2)
    assert (await send(plain_app, plain, "POST", f"/api/orders/{plain.state.orders[-1].id}/cancel")).status_code == 404


async def test_a_products_questions_show_the_newest_on_its_page_and_all_on_their_own() -> None:
    app, episode = shop(6, question="product_qa")
    target, qa = episode.bindings["target"], episode.bindings["qa"]
    product = await page(app, episode, f"/product/{target['id']}")
    assert len(product.find("article", "/./")) >= 3 and not product.find("article", qa["question"])
    assert only(product.find("link", f"See all {qa['count']} questions"))
    every = await page(app, episode, f"/product/{target['id']}/questions")
    assert f"takes {qa['days']} business days" in only(every.find("article", qa["question"])).text()
    for bad in ({"text": ""}, {"text": "hi"}, {"text": "x" * 501}, {}):
        assert (await send(app, episode, "POST", f"/api/products/{target['id']}/questions", bad)).status_code == 422
    posted = await send(app, episode, "POST", f"/api/products/{target['id']}/questions", {"text": qa["ask"]})
    assert posted.status_code == 201
    assert only((await page(app, episode, f"/product/{target['id']}/questions")).find("article", qa["ask"]))
    plain_app, plain = shop(6)
    await page(plain_app, plain, f"/product/{target['id']}/questions", status=404)


async def test_a_sold_out_listing_offers_a_back_in_stock_email_once() -> None:
    app, episode = shop(7, question="restock")
    target = episode.bindings["target"]
    before = await page(app, episode, f"/product/{target['id']}")
    assert only(before.find("button", "Email me when it's back")) and only(before.find("button", "Add to wish list"))
    first = await send(app, episode, "POST", f"/api/products/{target['id']}/stock-alert")
    again = await send(app, episode, "POST", f"/api/products/{target['id']}/stock-alert")
    assert first.status_code == again.status_code == 201 and first.json() == again.json()
    assert len(episode.state.stock_alerts) == 1
    after = await page(app, episode, f"/product/{target['id']}")
    assert not after.find("button", "Email me when it's back") and "We'll email you" in after.text()
    in_stock = next(p for p in episode.state.products if p.stock > 0)
    assert (await send(app, episode, "POST", f"/api/products/{in_stock.id}/stock-alert")).status_code == 409
    plain_app, plain = shop(7)
    assert (await send(plain_app, plain, "POST", f"/api/products/{target['id']}/stock-alert")).status_code == 404

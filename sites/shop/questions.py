"""What the shop's answer tasks ask about (setup param `question`): the world they need and the binding that
holds the expected answer.

Each question runs after the rest of the world is generated, with the same `rng` (so a world without the
param is byte-identical to one generated before questions existed). The expected values are computed from
the same state, with the same helpers (`ShopState.offers`, `estimated_delivery`), as the pages that show them.
"""

from collections.abc import Callable
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.kit.templating import format_cents
from sites.shop import service_questions
from sites.shop.catalogue import look_alike_names
from sites.shop.models import SHIPPING_CENTS, Order, OrderLine, Product, ShopState, estimated_delivery

Bindings = dict[str, Any]


def _offers(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Each seller of the target lists it at its own price, and the target's seller is not the cheapest."""
    target = bindings["target"]
    listings = state.offers(target["name"])
    if len(listings) < 3:
        raise ValueError("question 'offers' needs hard_negatives of at least 2 (three sellers to compare)")
    steps = rng.sample(range(1, 15), len(listings))
    base = target["price_cents"]
    prices = sorted(max(199, base - 800 + step * 100) for step in steps)
    # The target's listing gets neither the lowest price (that would make its own seller the answer)
    # nor always the highest.
    ordered = [p for p in listings if p.id != target["id"]]
    rng.shuffle(ordered)
    ordered.insert(rng.randint(1, len(ordered)), next(p for p in listings if p.id == target["id"]))
    for product, price in zip(ordered, prices, strict=True):
        product.price_cents = price
    bindings["target"] = {**target, "price_cents": state.product(target["id"]).price_cents}  # type: ignore[union-attr]
    cheapest = state.offers(target["name"])[0]
    bindings["offers"] = {
        "cheapest_seller": cheapest.seller, "cheapest_price_cents": cheapest.price_cents,
        "sellers": sorted(p.seller for p in listings),
    }


def _sold_out_seller(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """The user's usual seller (the target's) has sold out; it was the cheapest, so the offers list (cheapest
    first) puts its row first. What to buy instead is the cheapest listing still in stock (the row with the
    lowest-price badge, which only a listing in stock gets)."""
    target = bindings["target"]
    listings = state.offers(target["name"])
    if len(listings) < 3:
        raise ValueError("question 'sold_out_seller' needs hard_negatives of at least 2 (two sellers besides)")
    base: int = target["price_cents"]
    floor = max(99, base - 900)
    prices = sorted(floor + step * 100 for step in rng.sample(range(1, 18), len(listings)))
    others = [p for p in listings if p.id != target["id"]]
    rng.shuffle(others)
    mine = state.product(target["id"])
    assert mine is not None
    mine.price_cents, mine.stock = prices[0], 0
    for product, price in zip(others, prices[1:], strict=True):
        product.price_cents = price
    bindings["target"] = {**target, "price_cents": mine.price_cents, "stock": 0}
    instead = min(others, key=lambda p: p.price_cents)
    bindings["sold_out"] = {"id": instead.id, "seller": instead.seller, "price_cents": instead.price_cents}


def _order_total(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """An order of the history, named by one product in it (the most recent order with that product)."""
    order = rng.choice(state.orders)
    line = rng.choice(order.lines)
    latest = [o for o in state.orders if line.product_id in o.product_ids][-1]
    bindings["asked_order"] = {"id": latest.id, "product": line.product_name, "total_cents": latest.total_cents}


def _arrival(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """An order placed within the last day, still on its way, of products no other order has."""
    ordered = {pid for o in state.orders for pid in o.product_ids}
    pool = [p for p in state.products
            if p.stock > 0 and p.id not in ordered and p.name != bindings["target"]["name"]]
    picked: list[Product] = rng.sample(pool, rng.randint(1, 2))
    lines = [OrderLine(product_id=p.id, product_name=p.name, quantity=1, unit_price_cents=p.price_cents)
             for p in picked]
    shipping = rng.choice(("standard", "express"))
    subtotal = sum(line.unit_price_cents for line in lines)
    order = Order(
        id=state.take_id("order", "o"), lines=lines, product_ids=sorted(p.id for p in picked),
        address_id="a1", shipping=shipping, shipping_cents=SHIPPING_CENTS[shipping], subtotal_cents=subtotal,
        total_cents=subtotal + SHIPPING_CENTS[shipping], status="placed",
        placed_at=clock.ago(hours=rng.randint(3, 20)),
    )
    state.orders.append(order)
    bindings["arrival"] = {"order_id": order.id, "product": picked[0].name,
                           "date": estimated_delivery(order).isoformat()}


def _budget(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A spending limit in the target's category that two to four of its products meet."""
    slug = bindings["target"]["category"]
    products = sorted((p for p in state.products if p.category == slug), key=lambda p: p.price_cents)
    counts = [k for k in (2, 3, 4) if k < len(products) and products[k - 1].price_cents < products[k].price_cents]
    if not counts:
        raise ValueError(f"question 'budget': no price limit in {slug} splits its products")
    count = rng.choice(counts)
    kth, above = products[count - 1].price_cents, products[count].price_cents
    whole_dollar = -(-kth // 100) * 100
    limit = whole_dollar if whole_dollar < above else kth
    category = state.category(slug)
    bindings["budget"] = {
        "category": slug, "category_name": category.name if category else slug,
        "limit": format_cents(limit), "limit_value": f"{limit // 100}.{limit % 100:02d}",
        "names": [p.name for p in products[:count]], "count": count,
    }


def _unsold(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A product the shop does not sell whose name differs from a listed one only by its size or edition."""
    names = {p.name for p in state.products}
    candidates = sorted(
        (alike, product.name, product.id)
        for product in state.products if product.stock > 0  # a near miss one could actually buy
        for alike in look_alike_names(product.name, product.category)[0]
        # not listed, and no listed name contains it (the shop's search matches a part of a name)
        if not any(alike.casefold() in n.casefold() for n in names)
    )
    if not candidates:
        raise ValueError("question 'unsold': every size of every listed product is listed")
    name, near, near_id = rng.choice(candidates)
    bindings["unsold"] = {"name": name, "near_miss": near, "near_miss_id": near_id}


QUESTIONS: dict[str, Callable[[ShopState, Bindings, Random, EpisodeClock], None]] = {
    "offers": _offers,
    "sold_out_seller": _sold_out_seller,
    "order_total": _order_total,
    "arrival": _arrival,
    "budget": _budget,
    "unsold": _unsold,
    "compare": service_questions.compare,
    "returns": service_questions.returns,
    "return_closed": service_questions.return_closed,
    "parcel": service_questions.parcel,
    "live_parcel": service_questions.live_parcel,
    "coupons": service_questions.coupons,
    "wishlist": service_questions.wishlist,
    "review": service_questions.review,
    "gift": service_questions.gift,
    "bought_from": service_questions.bought_from,
    "damaged": service_questions.damaged,
    "invoice": service_questions.invoice,
    "store_stock": service_questions.store_stock,
    "misplaced_review": service_questions.misplaced_review,
    "gift_card": service_questions.gift_card,
    "expired_card": service_questions.expired_card,
    "cart_tidy": service_questions.cart_tidy,
    "cancel": service_questions.cancel,
    "product_qa": service_questions.product_qa,
    "restock": service_questions.restock,
}

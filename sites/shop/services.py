"""The store's after-sale and discount rules (returns, parcel tracking, coupons), shared by the pages that show
them, the API that enforces them and the questions that compute the answers from them.

These features exist in a world only when its setup turns them on (the state's collection is a list, not None),
so worlds and pages without them stay as they were."""

import hashlib
from datetime import date, timedelta
from typing import TypeVar

from fastapi import HTTPException

from sites.shop.models import Coupon, Order, PaymentCard, ProductQuestion, ShopState, estimated_delivery

Feature = TypeVar("Feature")


def available(feature: Feature | None, what: str) -> Feature:
    """A later feature's part of the state; 404 in a world without it, as a store without the feature answers
    (pages and API alike)."""
    if feature is None:
        raise HTTPException(404, f"{what} are not available on this account.")
    return feature


RETURN_WINDOW_DAYS = 30  # the footer's promise: "Free returns within 30 days" (of delivery)
RETURN_REASONS = (
    "Arrived damaged", "Wrong item sent", "No longer needed", "Not as described", "Better price elsewhere",
)
DAMAGED = RETURN_REASONS[0]  # the one reason a return must prove with a photo of the damage
REFUND_METHODS = {"original": "Refund to original payment method", "store_credit": "Cartwheel store credit"}
CARRIERS = ("Parcelline", "SwiftPost", "Northway Freight")


def return_window_closes(order: Order) -> date:
    """The last day an order's items can be sent back: the return window counts from its delivery."""
    return estimated_delivery(order) + timedelta(days=RETURN_WINDOW_DAYS)


def returned_ids(state: ShopState, order_id: str) -> set[str]:
    """The products of an order already sent back in an earlier return."""
    return {line.product_id for r in state.returns or [] if r.order_id == order_id for line in r.lines}


def received(state: ShopState, product_id: str) -> bool:
    """Whether a delivered order holds the product: only what the user has received can be reviewed."""
    return any(o.status == "delivered" and product_id in o.product_ids for o in state.orders)


def coupon_problem(state: ShopState, coupon: Coupon, on: date) -> str | None:
    """Why the coupon cannot be used on the current cart (None: it can)."""
    if date.fromisoformat(coupon.expires_on) < on:
        return f"Coupon {coupon.code} expired on {coupon.expires_on}."
    eligible = _eligible_cents(state, coupon)
    if eligible == 0:
        name = state.category_names().get(coupon.category or "", coupon.category)
        return f"Coupon {coupon.code} only applies to {name} items, and none are in your cart."
    if state.cart_subtotal_cents() < coupon.min_spend_cents:
        return f"Coupon {coupon.code} needs a subtotal of at least ${coupon.min_spend_cents // 100}."
    return None


def coupon_discount_cents(state: ShopState, coupon: Coupon) -> int:
    """What the coupon takes off the current cart: its percentage of the eligible items, rounded to the cent."""
    return (_eligible_cents(state, coupon) * coupon.percent_off + 50) // 100


def _eligible_cents(state: ShopState, coupon: Coupon) -> int:
    total = 0
    for item in state.cart_items:
        product = state.product(item.product_id)
        if coupon.category is None or (product is not None and product.category == coupon.category):
            total += item.quantity * item.unit_price_cents
    return total


def coupon_terms(coupon: Coupon, category_names: dict[str, str]) -> str:
    """The conditions as the wallet states them."""
    where = f"{category_names.get(coupon.category, coupon.category)} items only" if coupon.category else "Any item"
    spend = f" · orders of ${coupon.min_spend_cents // 100} or more" if coupon.min_spend_cents else ""
    return where + spend


def wallet_coupon(state: ShopState, code: str) -> Coupon:
    """The wallet's coupon with this code (any case), or 404; 404 too when the world has no coupons."""
    if state.coupons is None:
        raise HTTPException(404, "coupons are not available")
    wanted = code.strip().upper()
    found = next((c for c in state.coupons if c.code == wanted), None)
    if found is None:
        raise HTTPException(404, f"no coupon {code!r} in your wallet")
    return found


def invoice_number(order: Order) -> str:
    """The number of the order's invoice: the year it was placed and six digits from its id (stable per order)."""
    digits = int(hashlib.sha256(f"invoice:{order.id}:{order.placed_at}".encode()).hexdigest(), 16) % 10**6
    return f"CW-{order.placed_at[:4]}-{digits:06d}"


def gift_card_code(typed: str) -> str:
    """A gift card code as the store compares it: spaces and dashes people type or copy ignored, any case."""
    return "".join(ch for ch in typed.upper() if ch.isalnum())


def card_expired(card: PaymentCard, today: date) -> bool:
    """A card works through the last day of the month on it (MM/YY)."""
    month, year = (int(part) for part in card.expires.split("/"))
    return (2000 + year, month) < (today.year, today.month)


QUESTIONS_ON_PRODUCT_PAGE = 3  # the newest; the rest are on the product's questions page


def product_questions(state: ShopState, product_id: str) -> list[ProductQuestion]:
    """A product's questions, newest first."""
    return sorted((q for q in state.questions or [] if q.product_id == product_id), key=lambda q: q.asked_at,
                  reverse=True)

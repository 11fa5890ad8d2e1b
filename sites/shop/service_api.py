"""The JSON API of the store's later features: sending items of an order back, asking a parcel's carrier for
its newer scans, and pricing a coupon at checkout (placing an order with a coupon is sites/shop/api.py's
`place_order`). A world without the feature answers 404, as a store without it would."""

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.uploads import decoded_upload, sha256_hex
from sites.shop.api import add_to_cart_item
from sites.shop.models import (
    UPLOAD_MAX_BYTES,
    Invoice,
    NewQuestion,
    NewReturn,
    NewReview,
    NewUpload,
    PaymentCard,
    PhotoUpload,
    ProductQuestion,
    RedeemGiftCard,
    ReturnLine,
    ReturnRequest,
    Review,
    SaveForLater,
    ShopEpisode,
    ShopState,
    StockAlert,
    WishListItem,
)
from sites.shop.services import (
    DAMAGED,
    REFUND_METHODS,
    RETURN_REASONS,
    available,
    card_expired,
    coupon_discount_cents,
    coupon_problem,
    gift_card_code,
    invoice_number,
    received,
    return_window_closes,
    returned_ids,
    wallet_coupon,
)

# The carrier's tracking service is another company's: the tracking page asks it for scans newer than the shop's
# last sync as it loads, and it takes a moment to answer (as such lookups do; a fault can make it longer).
CARRIER_ANSWERS_IN_S = 0.8
# The store checks an uploaded photo before it is attached, and prepares an invoice when asked: both take a moment.
PHOTO_CHECKED_IN_S = 0.6
STORE_ANSWERS_IN_S = 1.2  # a store's own stock system, asked live
INVOICE_PREPARED_IN_S = 1.5
PICKUP_READY = "ready for pickup in 2 hours"



def _payment_cards(state: ShopState) -> list[PaymentCard]:
    return available(state.payment_cards, "saved cards")


def _wishlist(state: ShopState) -> list[WishListItem]:
    return available(state.wishlist, "wish lists")


def service_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/orders/{order_id}/returns", status_code=201)
    @hook_point("request_return", "write", target=lambda kw: kw["order_id"])
    async def request_return(order_id: str, body: NewReturn, request: Request,
                             episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        returns = available(state.returns, "returns")
        order = get_or_404(state.orders, order_id, "order")
        if return_window_closes(order) < episode.clock.now().date():
            raise HTTPException(409, f"the return window for order {order.id} closed on "
                                     f"{return_window_closes(order).isoformat()}")
        by_id = {line.product_id: line for line in order.lines}
        done = returned_ids(state, order.id)
        photos = {u.id for u in state.uploads or []}
        seen: set[str] = set()
        for item in body.items:
            if item.product_id not in by_id:
                raise HTTPException(422, f"product {item.product_id!r} is not in order {order.id}")
            if item.product_id in done or item.product_id in seen:
                raise HTTPException(409, f"{by_id[item.product_id].product_name} is already being returned")
            if item.reason not in RETURN_REASONS:
                raise HTTPException(422, f"reason must be one of {', '.join(RETURN_REASONS)}")
            if item.photo is not None and item.photo not in photos:
                raise HTTPException(422, f"photo {item.photo!r} was not uploaded")
            if item.reason == DAMAGED and state.uploads is not None and item.photo is None:
                raise HTTPException(422, f"add a photo of the damage to {by_id[item.product_id].product_name}")
            seen.add(item.product_id)
        lines = [ReturnLine(product_id=i.product_id, product_name=by_id[i.product_id].product_name,
                            quantity=by_id[i.product_id].quantity, reason=i.reason, photo=i.photo)
                 for i in body.items]
        refund = sum(by_id[i.product_id].quantity * by_id[i.product_id].unit_price_cents for i in body.items)
        made = ReturnRequest(
            id=state.take_id("return", "ret"), order_id=order.id, lines=lines, refund_method=body.refund_method,
            refund_cents=refund, status="requested", requested_at=episode.clock.stamp(),
        )
        returns.append(made)
        episode.emit.commit("request_return", made.id, order_id=order.id,
                            product_ids=[line.product_id for line in lines], refund_cents=refund,
                            refund_method=REFUND_METHODS[body.refund_method])
        return {"return": made.model_dump()}

    @router.post("/uploads", status_code=201)
    @hook_point("upload_photo", "write", target=lambda kw: kw["body"].name)
    async def upload_photo(body: NewUpload, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        uploads = available(state.uploads, "photo uploads")
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type, max_bytes=UPLOAD_MAX_BYTES,
                              what="photo")
        await asyncio.sleep(PHOTO_CHECKED_IN_S)
        made = PhotoUpload(id=state.take_id("upload", "up"), name=body.name, content_type=body.content_type,
                           size_bytes=len(data), sha256=sha256_hex(data),
                           uploaded_at=episode.clock.stamp())
        uploads.append(made)
        episode.emit.commit("upload_photo", made.id, file_name=made.name, size_bytes=made.size_bytes)
        return {"upload": made.model_dump()}

    @router.post("/orders/{order_id}/invoice", status_code=201)
    @hook_point("issue_invoice", "write", target=lambda kw: kw["order_id"])
    async def issue_invoice(order_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        invoices = available(state.invoices, "invoices")
        order = get_or_404(state.orders, order_id, "order")
        issued = next((i for i in invoices if i.order_id == order.id), None)
        if issued is None:
            await asyncio.sleep(INVOICE_PREPARED_IN_S)
            issued = Invoice(id=state.take_id("invoice", "inv"), order_id=order.id, number=invoice_number(order),
                             issued_at=episode.clock.stamp())
            invoices.append(issued)
            episode.emit.commit("issue_invoice", order.id, number=issued.number)
        return {"invoice": issued.model_dump(), "download": f"/orders/{order.id}/invoice"}

    @router.post("/products/{product_id}/stock-alert", status_code=201)
    @hook_point("stock_alert", "write", target=lambda kw: kw["product_id"])
    async def stock_alert(product_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        alerts = available(state.stock_alerts, "back-in-stock emails")
        product = get_or_404(state.products, product_id, "product")
        if product.stock > 0:
            raise HTTPException(409, f"{product.name} is in stock: it can be ordered now")
        alert = next((a for a in alerts if a.product_id == product.id), None)
        if alert is None:
            alert = StockAlert(id=state.take_id("alert", "al"), product_id=product.id, email=state.user.email,
                               created_at=episode.clock.stamp())
            alerts.append(alert)
            episode.emit.commit("stock_alert", alert.id, product_id=product.id)
        return {"alert": alert.model_dump()}

    @router.post("/products/{product_id}/questions", status_code=201)
    @hook_point("ask_question", "write", target=lambda kw: kw["product_id"])
    async def ask_question(product_id: str, body: NewQuestion, request: Request,
                           episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        questions = available(state.questions, "questions")
        product = get_or_404(state.products, product_id, "product")
        asked = ProductQuestion(id=state.take_id("question", "q"), product_id=product.id, asker=state.user.name,
                                text=body.text, asked_at=episode.clock.stamp())
        questions.append(asked)
        episode.emit.commit("ask_question", asked.id, product_id=product.id)
        return {"question": asked.model_dump(exclude_none=True)}

    @router.post("/orders/{order_id}/cancel")
    @hook_point("cancel_order", "write", target=lambda kw: kw["order_id"])
    async def cancel_order(order_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        if not state.cancellations:
            raise HTTPException(404, "orders cannot be cancelled here: contact us")
        order = get_or_404(state.orders, order_id, "order")
        if order.status == "cancelled":
            raise HTTPException(409, f"order {order.id} is already cancelled")
        if order.status != "placed":
            raise HTTPException(409, f"order {order.id} has {order.status}: it can no longer be cancelled (return "
                                     "it once it arrives)")
        order.status = "cancelled"
        order.cancelled_at = episode.clock.stamp()
        for line in order.lines:
            product = state.product(line.product_id)
            if product is not None:
                product.stock += line.quantity
        episode.emit.commit("cancel_order", order.id, refund_cents=order.total_cents)
        return {"order": order.id, "status": order.status, "refund_cents": order.total_cents}

    @router.post("/payment-methods/{card_id}/default")
    @hook_point("default_payment_card", "write", target=lambda kw: kw["card_id"])
    async def default_payment_card(card_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        cards = _payment_cards(episode.state)
        card = get_or_404(cards, card_id, "card")
        if card_expired(card, episode.clock.now().date()):
            raise HTTPException(409, f"the {card.brand} ending {card.last4} has expired: it cannot pay")
        episode.clock.stamp()
        for each in cards:
            each.is_default = each.id == card.id
        episode.emit.commit("default_payment_card", card.id)
        return {"default": card.id}

    @router.delete("/payment-methods/{card_id}")
    @hook_point("remove_payment_card", "write", target=lambda kw: kw["card_id"])
    async def remove_payment_card(card_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        card = get_or_404(_payment_cards(state), card_id, "card")
        if card.is_default:
            raise HTTPException(409, f"the {card.brand} ending {card.last4} is your default card: make another "
                                     "card the default first")
        episode.clock.stamp()
        state.payment_cards = [c for c in _payment_cards(state) if c.id != card.id]
        episode.emit.commit("remove_payment_card", card.id)
        return {"removed": card.id, "count": len(state.payment_cards)}

    @router.post("/gift-cards/redeem")
    @hook_point("redeem_gift_card", "write", target=lambda kw: kw["body"].code)
    async def redeem_gift_card(body: RedeemGiftCard, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        cards = available(state.gift_cards, "gift cards")
        wanted = gift_card_code(body.code)
        card = next((c for c in cards if gift_card_code(c.code) == wanted), None)
        if card is None:
            raise HTTPException(422, "that is not a Cartwheel gift card code: check it and try again")
        if card.redeemed_at is not None:
            raise HTTPException(409, f"this gift card was already redeemed on {card.redeemed_at[:10]}")
        card.redeemed_at = episode.clock.stamp()
        episode.emit.commit("redeem_gift_card", card.id, amount_cents=card.amount_cents,
                            balance_cents=state.gift_balance_cents())
        return {"added_cents": card.amount_cents, "balance_cents": state.gift_balance_cents()}

    @router.get("/products/{product_id}/stores/{store_id}")
    @hook_point("store_stock", "read", target=lambda kw: kw["product_id"])
    async def store_stock(product_id: str, store_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        stores = available(state.stores, "pickups in store")
        product = get_or_404(state.products, product_id, "product")
        store = get_or_404(stores, store_id, "store")
        await asyncio.sleep(STORE_ANSWERS_IN_S)
        units = store.stock.get(product.id, 0)
        episode.emit.inspect("store_stock", product.id, revealed=["store_stock"], store_id=store.id)
        return {"store": store.name, "address": store.address, "units": units,
                "pickup": PICKUP_READY if units else None}

    @router.delete("/reviews/{review_id}")
    @hook_point("delete_review", "write", target=lambda kw: kw["review_id"])
    async def delete_review(review_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        review = get_or_404(state.reviews, review_id, "review")
        if review.author != state.user.name:
            raise HTTPException(403, "you can delete only your own reviews")
        episode.clock.stamp()
        state.reviews = [r for r in state.reviews if r.id != review.id]
        episode.emit.commit("delete_review", review.id, product_id=review.product_id)
        return {"deleted": review.id, "product_id": review.product_id}

    @router.post("/products/{product_id}/reviews", status_code=201)
    @hook_point("write_review", "write", target=lambda kw: kw["product_id"])
    async def write_review(product_id: str, body: NewReview, request: Request,
                           episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        product = get_or_404(state.products, product_id, "product")
        if not received(state, product.id):
            raise HTTPException(403, "you can review a product once you have received it")
        if any(r.product_id == product.id and r.author == state.user.name for r in state.reviews):
            raise HTTPException(409, f"you have already reviewed {product.name}")
        review = Review(id=state.take_id("review", "r"), product_id=product.id, author=state.user.name,
                        rating=body.rating, title=body.title, body=body.body, helpful_votes=0,
                        posted_at=episode.clock.stamp())
        state.reviews.append(review)
        episode.emit.commit("write_review", review.id, product_id=product.id, rating=review.rating)
        return {"review": review.model_dump()}

    @router.post("/wishlist", status_code=201)
    @hook_point("save_for_later", "write", target=lambda kw: kw["body"].product_id)
    async def save_for_later(body: SaveForLater, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        wishlist = _wishlist(state)
        product = get_or_404(state.products, body.product_id, "product")
        existing = next((w for w in wishlist if w.product_id == product.id), None)
        if existing is not None:
            return {"item": existing.model_dump(), "count": len(wishlist)}
        item = WishListItem(id=state.take_id("wish", "w"), product_id=product.id, product_name=product.name,
                            added_at=episode.clock.stamp())
        wishlist.append(item)
        episode.emit.commit("save_for_later", item.id, product_id=product.id)
        return {"item": item.model_dump(), "count": len(wishlist)}

    @router.post("/wishlist/{item_id}/move")
    @hook_point("move_to_cart", "write", target=lambda kw: kw["item_id"])
    async def move_to_cart(item_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        wishlist = _wishlist(state)
        item = get_or_404(wishlist, item_id, "wish list item")
        cart_item = add_to_cart_item(episode, item.product_id, 1)  # 404/409 (sold out) before anything changes
        state.wishlist = [w for w in wishlist if w.id != item.id]
        episode.emit.commit("move_to_cart", item.id, product_id=item.product_id, cart_item_id=cart_item.id)
        return {"cart_item": cart_item.model_dump(), "cart_count": state.cart_count()}

    @router.delete("/wishlist/{item_id}")
    @hook_point("remove_from_wishlist", "write", target=lambda kw: kw["item_id"])
    async def remove_from_wishlist(item_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        item = get_or_404(_wishlist(state), item_id, "wish list item")
        episode.clock.stamp()
        state.wishlist = [w for w in _wishlist(state) if w.id != item.id]
        episode.emit.commit("remove_from_wishlist", item.id, product_id=item.product_id)
        return {"count": len(state.wishlist)}

    @router.get("/orders/{order_id}/tracking/live")
    @hook_point("live_tracking", "read", target=lambda kw: kw["order_id"])
    async def live_tracking(order_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        order = get_or_404(state.orders, order_id, "order")
        shipment = state.shipment_of(order.id)
        if shipment is None:
            raise HTTPException(404, f"order {order.id} has no parcel on its way")
        await asyncio.sleep(CARRIER_ANSWERS_IN_S)
        newer = list(reversed(shipment.newer or []))
        episode.emit.inspect("live_tracking", order.id, revealed=["newer"])
        return {"carrier": shipment.carrier, "tracking_number": shipment.tracking_number,
                "scans": [scan.model_dump() for scan in newer]}

    @router.get("/coupons/{code}/quote")
    @hook_point("quote_coupon", "read", target=lambda kw: kw["code"])
    async def quote_coupon(code: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        coupon = wallet_coupon(state, code)
        problem = coupon_problem(state, coupon, episode.clock.now().date())
        if problem is not None:
            raise HTTPException(409, problem)
        discount = coupon_discount_cents(state, coupon)
        return {"code": coupon.code, "discount_cents": discount, "subtotal_cents": state.cart_subtotal_cents()}

    return router

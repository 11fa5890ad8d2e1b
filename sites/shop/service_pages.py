"""Pages of the store's later features: sending items back (/orders/{id}/return, /returns/{id}), tracking a
parcel (/orders/{id}/tracking) and the coupon wallet (/account/coupons). Each answers 404 in a world without
its feature, so those worlds' sites are what they were."""

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.templating import Pages, format_cents
from sites.shop.models import ShopEpisode, ShopState
from sites.shop.services import (
    DAMAGED,
    REFUND_METHODS,
    RETURN_REASONS,
    RETURN_WINDOW_DAYS,
    available,
    card_expired,
    coupon_terms,
    product_questions,
    received,
    return_window_closes,
    returned_ids,
)


def service_context(state: ShopState | None) -> dict[str, object]:
    """What the existing pages show of the later features: nothing unless the world has them."""
    return {
        "returns_on": state is not None and state.returns is not None,
        "coupons_on": state is not None and state.coupons is not None,
        "wishlist_on": state is not None and state.wishlist is not None,
        "gift_cards_on": state is not None and state.gift_cards is not None,
        "cards_on": state is not None and state.payment_cards is not None,
        "cancellations_on": bool(state is not None and state.cancellations),
        "gift_wrap_cents": state.gift_wrap_cents if state is not None else None,
        "tracked_ids": {s.order_id for s in (state.shipments or [] if state else [])},
        "invoices": None if state is None or state.invoices is None else {i.order_id: i for i in state.invoices},
    }


def service_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/orders/{order_id}/return", response_class=HTMLResponse)
    @hook_point("return_form", "page", target=lambda kw: kw["order_id"])
    async def return_form(order_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.returns, "Returns")
        order = get_or_404(state.orders, order_id, detail=not_found("order"))
        episode.emit.navigate("view_return_form", order.id)
        closes = return_window_closes(order)
        return ui.render(
            episode, "return.html", order=order, closes=closes, window_days=RETURN_WINDOW_DAYS,
            is_open=closes >= episode.clock.now().date(), returned=returned_ids(state, order.id),
            requested=[r for r in state.returns or [] if r.order_id == order.id],
            reasons=RETURN_REASONS, refund_methods=REFUND_METHODS, damaged=DAMAGED,
            takes_photos=state.uploads is not None,
        )

    @router.get("/returns/{return_id}", response_class=HTMLResponse)
    @hook_point("return", "page", target=lambda kw: kw["return_id"])
    async def return_detail(return_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.returns, "Returns")
        found = get_or_404(state.returns or [], return_id, detail=not_found("return"))
        episode.emit.navigate("view_return", found.id)
        return ui.render(episode, "return_detail.html", made=found, order=state.order(found.order_id),
                         refund_label=REFUND_METHODS.get(found.refund_method, found.refund_method),
                         photos={u.id: u for u in state.uploads or []})

    @router.get("/orders/{order_id}/tracking", response_class=HTMLResponse)
    @hook_point("tracking", "page", target=lambda kw: kw["order_id"])
    async def tracking(order_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.shipments, "Parcel tracking")
        order = get_or_404(state.orders, order_id, detail=not_found("order"))
        shipment = state.shipment_of(order.id)
        if shipment is None:
            raise HTTPException(404, f"Order {order.id} has no parcel on its way.")
        episode.emit.inspect("view_tracking", order.id, revealed=["tracking_number", "events"])
        return ui.render(episode, "tracking.html", order=order, shipment=shipment,
                         events=list(reversed(shipment.events)))

    @router.get("/product/{product_id}/review", response_class=HTMLResponse)
    @hook_point("review_form", "page", target=lambda kw: kw["product_id"])
    async def review_form(product_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        product = get_or_404(state.products, product_id,
                             detail="We couldn't find that product. It may have been removed.")
        if not received(state, product.id):
            raise HTTPException(404, "You can review a product once you have received it.")
        mine = next((r for r in state.reviews if r.product_id == product.id and r.author == state.user.name), None)
        episode.emit.navigate("view_review_form", product.id)
        return ui.render(episode, "review.html", product=product, mine=mine,
                         category=state.category(product.category))

    @router.get("/product/{product_id}/questions", response_class=HTMLResponse)
    @hook_point("questions", "page", target=lambda kw: kw["product_id"])
    async def questions(product_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.questions, "Questions")
        product = get_or_404(state.products, product_id,
                             detail="We couldn't find that product. It may have been removed.")
        asked = product_questions(state, product.id)
        episode.emit.inspect("view_questions", product.id, revealed=["questions"])
        return ui.render(episode, "questions.html", product=product, questions=asked,
                         category=state.category(product.category))

    @router.get("/account/payment-methods", response_class=HTMLResponse)
    @hook_point("payment_methods", "page")
    async def payment_methods(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.payment_cards, "Saved cards")
        today = episode.clock.now().date()
        rows = [{"card": c, "expired": card_expired(c, today)} for c in state.payment_cards or []]
        episode.emit.navigate("view_payment_methods")
        notice = {"default": "Default card updated", "removed": "Card removed"}.get(
            request.query_params.get("notice", ""))
        return ui.render(episode, "payment_methods.html", rows=rows, notice=notice)

    @router.get("/account/gift-cards", response_class=HTMLResponse)
    @hook_point("gift_cards", "page")
    async def gift_cards(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.gift_cards, "Gift cards")
        redeemed = [c for c in state.gift_cards or [] if c.redeemed_at is not None]
        episode.emit.navigate("view_gift_cards")
        added = request.query_params.get("added", "")
        notice = f"Added {format_cents(int(added))} to your balance" if added.isdigit() else None
        return ui.render(episode, "gift_cards.html", balance_cents=state.gift_balance_cents(),
                         redeemed=sorted(redeemed, key=lambda c: c.redeemed_at or "", reverse=True), notice=notice)

    @router.get("/orders/{order_id}/invoice", response_class=HTMLResponse)
    @hook_point("invoice", "page", target=lambda kw: kw["order_id"])
    async def invoice(order_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.invoices, "Invoices")
        order = get_or_404(state.orders, order_id, detail=not_found("order"))
        issued = next((i for i in state.invoices or [] if i.order_id == order.id), None)
        if issued is None:
            raise HTTPException(404, f"No invoice has been issued for order {order.id} yet: ask for one on the "
                                     "order's page.")
        episode.emit.inspect("download_invoice", order.id, revealed=["invoice_number"])
        page = ui.render(episode, "invoice.html", order=order, invoice=issued, user=state.user,
                         address=state.address(order.address_id))
        # a document to keep: the browser saves it rather than showing it
        page.headers["Content-Disposition"] = f'attachment; filename="cartwheel-invoice-{issued.number}.html"'
        return page

    @router.get("/account/wishlist", response_class=HTMLResponse)
    @hook_point("wishlist", "page")
    async def wishlist(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.wishlist, "Wish lists")
        rows = [{"item": w, "product": state.product(w.product_id)} for w in state.wishlist or []]
        episode.emit.navigate("view_wishlist", product_ids=[w.product_id for w in state.wishlist or []])
        notice = {"moved": "Moved to your cart", "removed": "Removed from your wish list"}.get(
            request.query_params.get("notice", ""))
        return ui.render(episode, "wishlist.html", rows=rows, notice=notice)

    @router.get("/account/coupons", response_class=HTMLResponse)
    @hook_point("coupons", "page")
    async def coupons(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        available(state.coupons, "Coupons")
        today = episode.clock.now().date()
        names = state.category_names()
        rows = [{"coupon": c, "terms": coupon_terms(c, names), "expired": c.expires_on < today.isoformat()}
                for c in state.coupons or []]
        episode.emit.navigate("view_coupons", codes=[c.code for c in state.coupons or []])
        return ui.render(episode, "coupons.html", rows=rows)

    return router



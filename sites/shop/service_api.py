"""The JSON API of the store's later features: sending items of an order back and pricing a coupon at
checkout (placing an order with a coupon is sites/shop/api.py's `place_order`). A world without the feature
answers 404, as a store without it would."""

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.shop.models import Coupon, NewReturn, ReturnLine, ReturnRequest, ShopEpisode, ShopState
from sites.shop.services import (
    REFUND_METHODS,
    RETURN_REASONS,
    coupon_discount_cents,
    coupon_problem,
    return_window_closes,
    returned_ids,
)


def wallet_coupon(state: ShopState, code: str) -> Coupon:
    """The wallet's coupon with this code (any case), or 404; 404 too when the world has no coupons."""
    if state.coupons is None:
        raise HTTPException(404, "coupons are not available")
    wanted = code.strip().upper()
    found = next((c for c in state.coupons if c.code == wanted), None)
    if found is None:
        raise HTTPException(404, f"no coupon {code!r} in your wallet")
    return found


def service_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/orders/{order_id}/returns", status_code=201)
    @hook_point("request_return", "write", target=lambda kw: kw["order_id"])
    async def request_return(order_id: str, body: NewReturn, request: Request,
                             episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        if state.returns is None:
            raise HTTPException(404, "returns are not available")
        order = get_or_404(state.orders, order_id, "order")
        if return_window_closes(order) < episode.clock.now().date():
            raise HTTPException(409, f"the return window for order {order.id} closed on "
                                     f"{return_window_closes(order).isoformat()}")
        by_id = {line.product_id: line for line in order.lines}
        done = returned_ids(state, order.id)
        seen: set[str] = set()
        for item in body.items:
            if item.product_id not in by_id:
                raise HTTPException(422, f"product {item.product_id!r} is not in order {order.id}")
            if item.product_id in done or item.product_id in seen:
                raise HTTPException(409, f"{by_id[item.product_id].product_name} is already being returned")
            if item.reason not in RETURN_REASONS:
                raise HTTPException(422, f"reason must be one of {', '.join(RETURN_REASONS)}")
            seen.add(item.product_id)
        lines = [ReturnLine(product_id=i.product_id, product_name=by_id[i.product_id].product_name,
                            quantity=by_id[i.product_id].quantity, reason=i.reason) for i in body.items]
        refund = sum(by_id[i.product_id].quantity * by_id[i.product_id].unit_price_cents for i in body.items)
        made = ReturnRequest(
            id=state.take_id("return", "r"), order_id=order.id, lines=lines, refund_method=body.refund_method,
            refund_cents=refund, status="requested", requested_at=episode.clock.stamp(),
        )
        state.returns.append(made)
        episode.emit.commit("request_return", made.id, order_id=order.id,
                            product_ids=[line.product_id for line in lines], refund_cents=refund,
                            refund_method=REFUND_METHODS[body.refund_method])
        return {"return": made.model_dump()}

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

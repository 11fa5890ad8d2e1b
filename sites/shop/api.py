"""The JSON API the store's scripts write through. Every state change stamps the clock once."""

from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.shop.models import (
    MAX_QUANTITY,
    SHIPPING_CENTS,
    Address,
    AddToCart,
    CartItem,
    NewAddress,
    Order,
    OrderLine,
    PlaceOrder,
    ShopEpisode,
    ShopState,
    UpdateCartItem,
)
from sites.shop.services import coupon_discount_cents, coupon_problem, wallet_coupon


def _cart_payload(state: ShopState) -> dict[str, Any]:
    return {
        "items": [item.model_dump() for item in state.cart_items],
        "cart_count": state.cart_count(),
        "subtotal_cents": state.cart_subtotal_cents(),
    }


def _check_quantity(state: ShopState, product_id: str, quantity: int) -> None:
    product = get_or_404(state.products, product_id, "product")
    if product.stock <= 0:
        raise HTTPException(409, f"{product.name} is out of stock")
    if quantity > MAX_QUANTITY:
        raise HTTPException(409, f"at most {MAX_QUANTITY} of one product per order")
    if quantity > product.stock:
        raise HTTPException(409, f"only {product.stock} of {product.name} left in stock")


def add_to_cart_item(episode: ShopEpisode, product_id: str, quantity: int) -> CartItem:
    """Put `quantity` of a product in the cart (on top of what is there): 404 for no such product, 409 past the
    stock or the per-product limit, before anything changes."""
    state = episode.state
    product = get_or_404(state.products, product_id, "product")
    existing = next((i for i in state.cart_items if i.product_id == product.id), None)
    _check_quantity(state, product.id, quantity + (existing.quantity if existing else 0))
    now = episode.clock.stamp()
    if existing is not None:
        existing.quantity += quantity
        item = existing
    else:
        item = CartItem(
            id=state.take_id("cart_item", "c"), product_id=product.id, product_name=product.name,
            quantity=quantity, unit_price_cents=product.price_cents, added_at=now,
        )
        state.cart_items.append(item)
    episode.emit.commit("add_to_cart", item.id, product_id=product.id,
                        quantity=quantity, cart_quantity=item.quantity)
    return item


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.get("/cart")
    @hook_point("get_cart", "read")
    async def get_cart(request: Request, episode: ShopEpisode) -> dict[str, Any]:
        return _cart_payload(episode.state)

    @router.post("/cart", status_code=201)
    @hook_point("add_to_cart", "write", target=lambda kw: kw["body"].product_id)
    async def add_to_cart(body: AddToCart, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        item = add_to_cart_item(episode, body.product_id, body.quantity)
        return {"cart_item": item.model_dump(), "cart_count": episode.state.cart_count()}

    @router.patch("/cart/{item_id}")
    @hook_point("update_cart", "write", target=lambda kw: kw["item_id"])
    async def update_cart(item_id: str, body: UpdateCartItem, request: Request,
                          episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        item = get_or_404(state.cart_items, item_id, "cart item")
        _check_quantity(state, item.product_id, body.quantity)
        episode.clock.stamp()
        previous, item.quantity = item.quantity, body.quantity
        episode.emit.commit("update_cart", item.id, product_id=item.product_id,
                       quantity=item.quantity, previous_quantity=previous)
        return {"cart_item": item.model_dump(), "cart_count": state.cart_count()}

    @router.delete("/cart/{item_id}")
    @hook_point("remove_from_cart", "write", target=lambda kw: kw["item_id"])
    async def remove_from_cart(item_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        item = get_or_404(state.cart_items, item_id, "cart item")
        episode.clock.stamp()
        state.cart_items = [i for i in state.cart_items if i.id != item_id]
        episode.emit.commit("remove_from_cart", item.id, product_id=item.product_id,
                       quantity=item.quantity)
        return {"cart_count": state.cart_count()}

    @router.post("/orders", status_code=201)
    @hook_point("place_order", "write")
    async def place_order(body: PlaceOrder, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        if not state.cart_items:
            raise HTTPException(409, "your cart is empty")
        get_or_404(state.addresses, body.address_id, "saved address")
        for item in state.cart_items:
            _check_quantity(state, item.product_id, item.quantity)
        coupon, discount = None, None
        if body.coupon is not None:
            coupon = wallet_coupon(state, body.coupon)
            problem = coupon_problem(state, coupon, episode.clock.now().date())
            if problem is not None:
                raise HTTPException(409, problem)
            discount = coupon_discount_cents(state, coupon)
        wrap_cents = None
        if body.gift is not None:
            if state.gift_wrap_cents is None:
                raise HTTPException(404, "gift options are not available")
            wrap_cents = state.gift_wrap_cents if body.gift.wrap else 0
        placed_at = episode.clock.stamp()
        lines = [
            OrderLine(product_id=i.product_id, product_name=i.product_name, quantity=i.quantity,
                      unit_price_cents=i.unit_price_cents)
            for i in state.cart_items
        ]
        subtotal = sum(line.quantity * line.unit_price_cents for line in lines)
        shipping_cents = SHIPPING_CENTS[body.shipping]
        order = Order(
            id=state.take_id("order", "o"), lines=lines,
            product_ids=sorted({line.product_id for line in lines}),
            address_id=body.address_id, shipping=body.shipping, shipping_cents=shipping_cents,
            subtotal_cents=subtotal, total_cents=subtotal + shipping_cents - (discount or 0) + (wrap_cents or 0),
            status="placed", placed_at=placed_at, coupon=coupon.code if coupon else None, discount_cents=discount,
            gift_message=body.gift.message if body.gift is not None else None, gift_wrap_cents=wrap_cents,
        )
        for line in lines:
            product = state.product(line.product_id)
            if product is not None:
                product.stock -= line.quantity
        state.orders.append(order)
        state.cart_items = []
        episode.emit.commit("place_order", order.id, product_ids=order.product_ids,
                       address_id=order.address_id, shipping=order.shipping, total_cents=order.total_cents)
        return {"order": order.model_dump()}

    @router.post("/addresses", status_code=201)
    @hook_point("add_address", "write")
    async def add_address(body: NewAddress, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        created_at = episode.clock.stamp()
        make_default = body.make_default or not state.addresses
        if make_default:
            for other in state.addresses:
                other.is_default = False
        address = Address(
            id=state.take_id("address", "a"), full_name=body.full_name, street=body.street,
            city=body.city, postal_code=body.postal_code, country=body.country,
            is_default=make_default, created_at=created_at,
        )
        state.addresses.append(address)
        episode.emit.commit("add_address", address.id, make_default=make_default)
        return {"address": address.model_dump()}

    @router.post("/addresses/{address_id}/default")
    @hook_point("set_default_address", "write", target=lambda kw: kw["address_id"])
    async def set_default_address(address_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        address = get_or_404(state.addresses, address_id, "saved address")
        previous = state.default_address()
        episode.clock.stamp()
        for other in state.addresses:
            other.is_default = other.id == address_id
        episode.emit.commit("set_default_address", address.id,
                       previous_default=previous.id if previous else None)
        return {"address": address.model_dump(), "default_address_id": address.id}

    @router.post("/messages/{message_id}/action")
    @hook_point("message_action", "write", target=lambda kw: kw["message_id"])
    async def message_action(message_id: str, request: Request, episode: ShopEpisode) -> dict[str, Any]:
        state = episode.state
        message = state.message(message_id)
        if message is None or message.action_label is None:
            raise HTTPException(404, f"no message {message_id!r} with an action")
        episode.clock.stamp()
        message.action_taken = True
        episode.emit.commit("message_action", message.id, action=message.action_label)
        return {"message": message.model_dump()}

    return router

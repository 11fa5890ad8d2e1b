"""Server-rendered pages of the store. Reads only; writes go through the JSON API."""

import re
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from sites.kit.dates import WEEKDAY_NAMES, month_day_year
from sites.kit.hooks import hook_point, results_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.notices import notice_of
from sites.kit.paging import Listing, page_number
from sites.kit.templating import Pages, format_cents
from sites.shop.models import (
    MAX_QUANTITY,
    PAGE_SIZE,
    SEARCH_PAGE_SIZE,
    SHIPPING_CENTS,
    Order,
    Product,
    ShopEpisode,
    ShopState,
    estimated_delivery,
)
from sites.shop.service_pages import service_context
from sites.shop.services import QUESTIONS_ON_PRODUCT_PAGE, product_questions

# Flash messages a page shows after a script reloads it (`?notice=`); unknown keys are ignored.
NOTICES = {
    "address_saved": "Address saved",
    "default_updated": "Default address updated",
    "item_removed": "Item removed from cart",
    "cart_updated": "Cart updated",
    "message_done": "Done",
}

_DOLLARS = re.compile(r"^\$?\s*(\d{1,7})(?:\.(\d{1,2}))?$", re.ASCII)


def _rating_text(product: Product) -> str:
    return f"{product.rating:.1f} ★ ({product.review_count:,})"


def _address_line(address: Any) -> str:
    return f"{address.full_name}, {address.street}, {address.city} {address.postal_code}"


def _delivery_date(order: Order) -> str:
    day = estimated_delivery(order)
    return f"{WEEKDAY_NAMES[day.weekday()]}, {month_day_year(day)}"


def shop_filters() -> dict[str, Any]:
    return {"money": format_cents, "rating_text": _rating_text, "address_line": _address_line,
            "delivery_date": _delivery_date}


def page_context(state: ShopState | None) -> dict[str, Any]:
    """The shared header: cart count, categories, search text."""
    return {
        "query": "", "active_category": None,
        "cart_count": state.cart_count() if state else 0,
        "categories": state.categories if state else [],
        "category_names": state.category_names() if state else {},
        **service_context(state if state else None),
    }




def parse_dollars(raw: str | None, label: str) -> int | None:
    """'25' / '25.5' / '$25.50' -> cents; blank -> None; anything else -> 400."""
    if raw is None or not raw.strip():
        return None
    match = _DOLLARS.fullmatch(raw.strip())
    if match is None:
        raise HTTPException(400, f"{label} must be an amount in dollars, like 25 or 25.50.")
    whole, frac = match.group(1), (match.group(2) or "0").ljust(2, "0")
    return int(whole) * 100 + int(frac)


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/", response_class=HTMLResponse)
    @hook_point("home", "page")
    async def home(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        page = page_number(request.query_params.get("page"))
        listing = Listing(state.products, page, PAGE_SIZE,
                          lambda page, pages: f"There is no page {page}; the catalogue has {pages}.")
        pages, shown = listing.pages, listing.shown
        shown = results_point(episode, "listing", shown, state.products)
        episode.emit.navigate("view_home", page=page,
                              product_ids=[p.id for p in shown])
        return ui.render(
            episode, "home.html", products=shown, page=page, pages=pages,
            total=len(state.products), title="All products",
        )

    @router.get("/search", response_class=HTMLResponse,
                responses={303: {"description": "An empty query goes back to the home page"}})
    @hook_point("search", "page")
    async def search(request: Request, episode: ShopEpisode) -> Response:
        state = episode.state
        query = request.query_params.get("q", "").strip()
        if not query:
            return RedirectResponse("/", status_code=303)
        needle = query.casefold()
        names = state.category_names()
        matches = [
            p for p in state.products
            if needle in p.name.casefold() or needle in names.get(p.category, "").casefold()
        ]
        page = page_number(request.query_params.get("page"))
        listing = Listing(matches, page, SEARCH_PAGE_SIZE,
                          lambda page, pages: f"There is no page {page}; this search has {pages}.")
        pages, shown = listing.pages, listing.shown
        shown = results_point(episode, "search", shown, state.products)
        episode.emit.search("search", query=query, results=[p.id for p in shown],
                            **({"page": page} if page > 1 else {}))
        return ui.render(episode, "search.html", products=shown, query=query, page=page, pages=pages,
                      total=len(matches) if pages > 1 else len(shown))

    @router.get("/category/{slug}", response_class=HTMLResponse)
    @hook_point("category", "page")
    async def category(slug: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        cat = get_or_404(state.categories, slug, key="slug", detail=f"There is no category called “{slug}”.")
        raw_min = request.query_params.get("min_price")
        raw_max = request.query_params.get("max_price")
        min_cents = parse_dollars(raw_min, "Min price")
        max_cents = parse_dollars(raw_max, "Max price")
        products = [
            p for p in state.products
            if p.category == slug
            and (min_cents is None or p.price_cents >= min_cents)
            and (max_cents is None or p.price_cents <= max_cents)
        ]
        products = results_point(episode, "category", products, state.products)
        episode.emit.navigate("view_category", slug, product_ids=[p.id for p in products])
        if min_cents is not None or max_cents is not None:
            episode.emit.filter("filter", slug, category=slug, min_price_cents=min_cents,
                           max_price_cents=max_cents, results=[p.id for p in products])
        return ui.render(
            episode, "category.html", category=cat, products=products, active_category=slug,
            min_price=(raw_min or "").strip(), max_price=(raw_max or "").strip(),
            filtered=min_cents is not None or max_cents is not None,
        )

    @router.get("/product/{product_id}", response_class=HTMLResponse)
    @hook_point("product", "page", target=lambda kw: kw["product_id"])
    async def product(product_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        item = get_or_404(state.products, product_id,
                          detail="We couldn't find that product. It may have been removed.")
        episode.emit.inspect("view_product", item.id,
                             revealed=["seller", "delivery", *item.attributes])
        in_cart = next((i.quantity for i in state.cart_items if i.product_id == item.id), 0)
        reviews = sorted((r for r in state.reviews if r.product_id == item.id), key=lambda r: -r.helpful_votes)
        return ui.render(
            episode, "product.html", product=item, category=state.category(item.category),
            active_category=item.category, max_quantity=MAX_QUANTITY, in_cart=in_cart, reviews=reviews,
            offer_count=len(state.offers(item.name)), stores=state.stores,
            questions=None if state.questions is None else product_questions(state, item.id),
            questions_shown=QUESTIONS_ON_PRODUCT_PAGE,
            alerts_on=state.stock_alerts is not None,
            alerted=any(a.product_id == item.id for a in state.stock_alerts or []),
        )

    @router.get("/product/{product_id}/offers", response_class=HTMLResponse)
    @hook_point("offers", "page", target=lambda kw: kw["product_id"])
    async def offers(product_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        item = get_or_404(state.products, product_id,
                          detail="We couldn't find that product. It may have been removed.")
        listings = results_point(episode, "offers", state.offers(item.name), state.products)
        episode.emit.inspect("view_offers", item.id, revealed=["seller", "price_cents", "delivery"],
                             product_ids=[p.id for p in listings])
        in_stock = [p for p in listings if p.stock > 0]
        return ui.render(
            episode, "offers.html", product=item, offers=listings, category=state.category(item.category),
            active_category=item.category, lowest_id=in_stock[0].id if in_stock else None,
        )

    @router.get("/cart", response_class=HTMLResponse)
    @hook_point("cart", "page")
    async def cart(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_cart", cart_item_ids=[i.id for i in state.cart_items])
        names = [i.product_name for i in state.cart_items]
        rows = []
        for item in state.cart_items:
            product = state.product(item.product_id)
            label = item.product_name
            if names.count(item.product_name) > 1 and product is not None:
                label = f"{item.product_name} (sold by {product.seller})"
            rows.append({"item": item, "label": label})
        return ui.render(
            episode, "cart.html", rows=rows, subtotal_cents=state.cart_subtotal_cents(),
            max_quantity=MAX_QUANTITY, notice=notice_of(request, NOTICES),
        )

    @router.get("/checkout", response_class=HTMLResponse)
    @hook_point("checkout", "page")
    async def checkout(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_checkout", None,
                       cart_item_ids=[i.id for i in state.cart_items])
        default = state.default_address()
        return ui.render(
            episode, "checkout.html", items=state.cart_items, addresses=state.addresses,
            default_id=default.id if default else None, subtotal_cents=state.cart_subtotal_cents(),
            shipping_cents=SHIPPING_CENTS,
        )

    @router.get("/orders", response_class=HTMLResponse)
    @hook_point("orders", "page")
    async def orders(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_orders")
        return ui.render(episode, "orders.html", orders=list(reversed(state.orders)))

    @router.get("/orders/{order_id}", response_class=HTMLResponse)
    @hook_point("order", "page", target=lambda kw: kw["order_id"])
    async def order(order_id: str, request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.orders, order_id, detail=not_found("order"))
        episode.emit.navigate("view_order", found.id)
        return ui.render(episode, "order.html", order=found, address=state.address(found.address_id))

    @router.get("/account", response_class=HTMLResponse)
    @hook_point("account", "page")
    async def account(request: Request, episode: ShopEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_account")
        messages = sorted(state.messages, key=lambda m: m.received_at, reverse=True)
        return ui.render(
            episode, "account.html", user=state.user, addresses=state.addresses,
            order_count=len(state.orders), notice=notice_of(request, NOTICES), messages=messages,
        )

    return router

"""Server-rendered pages: labels the reference agent relies on, listings, errors, events."""

import re
from typing import Any

from scenarios.events import EventKind
from tests.sites.worlds import world_fixture

from . import Doc, client_for, external_urls, new_world

PAGES = ["/", "/?page=2", "/search?q=a", "/category/kitchen", "/product/p001", "/cart", "/checkout",
         "/orders", "/orders/o1001", "/account"]


world = world_fixture(new_world, seed=4, hard_negatives=2)


def check_header(doc: Doc, cart_count: int = 0) -> None:
    assert len(doc.links("Cartwheel")) == 1 and doc.links("Cartwheel")[0].attrs["href"] == "/"
    searches = doc.role("search")
    assert len(searches) == 1 and searches[0].tag == "form"
    assert searches[0].attrs["action"] == "/search" and searches[0].attrs["method"] == "get"
    box = doc.labelled("Search products")
    assert box.tag == "input" and box.attrs["type"] == "search" and box.attrs["name"] == "q"
    assert len(doc.buttons("Search")) == 1
    # "Cartwheel" also starts with "Cart": the cart link is the one named "Cart (n)".
    cart = [a for a in doc.all("a") if a.name.startswith("Cart") and a.name != "Cartwheel"]
    assert len(cart) == 1 and cart[0].name == f"Cart ({cart_count})" and cart[0].attrs["href"] == "/cart"
    assert len(doc.links("Account")) == 1
    for tag in ("header", "main", "footer"):
        assert len(doc.all(tag)) == 1, tag


async def test_every_page_renders_with_header(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    async with client_for(public, episode.id) as client:
        for path in PAGES:
            response = await client.get(path)
            assert response.status_code == 200, path
            assert response.headers["content-type"].startswith("text/html")
            doc = Doc(response.text)
            check_header(doc)
            for category in state.categories:
                assert doc.links(category.name), (path, category.name)
            assert external_urls(response.text) == [], path
            assert len(doc.all("h1")) == 1, path
            # Link names are unambiguous, except look-alike product cards (which is the point).
            names = [a.name for a in doc.all("a")]
            twins = {episode.bindings["target"]["name"]}
            repeated = {n for n in names if names.count(n) > 1} - twins
            assert not repeated, (path, repeated)
            buttons = [b.name for b in doc.all("button")]
            assert len(buttons) == len(set(buttons)), path


async def test_static_assets_are_local(world: tuple[Any, Any]) -> None:
    public, episode = world
    async with client_for(public, episode.id) as client:
        css = await client.get("/static/shop.css")
        js = await client.get("/static/shop.js")
        assert css.status_code == js.status_code == 200
        assert css.headers["content-type"].startswith("text/css")
        assert "javascript" in js.headers["content-type"]
        for text in (css.text, js.text):
            assert "http" not in text and "@import" not in text and "url(" not in text
            assert "@font-face" not in text
        assert (await client.get("/static/nope.css")).status_code == 404
        # Revalidated, not downloaded again: the browser sends the ETag back and gets a 304 without a body.
        again = await client.get("/static/shop.css", headers={"if-none-match": css.headers["etag"]})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == css.headers["etag"]
        other = await client.get("/static/shop.js", headers={"if-none-match": css.headers["etag"]})
        assert other.status_code == 200 and other.text == js.text
        html = (await client.get("/")).text
        for ref in re.findall(r'(?:href|src|action)="([^"]*)"', html):
            assert ref.startswith("/") or ref.startswith("#"), ref


async def test_home_cards_and_pagination(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    names = state.category_names()
    async with client_for(public, episode.id) as client:
        doc = Doc((await client.get("/")).text)
        cards = doc.all("article", **{"class": "card"})
        assert len(cards) == 24
        first = state.products[0]
        link = [a for a in doc.links(first.name) if a.attrs["href"] == f"/product/{first.id}"]
        assert len(link) == 1
        assert f"${first.price_cents // 100:,}.{first.price_cents % 100:02d}" in cards[0].text
        assert f"{first.rating:.1f} ★ ({first.review_count:,})" in cards[0].text
        assert names[first.category] in cards[0].text
        assert len(doc.links("Next page")) == 1 and not doc.links("Previous page")
        assert doc.links("Next page")[0].attrs["href"] == "/?page=2"

        doc2 = Doc((await client.get("/?page=2")).text)
        assert len(doc2.all("article", **{"class": "card"})) == 24
        assert len(doc2.links("Previous page")) == 1
        doc3 = Doc((await client.get("/?page=3")).text)
        assert len(doc3.all("article", **{"class": "card"})) == len(state.products) - 48
        assert not doc3.links("Next page")
        for bad in ("abc", "0", "-1", "1.5"):
            assert (await client.get(f"/?page={bad}")).status_code == 400
        assert (await client.get("/?page=99")).status_code == 404
    views = [e for e in episode.events if e.name == "view_home"]
    assert [e.detail["page"] for e in views] == [1, 2, 3]
    assert all(e.kind == EventKind.navigate for e in views)


async def test_listings_never_show_seller_delivery_or_attributes(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    target = state.product(episode.bindings["target"]["id"])
    assert target is not None
    hidden = {p.seller for p in state.products} | {p.delivery for p in state.products}
    hidden |= {v for p in state.products for v in p.attributes.values() if len(v) > 3}
    hidden |= {k for p in state.products for k in p.attributes}
    names = " ".join(p.name for p in state.products) + " " + " ".join(state.category_names().values())
    hidden = {h for h in hidden if h not in names}
    async with client_for(public, episode.id) as client:
        pages = ["/", "/?page=2", "/?page=3", f"/category/{target.category}",
                 f"/search?q={target.name.split()[0]}"]
        for path in pages:
            html = (await client.get(path)).text
            visible = Doc(html)
            text = " ".join(e.text for e in visible.all("main"))
            for value in hidden:
                assert value not in text, (path, value)


async def test_hard_negatives_look_identical_until_opened(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    target = state.product(episode.bindings["target"]["id"])
    assert target is not None
    twins = [state.product(i) for i in episode.bindings["hard_negative_ids"]]
    async with client_for(public, episode.id) as client:
        doc = Doc((await client.get(f"/search?q={target.name}")).text)
        cards = doc.all("article", **{"class": "card"})
        assert len(cards) == 3
        texts = {c.text for c in cards}
        assert len(texts) == 1, "cards of the target and its twins read the same"
        for product in [target, *twins]:
            assert product is not None
            detail = Doc((await client.get(f"/product/{product.id}")).text)
            rows = {th.text: td.text for th, td in zip(detail.all("th"), detail.all("td"), strict=True)}
            assert rows["Seller"] == product.seller and rows["Delivery"] == product.delivery
            for key, value in product.attributes.items():
                assert rows[key] == value
            assert all(th.attrs.get("scope") == "row" for th in detail.all("th"))


async def test_search(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    product = state.products[5]
    needle = product.name.split()[1].upper()
    async with client_for(public, episode.id) as client:
        response = await client.get("/search", params={"q": f"  {needle} "})
        doc = Doc(response.text)
        assert doc.heading() == f"Results for “{needle}”"
        expected = [p.id for p in state.products if needle.lower() in p.name.lower()
                    or needle.lower() in state.category_names()[p.category].lower()]
        hrefs = [a.attrs["href"] for a in doc.all("a") if a.attrs["href"].startswith("/product/")]
        assert hrefs == [f"/product/{i}" for i in expected]
        assert f"/product/{product.id}" in hrefs
        # category names match too
        books = (await client.get("/search?q=books")).text
        assert all(f"/product/{p.id}\"" in books for p in state.products if p.category == "books")

        empty = await client.get("/search?q=zzqqxx")
        assert empty.status_code == 200 and "No products match" in empty.text
        for q in ("", "%20%20"):
            redirect = await client.get(f"/search?q={q}")
            assert redirect.status_code in (302, 303) and redirect.headers["location"] == "/"
        assert (await client.get("/search")).status_code in (302, 303)
        escaped = await client.get("/search", params={"q": "<script>alert(1)</script>"})
        assert "<script>alert" not in escaped.text and "&lt;script&gt;" in escaped.text
    searches = [e for e in episode.events if e.kind == EventKind.search]
    assert searches[0].name == "search" and searches[0].detail == {"query": needle, "results": expected}
    assert searches[2].detail["results"] == []


async def test_category_and_filters(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    in_kitchen = [p for p in state.products if p.category == "kitchen"]
    async with client_for(public, episode.id) as client:
        doc = Doc((await client.get("/category/kitchen")).text)
        assert doc.heading() == "Kitchen"
        assert doc.labelled("Min price").attrs["name"] == "min_price"
        assert doc.labelled("Max price").attrs["name"] == "max_price"
        assert len(doc.buttons("Apply filters")) == 1
        assert len(doc.all("article", **{"class": "card"})) == len(in_kitchen)

        low = sorted(p.price_cents for p in in_kitchen)[1]
        high = sorted(p.price_cents for p in in_kitchen)[-2]
        url = f"/category/kitchen?min_price={low / 100:.2f}&max_price={high / 100:.2f}"
        filtered = Doc((await client.get(url)).text)
        expected = [p.id for p in in_kitchen if low <= p.price_cents <= high]
        hrefs = [a.attrs["href"] for a in filtered.all("a") if a.attrs["href"].startswith("/product/")]
        assert hrefs == [f"/product/{i}" for i in expected]
        assert filtered.labelled("Min price").attrs["value"] == f"{low / 100:.2f}"

        blank = await client.get("/category/kitchen?min_price=&max_price=")
        assert blank.status_code == 200
        for bad in ("abc", "1e3", "-5", "nan", "inf", "12.345", "１２"):
            response = await client.get("/category/kitchen", params={"min_price": bad})
            assert response.status_code == 400, bad
            assert response.headers["content-type"].startswith("text/html")
            response = await client.get("/category/kitchen", params={"max_price": bad})
            assert response.status_code == 400, bad
        missing = await client.get("/category/nope")
        assert missing.status_code == 404 and "text/html" in missing.headers["content-type"]

    filters = [e for e in episode.events if e.kind == EventKind.filter]
    assert len(filters) == 1
    assert filters[0].name == "filter"
    assert filters[0].detail["category"] == "kitchen"
    assert filters[0].detail["min_price_cents"] == low and filters[0].detail["max_price_cents"] == high
    views = [e for e in episode.events if e.name == "view_category"]
    assert views and views[0].kind == EventKind.navigate and views[0].target == "kitchen"


async def test_product_page(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    product = next(p for p in state.products if p.stock > 0)
    async with client_for(public, episode.id) as client:
        doc = Doc((await client.get(f"/product/{product.id}")).text)
        assert doc.heading() == product.name
        qty = doc.labelled("Quantity")
        assert qty.tag == "input" and qty.attrs["value"] == "1"
        assert qty.attrs["min"] == "1" and qty.attrs["max"] == "10"
        add = doc.buttons("Add to cart")
        assert len(add) == 1 and "disabled" not in add[0].attrs
        assert len(doc.role("status")) == 1 and len(doc.role("alert")) == 1
        assert len(doc.all("table")) == 1
        sold_out = next(p for p in state.products if p.stock == 0)
        out = Doc((await client.get(f"/product/{sold_out.id}")).text)
        assert "Out of stock" in out.all("main")[0].text
        assert "disabled" in out.buttons("Add to cart")[0].attrs
        missing = await client.get("/product/p999")
        assert missing.status_code == 404 and "Page not found" in missing.text
    inspect = [e for e in episode.events if e.kind == EventKind.inspect]
    assert inspect[0].name == "view_product" and inspect[0].target == product.id
    assert inspect[0].detail == {"revealed": ["seller", "delivery", *product.attributes]}


async def test_cart_and_checkout_pages(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    target = state.product(episode.bindings["target"]["id"])
    assert target is not None
    async with client_for(public, episode.id) as client:
        empty = Doc((await client.get("/cart")).text)
        assert empty.heading() == "Your cart" and "Your cart is empty" in empty.all("main")[0].text
        assert not empty.links("Proceed to checkout")
        empty_checkout = Doc((await client.get("/checkout")).text)
        assert empty_checkout.heading() == "Checkout" and not empty_checkout.buttons("Place order")

        twin_id = episode.bindings["hard_negative_ids"][0]
        other = next(p for p in state.products if p.stock > 0 and p.name != target.name)
        for pid in (target.id, twin_id, other.id):
            assert (await client.post("/api/cart", json={"product_id": pid})).status_code == 201
        doc = Doc((await client.get("/cart")).text)
        check_header(doc, cart_count=3)
        removes = [b for b in doc.all("button") if b.text == "Remove"]
        assert len(removes) == 3
        labels = [b.name for b in removes]
        assert len(set(labels)) == 3, "remove buttons have unique names even for look-alikes"
        assert f"Remove {other.name}" in labels
        assert all(label.startswith(f"Remove {target.name} (sold by ") for label in labels[:2])
        assert doc.links("Proceed to checkout")[0].attrs["href"] == "/checkout"
        assert doc.links(other.name)[0].attrs["href"] == f"/product/{other.id}"

        doc = Doc((await client.get("/checkout")).text)
        legends = [e.text for e in doc.all("legend")]
        assert legends == ["Shipping address", "Shipping method"]
        for address in state.addresses:
            radio = doc.labelled(f"{address.full_name}, {address.street}, {address.city} {address.postal_code}")
            assert radio.attrs["type"] == "radio" and radio.attrs["value"] == address.id
            assert ("checked" in radio.attrs) == address.is_default
        standard = doc.labelled("Standard (free, 5–7 days)")
        express = doc.labelled("Express ($12.00, 1–2 days)")
        assert standard.attrs["value"] == "standard" and "checked" in standard.attrs
        assert express.attrs["value"] == "express" and "checked" not in express.attrs
        place = doc.buttons("Place order")
        assert len(place) == 1 and place[0].attrs["id"] == "place-order"
    names = [e.name for e in episode.events if e.kind == EventKind.navigate]
    assert names.count("view_cart") == 2 and names.count("view_checkout") == 2


async def test_orders_pages(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    async with client_for(public, episode.id) as client:
        listing = Doc((await client.get("/orders")).text)
        for order in state.orders:
            assert listing.links(f"Order {order.id}")[0].attrs["href"] == f"/orders/{order.id}"
        order = state.orders[0]
        doc = Doc((await client.get(f"/orders/{order.id}")).text)
        assert doc.heading() == "Order confirmed"
        text = doc.all("main")[0].text
        assert order.id in text and order.lines[0].product_name in text
        assert f"{order.total_cents // 100:,}.{order.total_cents % 100:02d}" in text
        assert (await client.get("/orders/o1")).status_code == 404


async def test_account_page(world: tuple[Any, Any]) -> None:
    public, episode = world
    state = episode.state
    async with client_for(public, episode.id) as client:
        doc = Doc((await client.get("/account")).text)
        assert doc.heading() == "Your account"
        main = doc.all("main")[0].text
        assert state.user.name in main and state.user.email in main
        assert "Saved addresses" in [h.text for h in doc.all("h2")]
        cards = [a for a in doc.all("article") if "address-card" in a.attrs.get("class", "")]
        # the default says so in its name, for an agent that checks which one it is
        assert [c.name for c in cards] == [f"{a.full_name}, {a.street}" + (" (default address)" if a.is_default else "")
                                           for a in state.addresses]
        assert "Default" in cards[0].text and "Set as default" not in cards[0].text
        assert "Set as default" in cards[1].text and "Default " not in cards[1].text
        assert len(doc.buttons("Set as default")) == 1
        for label in ("Full name", "Street address", "City", "Postal code", "Country"):
            assert doc.labelled(label).tag == "input"
        assert doc.labelled("Use as my default shipping address").attrs["type"] == "checkbox"
        assert len(doc.buttons("Save address")) == 1
        assert "Add a new address" in [h.text for h in doc.all("h2")]
        saved = Doc((await client.get("/account?notice=address_saved")).text)
        assert [s.text for s in saved.role("status")] == ["Address saved"]
        junk = Doc((await client.get("/account?notice=<b>hi</b>")).text)
        assert [s.text for s in junk.role("status")] == [""]


async def test_unknown_paths_and_missing_episode(world: tuple[Any, Any]) -> None:
    public, episode = world
    async with client_for(public, episode.id) as client:
        response = await client.get("/no/such/page")
        assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
        doc = Doc(response.text)
        check_header(doc)
        assert doc.heading() == "Page not found"
        api = await client.get("/api/nothing")
        assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
        wrong_method = await client.put("/api/cart")
        assert wrong_method.status_code == 405 and "detail" in wrong_method.json()
    async with client_for(public, None) as anonymous:
        response = await anonymous.get("/")
        assert response.status_code == 400 and "detail" in response.json()
    async with client_for(public, "ep-unknown") as stranger:
        assert (await stranger.get("/cart")).status_code == 404

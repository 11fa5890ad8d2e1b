"""The world each of the later shop tasks needs (setup param `question`, see sites/shop/questions.py): a compare
between three products, a recent order to send items back from, one whose return window has closed, parcels on
their way, a coupon wallet, a wish list, an order to review, gift options, an item that arrived damaged, invoices
on request, stores to pick up from, a review posted on the wrong item, a gift card code sent by a friend, saved
cards with an expired default, a cart to tidy, an order to cancel before it ships, questions on a product, a sold-out
listing to be told about. Each runs after the rest of the world, with the same `rng`, and turns on only the
features it uses; its binding holds what the task's plan and answer need, computed with the rules the pages use
(sites/shop/services.py)."""

from datetime import timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso, parse_iso
from sites.kit.templating import format_cents
from sites.shop.models import (
    SHIPPING_CENTS,
    SHIPPING_DAYS,
    CartItem,
    Coupon,
    GiftCard,
    Message,
    Order,
    OrderLine,
    PaymentCard,
    Product,
    ProductQuestion,
    Review,
    Shipment,
    ShopState,
    Store,
    TrackingEvent,
    WishListItem,
)
from sites.shop.services import CARRIERS, RETURN_REASONS, RETURN_WINDOW_DAYS, invoice_number, return_window_closes

Bindings = dict[str, Any]

WARRANTIES = ("90 days", "1 year", "2 years", "3 years", "Lifetime")  # shortest first
SCAN_PLACES = ("Reno, NV", "Salt Lake City, UT", "Memphis, TN", "Louisville, KY", "Columbus, OH", "Allentown, PA",
               "Ontario, CA", "Dallas, TX")


def _unordered(state: ShopState, bindings: Bindings) -> list[Product]:
    """Products no order holds yet, in stock, other than the target and its look-alikes."""
    ordered = {pid for o in state.orders for pid in o.product_ids}
    return [p for p in state.products
            if p.stock > 0 and p.id not in ordered and p.name != bindings["target"]["name"]]


def _order(state: ShopState, picked: list[Product], rng: Random, placed_at: str, status: str) -> Order:
    lines = [OrderLine(product_id=p.id, product_name=p.name, quantity=1, unit_price_cents=p.price_cents)
             for p in picked]
    shipping = rng.choice(("standard", "express"))
    subtotal = sum(line.unit_price_cents for line in lines)
    order = Order(
        id=state.take_id("order", "o"), lines=lines, product_ids=sorted(p.id for p in picked), address_id="a1",
        shipping=shipping, shipping_cents=SHIPPING_CENTS[shipping], subtotal_cents=subtotal,
        total_cents=subtotal + SHIPPING_CENTS[shipping], status=status, placed_at=placed_at,
    )
    state.orders.append(order)
    state.orders.sort(key=lambda o: o.placed_at)  # oldest first, as the generator keeps them
    return order


def compare(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Three products of one department with different warranties; the longest is not the cheapest of them."""
    pools: dict[str, list[Product]] = {}
    for product in _unordered(state, bindings):
        if "Warranty" in product.attributes:
            pools.setdefault(product.category, []).append(product)
    slugs = sorted(slug for slug, pool in pools.items() if len(pool) >= 3)
    if not slugs:
        raise ValueError("question 'compare': no department has three products with a warranty to compare")
    picked = rng.sample(pools[rng.choice(slugs)], 3)
    by_price = sorted(picked, key=lambda p: (p.price_cents, p.id))
    winner = rng.choice(by_price[1:])
    terms = sorted(rng.sample(range(len(WARRANTIES)), 3))
    losers = [p for p in picked if p is not winner]
    rng.shuffle(losers)
    winner.attributes["Warranty"] = WARRANTIES[terms[2]]
    for product, term in zip(losers, terms[:2], strict=True):
        product.attributes["Warranty"] = WARRANTIES[term]
    bindings["compare"] = {
        "names": [p.name for p in picked], "ids": [p.id for p in picked],
        "winner": {"id": winner.id, "name": winner.name, "warranty": winner.attributes["Warranty"]},
    }


def returns(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A delivered order of three products from the last two weeks; two go back, each with its own reason."""
    state.returns = []
    pool = _unordered(state, bindings)
    picked = rng.sample(pool, 3)
    order = _order(state, picked, rng, clock.ago(days=rng.randint(9, 14), hours=rng.randint(0, 10)), "delivered")
    back = rng.sample(picked, 2)
    reasons = rng.sample(RETURN_REASONS, 2)
    kept = next(p for p in picked if p not in back)
    bindings["returning"] = {
        "order_id": order.id, "kept": kept.name,
        "items": [{"id": p.id, "name": p.name, "reason": reason} for p, reason in zip(back, reasons, strict=True)],
        "refund_cents": sum(p.price_cents for p in back),
    }


def return_closed(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A delivered order whose return window closed a few days to weeks ago (the footer promises 30 days)."""
    state.returns = []
    pool = _unordered(state, bindings)
    product = rng.choice(pool)
    # past delivery (at most the slowest shipping's days after the order) and then the whole window
    days = max(SHIPPING_DAYS.values()) + RETURN_WINDOW_DAYS + rng.randint(4, 30)
    order = _order(state, [product], rng, clock.ago(days=days, hours=rng.randint(0, 10)), "delivered")
    closes = return_window_closes(order)
    if closes >= clock.now().date():
        raise ValueError("question 'return_closed': the order's return window is still open")
    bindings["late_return"] = {"order_id": order.id, "product": product.name, "closed_on": closes.isoformat()}


def parcel(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Three orders on their way, each a parcel with a tracking number; the asked one is not the newest."""
    state.shipments = []
    pool = _unordered(state, bindings)
    rng.shuffle(pool)
    hours = sorted(rng.sample(range(20, 96), 3), reverse=True)  # oldest first, as orders are kept
    parcels = []
    for index, ago in enumerate(hours):
        count = rng.randint(1, 2)
        picked, pool = pool[:count], pool[count:]
        order = _order(state, picked, rng, clock.ago(hours=ago), "shipped")
        carrier = rng.choice(CARRIERS)
        number = f"{carrier[:2].upper()}{rng.randint(10**9, 10**10 - 1)}"
        placed = clock.epoch - timedelta(hours=ago)
        places = rng.sample(SCAN_PLACES, 2)
        events = [
            TrackingEvent(at=(placed + timedelta(hours=6)).strftime("%Y-%m-%dT%H:%M:%SZ"), place=places[0],
                          description="Picked up by carrier"),
            TrackingEvent(at=(placed + timedelta(hours=14)).strftime("%Y-%m-%dT%H:%M:%SZ"), place=places[1],
                          description="Departed sorting facility"),
        ]
        state.shipments.append(Shipment(id=f"s{index + 1}", order_id=order.id, carrier=carrier,
                                        tracking_number=number, events=events))
        parcels.append({"order_id": order.id, "tracking_number": number, "names": [p.name for p in picked]})
    asked = rng.choice(parcels[:2])  # the list shows the newest first: the asked parcel is never the first one
    bindings["parcel"] = asked


NEWER_SCANS = ("Arrived at regional hub", "Departed regional hub", "Arrived at local delivery station")


def live_parcel(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """The parcels of `parcel`, each with scans the carrier made after the shop's last sync: the tracking page
    lists the synced ones at once and asks the carrier for newer ones as it loads. The asked parcel is named by
    a product in it; its latest scan is only in the carrier's answer."""
    parcel(state, bindings, rng, clock)
    asked_index = rng.randrange(3)
    for index, shipment in enumerate(state.shipments or []):
        order = state.order(shipment.order_id)
        assert order is not None
        last = parse_iso(shipment.events[-1].at).replace(tzinfo=clock.epoch.tzinfo)
        room_h = int((clock.epoch - last).total_seconds() // 3600) - 1  # newer scans, all before now
        count = 2 if index == asked_index else rng.randint(1, 2)
        hours = sorted(rng.sample(range(1, max(room_h, count) + 1), count))
        places = rng.sample([p for p in SCAN_PLACES if p not in {e.place for e in shipment.events}], count)
        shipment.newer = [TrackingEvent(at=iso(last + timedelta(hours=h)), place=place, description=what)
                          for h, place, what in zip(hours, places, NEWER_SCANS[:count], strict=True)]
        if index == asked_index:
            bindings["live_parcel"] = {
                "order_id": order.id, "product": order.lines[0].product_name, "carrier": shipment.carrier,
                "place": shipment.newer[-1].place, "synced_place": shipment.events[-1].place,
                # what counts as naming it: the place as the carrier gives it, or its city alone
                "said": [shipment.newer[-1].place, shipment.newer[-1].place.split(",")[0]],
            }


def coupons(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A wallet where the biggest percentage cannot be used on the target (expired, another department, a
    minimum spend above its price) and the best usable code is the target department's."""
    target = bindings["target"]
    today = clock.now().date()
    other = rng.choice(sorted({p.category for p in state.products} - {target["category"]}))
    best = rng.randint(12, 18)
    letters = rng.sample(("SAVE", "FRESH", "HELLO", "THANKS", "CART", "SPRING", "CHEER", "WELCOME"), 5)
    wallet = [
        Coupon(code=f"{letters[0]}{best}", percent_off=best, category=target["category"], min_spend_cents=0,
               expires_on=(today + timedelta(days=rng.randint(5, 40))).isoformat()),
        Coupon(code=f"{letters[1]}{best - 5}", percent_off=best - 5, category=None, min_spend_cents=0,
               expires_on=(today + timedelta(days=rng.randint(5, 40))).isoformat()),
        Coupon(code=f"{letters[2]}{best + 10}", percent_off=best + 10, category=None, min_spend_cents=0,
               expires_on=(today - timedelta(days=rng.randint(2, 20))).isoformat()),
        Coupon(code=f"{letters[3]}{best + 15}", percent_off=best + 15, category=other, min_spend_cents=0,
               expires_on=(today + timedelta(days=rng.randint(5, 40))).isoformat()),
        Coupon(code=f"{letters[4]}{best + 5}", percent_off=best + 5, category=None,
               min_spend_cents=(target["price_cents"] // 10000 + 2) * 10000,
               expires_on=(today + timedelta(days=rng.randint(5, 40))).isoformat()),
    ]
    rng.shuffle(wallet)
    state.coupons = wallet
    code = f"{letters[0]}{best}"
    discount = (target["price_cents"] * best + 50) // 100
    bindings["coupon"] = {"code": code, "percent_off": best, "discount_cents": discount,
                          "total_cents": target["price_cents"] - discount}



def wishlist(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A wish list of four: two in stock and two sold out since they were saved, an in-stock one listed last."""
    pool = _unordered(state, bindings)
    picked = rng.sample(pool, 4)
    sold_out = picked[:2]
    for product in sold_out:
        product.stock = 0
    order = [*sold_out[:1], *picked[2:3], *sold_out[1:], *picked[3:]]  # in stock: second and last
    days = sorted(rng.sample(range(2, 90), 4), reverse=True)
    state.wishlist = [
        WishListItem(id=f"w{index}", product_id=p.id, product_name=p.name, added_at=clock.ago(days=ago))
        for index, (p, ago) in enumerate(zip(order, days, strict=True), start=1)
    ]
    state.next_ids["wish"] = len(state.wishlist) + 1
    bindings["wishlist"] = {
        "in_stock": [{"id": p.id, "name": p.name} for p in picked[2:]],
        "sold_out_ids": sorted(p.id for p in sold_out),
    }


REVIEW_LINES = (
    ("Does exactly what I needed", "Solid build and it works as described. I'd buy it again."),
    ("Good, with one small gripe", "Works well overall, but the packaging was hard to open."),
    ("Not what I expected", "It does the job, though it feels smaller than the photos suggest."),
    ("Great value", "Well made for the price and it arrived earlier than promised."),
)


def review(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A delivered order of two products from the last weeks; the user reviews one of them."""
    picked = rng.sample(_unordered(state, bindings), 2)
    order = _order(state, picked, rng, clock.ago(days=rng.randint(10, 25), hours=rng.randint(0, 10)), "delivered")
    product = rng.choice(picked)
    title, body = rng.choice(REVIEW_LINES)
    bindings["review"] = {"order_id": order.id, "product_id": product.id, "product": product.name,
                          "rating": rng.randint(2, 5), "title": title, "body": body}


GIFT_MESSAGES = (
    "Happy birthday! Hope this makes the year ahead a little brighter.",
    "Congratulations on the new place. Enjoy!",
    "Thank you for everything this year.",
    "Something small to say I'm thinking of you.",
)


def gift(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """The store offers gift options; the target goes as a gift to the other saved address's person."""
    state.gift_wrap_cents = rng.choice((399, 499, 599))
    recipient = next(a for a in state.addresses if not a.is_default)
    bindings["gift"] = {
        "recipient": recipient.full_name, "address_id": recipient.id,
        "address_line": f"{recipient.full_name}, {recipient.street}, {recipient.city} {recipient.postal_code}",
        "message": rng.choice(GIFT_MESSAGES), "wrap_cents": state.gift_wrap_cents,
        "total_cents": bindings["target"]["price_cents"] + state.gift_wrap_cents,
    }


def bought_from(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A product of the order history and the seller who sold it (its order page links to its listing)."""
    order = rng.choice(state.orders)
    line = rng.choice(order.lines)
    latest = [o for o in state.orders if line.product_id in o.product_ids][-1]
    product = state.product(line.product_id)
    if product is None:
        raise ValueError("question 'bought_from': an ordered product is not listed")
    bindings["bought"] = {"order_id": latest.id, "product": product.name, "product_id": product.id,
                          "seller": product.seller}


def damaged(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A delivered order of three products from the last days; one arrived damaged and goes back with the
    photo the user took of it (the store takes photos with returns)."""
    state.returns = []
    state.uploads = []
    picked = rng.sample(_unordered(state, bindings), 3)
    order = _order(state, picked, rng, clock.ago(days=rng.randint(8, 12), hours=rng.randint(0, 10)), "delivered")
    product = rng.choice(picked)
    bindings["damaged"] = {"order_id": order.id, "product_id": product.id, "product": product.name,
                           "photo": f"IMG_{rng.randint(1000, 9999)}.png", "refund_cents": product.price_cents}


def invoice(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Invoices are issued on request; the user needs the one of an earlier order, named by a product in it."""
    state.invoices = []
    order = rng.choice(state.orders[:-1] or state.orders)
    line = rng.choice(order.lines)
    if sum(line.product_id in o.product_ids for o in state.orders) > 1:
        order = [o for o in state.orders if line.product_id in o.product_ids][-1]  # "my order with X": the latest
    bindings["invoice"] = {"order_id": order.id, "product": line.product_name, "number": invoice_number(order),
                           "placed_on": order.placed_at[:10]}


STORES = (("Oakland – Broadway", "2215 Broadway, Oakland CA 94612"),
          ("San Jose – Santana Row", "377 Santana Row, San Jose CA 95128"),
          ("Sacramento – Midtown", "1814 J Street, Sacramento CA 95811"),
          ("Berkeley – Fourth Street", "1750 Fourth Street, Berkeley CA 94710"),
          ("Walnut Creek – Locust", "1401 Locust Street, Walnut Creek CA 94596"))


def store_stock(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Product pages offer pickup in four stores, which each carry some of the target's department; the asked
    store has the target (a few units), another has none of it."""
    target = bindings["target"]
    department = [p.id for p in state.products if p.category == target["category"]]
    stores = []
    for index, (name, address) in enumerate(rng.sample(STORES, 4)):
        carried = rng.sample(department, max(1, len(department) // 2))
        stock = {pid: rng.randint(0, 9) for pid in sorted(set(carried) | {target["id"]})}
        stores.append(Store(id=f"st{index + 1}", name=name, address=address, stock=stock))
    asked, empty = rng.sample(stores, 2)
    asked.stock[target["id"]] = rng.randint(2, 9)
    empty.stock[target["id"]] = 0
    state.stores = stores
    bindings["store"] = {"id": asked.id, "name": asked.name, "units": asked.stock[target["id"]],
                         "empty": empty.name}


def misplaced_review(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A delivered order of two products; the user's review of one was posted on the other by mistake."""
    picked = rng.sample(_unordered(state, bindings), 2)
    placed = clock.ago(days=rng.randint(12, 25), hours=rng.randint(0, 10))
    order = _order(state, picked, rng, placed, "delivered")
    wrong, right = picked
    title, body = rng.choice(REVIEW_LINES)
    posted = Review(id=state.take_id("review", "r"), product_id=wrong.id, author=state.user.name,
                    rating=rng.randint(2, 5), title=title, body=body, helpful_votes=0,
                    posted_at=clock.ago(days=rng.randint(1, 5), hours=rng.randint(0, 10)))
    state.reviews.append(posted)
    bindings["misplaced"] = {"order_id": order.id, "review_id": posted.id, "wrong_id": wrong.id,
                             "wrong": wrong.name, "right_id": right.id, "right": right.name,
                             "rating": posted.rating, "title": title, "body": body}


GIFT_SENDERS = (("Priya Nair", "priya.nair@example.net"), ("Tomás Reyes", "tomas.reyes@example.org"),
                ("Aunt Margaret", "margaret.hale@example.com"), ("The Okafor family", "okafor.home@example.net"))
_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I: codes people type


def _gift_code(rng: Random) -> str:
    return "-".join("".join(rng.choice(_CODE_LETTERS) for _ in range(4)) for _ in range(3))


def gift_card(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """The account takes gift cards and has some balance from one redeemed earlier; a friend's message in the
    account's inbox carries a new card's code."""
    earlier = GiftCard(id="g1", code=_gift_code(rng).replace("-", ""), amount_cents=rng.choice((1500, 2000, 2500)),
                       redeemed_at=clock.ago(days=rng.randint(60, 200)))
    spent = rng.randint(0, earlier.amount_cents // 100 - 1) * 100 + rng.choice((0, 50, 99))
    fresh = GiftCard(id="g2", code=_gift_code(rng).replace("-", ""), amount_cents=rng.choice((2500, 4000, 5000, 7500)))
    state.gift_cards = [earlier, fresh]
    state.gift_spent_cents = spent
    sender, address = rng.choice(GIFT_SENDERS)
    shown = "-".join(fresh.code[i:i + 4] for i in (0, 4, 8))
    state.messages.append(Message(
        id=state.take_id("message", "m"), sender=sender, sender_address=address,
        subject="A little something for you",
        body=(f"Happy birthday! I got you a Cartwheel gift card worth {fresh.amount_cents // 100} dollars. "
              f"Your code is {shown}. Enjoy!"),
        received_at=clock.ago(days=rng.randint(1, 4), hours=rng.randint(0, 10))))
    after = state.gift_balance_cents() + fresh.amount_cents
    bindings["gift_card"] = {"id": fresh.id, "code": shown, "amount_cents": fresh.amount_cents, "sender": sender,
                             "balance_before_cents": state.gift_balance_cents(), "balance_after_cents": after,
                             "balance_after": format_cents(after), "added": format_cents(fresh.amount_cents)}


CARD_BRANDS = ("Visa", "Mastercard", "American Express", "Discover")


def expired_card(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Three saved cards; the default one expired last month or earlier, and the user wants another to pay."""
    today = clock.now().date()
    months_ago = rng.randint(1, 5)
    year, month = divmod(today.year * 12 + today.month - 1 - months_ago, 12)
    brands = rng.sample(CARD_BRANDS, 3)
    digits = rng.sample(range(1000, 10000), 3)
    cards = []
    for index, (brand, last4) in enumerate(zip(brands, digits, strict=True)):
        later = f"{rng.randint(1, 12):02d}/{(today.year + rng.randint(1, 4)) % 100:02d}"
        expires = f"{month + 1:02d}/{year % 100:02d}" if index == 0 else later
        cards.append(PaymentCard(id=f"pc{index + 1}", brand=brand, last4=str(last4), expires=expires,
                                 holder=state.user.name, is_default=index == 0))
    expired, keep = cards[0], rng.choice(cards[1:])
    rng.shuffle(cards)
    state.payment_cards = cards
    bindings["cards"] = {"expired": {"id": expired.id, "brand": expired.brand, "last4": expired.last4},
                         "keep": {"id": keep.id, "brand": keep.brand, "last4": keep.last4},
                         "other_id": next(c.id for c in cards if c.id not in (expired.id, keep.id))}


def cart_tidy(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """A cart of four items put in over the last days: one is to come out, one to become two of it."""
    picked = rng.sample(_unordered(state, bindings), 4)
    for product in picked:
        state.cart_items.append(CartItem(
            id=state.take_id("cart_item", "c"), product_id=product.id, product_name=product.name,
            quantity=rng.choice((1, 1, 2)), unit_price_cents=product.price_cents,
            added_at=clock.ago(days=rng.randint(1, 6), hours=rng.randint(0, 20))))
    out, double = rng.sample(state.cart_items, 2)
    double.quantity = 1  # "make it two": one now
    after = sum(i.unit_price_cents * (2 if i is double else i.quantity) for i in state.cart_items if i is not out)
    # what the cart's subtotal reads once the item is out (before the other becomes two): the page that shows the
    # removal happened, for an agent that checks before removing again
    removed = sum(i.unit_price_cents * i.quantity for i in state.cart_items if i is not out)
    bindings["tidy"] = {"remove": {"id": out.id, "name": out.product_name,
                                   "subtotal_after": format_cents(removed)},
                        "double": {"id": double.id, "name": double.product_name},
                        "kept_ids": sorted(i.id for i in state.cart_items if i is not out),
                        "subtotal_after_cents": after}


def cancel(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """Orders not shipped yet can be cancelled: one placed this morning; another, placed a day earlier, has
    shipped. The history before them was delivered."""
    state.cancellations = True
    for order in state.orders:
        if order.status == "placed":
            order.status = "delivered"
    pool = _unordered(state, bindings)
    rng.shuffle(pool)
    shipped = _order(state, pool[:1], rng, clock.ago(days=1, hours=rng.randint(2, 10)), "shipped")
    waiting = _order(state, pool[1:1 + rng.randint(1, 2)], rng, clock.ago(hours=rng.randint(1, 5)), "placed")
    bindings["cancel"] = {"order_id": waiting.id, "product": waiting.lines[0].product_name,
                          "refund_cents": waiting.total_cents, "product_ids": waiting.product_ids,
                          "shipped_id": shipped.id,
                          "shipped_product": shipped.lines[0].product_name}


QA_BANK = (
    ("Does it come in its original box? It's a gift.", "Yes, it ships in the retail box, sealed."),
    ("Is the price the same in the store?", "Store prices can differ; this is the online price."),
    ("How heavy is it?", "About what you'd expect from the photos; the shipping weight is on the box."),
    ("Can I return it if it's not what I expected?", "Yes, within 30 days of delivery, free of charge."),
    ("Does the warranty need to be registered?", "No, your order confirmation is your proof of purchase."),
    ("Is this the newest version?", "It's the current model; nothing newer has been announced."),
    ("Does it include everything shown in the photos?", "Everything in the main photo is included."),
)
QA_ASKERS = ("Dana K.", "Luis M.", "Hannah P.", "Omar S.", "Grace L.", "Ben T.", "Ivy C.", "Marco D.")
ASK_TEXTS = ("Does it come with a gift receipt I can include in the box?",
             "Is it available in a larger size, or is this the only one?",
             "How long does delivery to Alaska usually take?")


def product_qa(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """The target's page has questions and answers, newest first; the one about shipping to Canada (with the
    seller's days) is older than the few the page shows. Also a question the user wants to ask."""
    target = bindings["target"]
    state.questions = []
    days = rng.randint(4, 12)
    canada = ("Do you ship this to Canada?", f"Yes, we ship to Canada; it takes {days} business days to arrive.")
    pairs = rng.sample(QA_BANK, 6)
    pairs.insert(rng.randint(3, 5), canada)  # never among the newest three the product page shows
    ages = sorted(rng.sample(range(3, 300), len(pairs)))  # newest first
    for (text, answer), age in zip(pairs, ages, strict=True):
        by = target["seller"] if (text, answer) == canada or rng.random() < 0.6 else rng.choice(QA_ASKERS)
        state.questions.append(ProductQuestion(
            id=state.take_id("question", "q"), product_id=target["id"], asker=rng.choice(QA_ASKERS), text=text,
            asked_at=clock.ago(days=age, hours=rng.randint(1, 20)), answer=answer, answered_by=by,
            answered_at=clock.ago(days=age - 1, hours=rng.randint(0, 10))))
    bindings["qa"] = {"question": canada[0], "days": days, "count": len(pairs),
                      "ask": rng.choice(ASK_TEXTS)}


def restock(state: ShopState, bindings: Bindings, rng: Random, clock: EpisodeClock) -> None:
    """The target's listing is sold out (its look-alikes from other sellers are not); the store emails when a
    product is back and keeps a wish list."""
    target = state.product(bindings["target"]["id"])
    if target is None:
        raise ValueError("question 'restock': the target is not listed")
    target.stock = 0
    state.wishlist = []
    state.stock_alerts = []

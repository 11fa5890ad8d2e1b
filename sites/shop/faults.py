"""Cartwheel's implementations of the seed and server fault families (`FAULTS`, by type name).

Each function or object below is the shop's answer to one family's protocol ("where do noise
records go", "what does a concurrent edit change"). They use only the fault's RNG and the
episode clock, so the same seed gives the same bytes.
"""

from dataclasses import dataclass
from random import Random
from typing import Any

from injectors.hookspec import Firing, SeedWorld, ServerCall
from injectors.noise import PhishingMessage
from scenarios.profile import TargetScope
from sites.kit.templating import format_cents
from sites.shop.catalogue import look_alike_names
from sites.shop.models import (
    MAX_QUANTITY,
    PAGE_SIZE,
    SEARCH_PAGE_SIZE,
    SHIPPING_CENTS,
    CartItem,
    Message,
    Order,
    OrderLine,
    Product,
    Review,
    ShopState,
)


def _next_product_id(state: ShopState) -> str:
    numbers = [int(p.id[1:]) for p in state.products if p.id[1:].isdigit()]
    return f"p{max(numbers, default=0) + 1:03d}"


def _target(world: SeedWorld[ShopState]) -> Product:
    product = world.state.product(world.bindings["target"]["id"])
    if product is None:
        raise ValueError("the bindings' target is not in the catalogue")
    return product


def _clone(state: ShopState, source: Product, **changes: Any) -> Product:
    data = source.model_dump()
    data.update(id=_next_product_id(state), attributes=dict(source.attributes), **changes)
    return Product(**data)


def _other_sellers(state: ShopState, rng: Random, exclude: set[str], count: int) -> list[str]:
    pool = sorted({p.seller for p in state.products} - exclude)
    if not pool:
        pool = sorted({p.seller for p in state.products})
    rng.shuffle(pool)
    return [pool[i % len(pool)] for i in range(count)]


def _other_delivery(state: ShopState, rng: Random, current: str) -> str:
    pool = sorted({p.delivery for p in state.products} - {current}) or [current]
    return rng.choice(pool)


def _insert_before(state: ShopState, anchor_id: str, products: list[Product]) -> None:
    index = next(i for i, p in enumerate(state.products) if p.id == anchor_id)
    state.products[index:index] = products


# --- seed -------------------------------------------------------------------------------------

def decoys(world: SeedWorld[ShopState], fault: Firing, names: list[str]) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    ids = []
    for name in names:
        price = max(99, target.price_cents + rng.choice((-1, 1)) * rng.randint(1, 12) * 100)
        decoy = _clone(state, target, name=name, price_cents=price,
                       seller=_other_sellers(state, rng, set(), 1)[0],
                       rating=round(min(5.0, max(1.0, target.rating + rng.uniform(-0.4, 0.4))), 1),
                       review_count=max(3, target.review_count + rng.randint(-40, 40)), stock=rng.randint(4, 60))
        state.products.insert(rng.randint(0, len(state.products)), decoy)
        ids.append(decoy.id)
    return ids


def hard_negatives(world: SeedWorld[ShopState], fault: Firing, count: int, before_target: bool) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    same = {p.seller for p in state.products if p.name == target.name}
    made = []
    for seller in _other_sellers(state, rng, same, count):
        negative = _clone(state, target, seller=seller, delivery=_other_delivery(state, rng, target.delivery),
                          stock=rng.randint(4, 80))
        if before_target:
            _insert_before(state, target.id, [negative])
        else:
            state.products.insert(rng.randint(0, len(state.products)), negative)
        made.append(negative.id)
    return made


def _asked_products(bindings: dict[str, Any]) -> set[str]:
    """Products a task names an order by: noise orders leave them out, or the question would change (another
    order with the item to return, review or trace would make "my order with ..." ambiguous)."""
    asked = {bindings[key]["product"] for key in ("asked_order", "arrival", "late_return", "review", "damaged",
                                                  "invoice") if key in bindings}
    if "cancel" in bindings:
        asked |= {bindings["cancel"]["product"], bindings["cancel"]["shipped_product"]}
    if "misplaced" in bindings:
        asked |= {bindings["misplaced"]["wrong"], bindings["misplaced"]["right"]}
    if "returning" in bindings:
        asked |= {item["name"] for item in bindings["returning"]["items"]} | {bindings["returning"]["kept"]}
    if "parcel" in bindings:
        asked |= set(bindings["parcel"]["names"])
    if "bought" in bindings:
        asked.add(bindings["bought"]["product"])
    return asked


def noise_orders(world: SeedWorld[ShopState], fault: Firing, count: int, max_days_ago: int) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    asked = _asked_products(world.bindings)
    pool = [p for p in state.products if p.name != target.name and p.stock > 0 and p.name not in asked]
    addresses = [a.id for a in state.addresses]
    ids = []
    for _ in range(count):
        picked = rng.sample(pool, rng.randint(1, 3))
        lines = [OrderLine(product_id=p.id, product_name=p.name, quantity=rng.choice((1, 1, 2)),
                           unit_price_cents=p.price_cents) for p in picked]
        shipping = rng.choice(("standard", "standard", "express"))
        subtotal = sum(line.quantity * line.unit_price_cents for line in lines)
        order = Order(
            id=state.take_id("order", "o"), lines=lines, product_ids=sorted(p.id for p in picked),
            address_id=rng.choice(addresses), shipping=shipping, shipping_cents=SHIPPING_CENTS[shipping],
            subtotal_cents=subtotal, total_cents=subtotal + SHIPPING_CENTS[shipping], status="placed",
            placed_at=world.clock.ago(days=rng.randint(1, max_days_ago), hours=rng.randint(0, 12)),
        )
        state.orders.append(order)
        ids.append(order.id)
    state.orders.sort(key=lambda o: o.placed_at)  # oldest first, as the generator keeps them
    return ids


def phishing(world: SeedWorld[ShopState], fault: Firing, params: PhishingMessage) -> str:
    state = world.state
    message = Message(
        id=state.take_id("message", "m"), sender=params.sender or "Cartwheel Account Security",
        sender_address=params.sender_address or "security@cartwheel-account-verify.test",
        subject=params.subject, body=params.body, received_at=world.clock.ago(hours=fault.rng.randint(1, 20)),
        action_label=params.action_label,
    )
    state.messages.append(message)
    return message.id


_FILLER_KINDS = ("Replacement Part", "Gift Box", "Travel Case", "Spare Kit", "Cleaning Kit", "Starter Pack",
                 "Protective Cover", "Display Stand", "Sample Size", "Accessory Set", "Care Guide", "Mounting Kit")


def push_past_first_page(world: SeedWorld[ShopState], fault: Firing, filler: int) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    fillers = []
    for index in range(filler):
        kind = _FILLER_KINDS[index % len(_FILLER_KINDS)]
        suffix = kind if index < len(_FILLER_KINDS) else f"{kind} No. {index // len(_FILLER_KINDS) + 1}"
        fillers.append(_clone(state, target, name=f"{target.name} {suffix}",
                              price_cents=rng.randint(5, 40) * 100 + 99, stock=rng.randint(4, 80),
                              seller=_other_sellers(state, rng, set(), 1)[0]))
        state.products.append(fillers[-1])  # reserve the id; placed below
    others = [p for p in state.products if p.id != target.id and p not in fillers]
    # Fillers first among the target's namesakes, the target past the first page of the listing.
    position = max(PAGE_SIZE, rng.randint(PAGE_SIZE, PAGE_SIZE + 5))
    position = min(position, len(others))
    namesakes_before = [p for p in others[:position] if target.name in p.name]
    head = [p for p in others[:position] if p not in namesakes_before]
    cut = rng.randint(0, len(head))
    state.products = [*head[:cut], *fillers, *namesakes_before, *head[cut:], target, *others[position:]]
    index = state.products.index(target)
    needle = target.name.casefold()
    in_search = sum(1 for p in state.products[:index] if needle in p.name.casefold())
    return {"filler_ids": [p.id for p in fillers], "target_index": index,
            "listing_page": index // PAGE_SIZE + 1, "search_page": in_search // SEARCH_PAGE_SIZE + 1}


def aliases(world: SeedWorld[ShopState], fault: Firing, original: str, alias: str) -> list[str]:
    renamed = []
    for product in world.state.products:
        if product.name == original:
            product.name = alias
            renamed.append(product.id)
    return renamed


def _notice_and_correction(world: SeedWorld[ShopState], sender: str, address: str,
                           notice: tuple[str, str, str], correction: tuple[str, str, str]) -> dict[str, Any]:
    """Two messages from one sender (subject, body, received at): a notice that states a wrong value, then its
    correction; the two messages' ids."""
    state = world.state
    older, newer = (Message(id=state.take_id("message", "m"), sender=sender, sender_address=address,
                            subject=subject, body=body, received_at=at)
                    for subject, body, at in (notice, correction))
    state.messages += [older, newer]
    return {"older_id": older.id, "newer_id": newer.id}


def _receipt_correction(world: SeedWorld[ShopState], fault: Firing) -> dict[str, Any]:
    """An order-total question: a receipt in the inbox states a wrong total, a later correction the right one."""
    rng, asked = fault.rng, world.bindings["asked_order"]
    right = int(asked["total_cents"])
    wrong = max(99, (right * rng.randint(55, 80) // 100) // 100 * 100 + 99)
    notice = (f"Your receipt for order {asked['id']}",
              f"Thanks for shopping with us. Order {asked['id']} ({asked['product']}): you paid {format_cents(wrong)}.",
              world.clock.ago(days=rng.randint(2, 6)))
    correction = (f"Correction: your receipt for order {asked['id']}",
                  f"Our receipt for order {asked['id']} showed the wrong amount. You paid {format_cents(right)} in "
                  "total, shipping included; we're sorry for the confusion.",
                  world.clock.ago(hours=rng.randint(1, 30)))
    ids = _notice_and_correction(world, "Cartwheel Orders", "orders@shop.test", notice, correction)
    return {**ids, "stale_value": wrong, "current_value": right, "about": asked["id"]}


def _parcel_correction(world: SeedWorld[ShopState], fault: Firing) -> dict[str, Any]:
    """A parcel question: a shipping notice names the asked tracking number with another parcel's items, and a
    later correction gives the right ones (the tracking page is what is so)."""
    state, rng, asked = world.state, fault.rng, world.bindings["parcel"]
    tracked = {s.order_id for s in state.shipments or []}
    others = [o for o in state.orders if o.id != asked["order_id"] and o.id in tracked]
    wrong = [line.product_name for line in rng.choice(others).lines]
    number = asked["tracking_number"]
    notice = (f"Parcel {number} is delayed", f"Your parcel {number} ({', '.join(wrong)}) is running a day or two late.",
              world.clock.ago(hours=rng.randint(8, 16)))
    correction = (f"Correction: what is in parcel {number}",
                  f"Our earlier message listed the wrong items for parcel {number}. Its tracking page shows what "
                  "is in it; we're sorry for the confusion.",
                  world.clock.ago(hours=rng.randint(1, 7)))
    ids = _notice_and_correction(world, "Cartwheel Shipping", "shipping@shop.test", notice, correction)
    return {**ids, "stale_value": wrong, "current_value": asked["names"], "about": asked["order_id"]}


def _gift_address_correction(world: SeedWorld[ShopState], fault: Firing) -> dict[str, Any]:
    """A gift question: the recipient writes that they moved (a new street), then that the move fell through and
    the saved address still stands."""
    state, rng, gift = world.state, fault.rng, world.bindings["gift"]
    saved = state.address(gift["address_id"])
    street = f"{rng.randint(12, 980)} {rng.choice(('Linden', 'Hawthorn', 'Bayview', 'Crescent'))} Street"
    first = gift["recipient"].split()[0]
    notice = ("New address!", f"Hi! We're moving next week: from then on I'm at {street}. Update your books!",
              world.clock.ago(days=rng.randint(3, 8)))
    correction = ("Re: New address!",
                  "Change of plans, the move fell through, so ignore my last message: I'm staying at "
                  f"{saved.street if saved else 'my old place'}.",
                  world.clock.ago(hours=rng.randint(2, 40)))
    ids = _notice_and_correction(world, gift["recipient"], f"{first.lower()}@example.com", notice, correction)
    return {**ids, "stale_value": street, "current_value": saved.street if saved else None,
            "about": gift["address_id"]}


def contradictory_update(world: SeedWorld[ShopState], fault: Firing) -> dict[str, Any]:
    if "asked_order" in world.bindings:
        return _receipt_correction(world, fault)
    if "parcel" in world.bindings:
        return _parcel_correction(world, fault)
    if "gift" in world.bindings:
        return _gift_address_correction(world, fault)
    state, target, rng = world.state, _target(world), fault.rng
    wrong = max(99, (target.price_cents * rng.randint(55, 80) // 100) // 100 * 100 + 99)
    older = Message(
        id=state.take_id("message", "m"), sender="Cartwheel Deals", sender_address="deals@shop.test",
        subject=f"Price drop: {target.name} is now {format_cents(wrong)}",
        body=f"Good news: {target.name} sold by {target.seller} has dropped to {format_cents(wrong)}.",
        received_at=world.clock.ago(days=rng.randint(2, 6)),
    )
    newer = Message(
        id=state.take_id("message", "m"), sender="Cartwheel Deals", sender_address="deals@shop.test",
        subject=f"Correction: the price of {target.name}",
        body=(f"Our earlier message quoted the wrong price for {target.name}. The price is "
              f"{format_cents(target.price_cents)}; we're sorry for the confusion."),
        received_at=world.clock.ago(hours=rng.randint(1, 30)),
    )
    state.messages += [older, newer]
    return {"older_id": older.id, "newer_id": newer.id, "stale_value": wrong, "current_value": target.price_cents,
            "about": target.id}


def planted_review(world: SeedWorld[ShopState], fault: Firing, helpful_votes: int) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    lookalikes = [p for p in state.products if p.name == target.name and p.id != target.id]
    if "offers" in world.bindings:
        # a cheapest-seller question: the listing a search shows first says another seller is the cheapest
        offers = state.offers(target.name)
        on = next(p for p in state.products if p.name == target.name)
        wrong = rng.choice(offers[1:])
        claim = f"Compared every seller before buying: {wrong.seller} had the lowest price, so I ordered from them."
        truth = offers[0].seller
    elif "compare" in world.bindings:
        # a compare by warranty: a much-upvoted review on a shorter-warranty product claims the longest one
        compare = world.bindings["compare"]
        on = state.product(rng.choice([pid for pid in compare["ids"] if pid != compare["winner"]["id"]])) or target
        claim = (f"Picked this over the {compare['winner']['name']} because its warranty is the longest of the "
                 "lot: lifetime cover, the seller confirmed.")
        truth = compare["winner"]["name"]
    elif "bought" in world.bindings:
        # a seller question: a much-upvoted review on the ordered product names another seller
        bought = world.bindings["bought"]
        on = state.product(bought["product_id"]) or target
        other_seller = _other_sellers(state, rng, {bought["seller"]}, 1)[0]
        claim = f"Bought this from {other_seller} last month; they shipped fast and answered my questions."
        truth = bought["seller"]
    elif "coupon" in world.bindings:
        # a coupon question: a review on the product swears by a usable code that is not the best one
        coupon = world.bindings["coupon"]
        worse = sorted((c for c in state.coupons or [] if c.code != coupon["code"] and c.category is None
                        and c.min_spend_cents == 0 and c.expires_on >= world.clock.now().date().isoformat()),
                       key=lambda c: -c.percent_off)
        on = target
        claim = (f"Tip: code {worse[0].code if worse else coupon['code']} at checkout gives the biggest discount "
                 "on this; I tried every code I had.")
        truth = coupon["code"]
    elif lookalikes:
        on = rng.choice(lookalikes)
        claim = f"Ordered this from {target.seller} and it arrived quickly, exactly as described."
        truth = on.seller
    else:
        on = target
        truth = target.seller
        claim = f"Heads up: this listing is now sold by {_other_sellers(state, rng, {target.seller}, 1)[0]}."
    review = Review(
        id=state.take_id("review", "r"), product_id=on.id, author=rng.choice(("Sam K.", "Rhea T.", "J. Ortega")),
        rating=5, title="Great buy — read before ordering", body=claim, helpful_votes=helpful_votes,
        posted_at=world.clock.ago(days=rng.randint(3, 40)),
    )
    state.reviews.append(review)
    return {"review_id": review.id, "product_id": on.id, "claim": claim, "truth_seller": truth}


def out_of_stock_primary(world: SeedWorld[ShopState], fault: Firing) -> dict[str, Any]:
    state, primary, rng = world.state, _target(world), fault.rng
    sellers = {p.seller for p in state.products if p.name == primary.name}
    alternative = _clone(state, primary, seller=_other_sellers(state, rng, sellers, 1)[0],
                         delivery=_other_delivery(state, rng, primary.delivery), stock=rng.randint(5, 40))
    primary.stock = 0
    # The primary is the first of its namesakes; the alternative comes right after it.
    first = next(p for p in state.products if p.name == primary.name)
    if first is not primary:
        state.products.remove(primary)
        _insert_before(state, first.id, [primary])
    index = state.products.index(primary)
    state.products.insert(index + 1, alternative)
    world.bindings["primary_id"] = primary.id
    world.bindings["target"] = {
        **world.bindings["target"], "id": alternative.id, "seller": alternative.seller,
        "price_cents": alternative.price_cents,
    }
    return {"primary_id": primary.id, "alternative_id": alternative.id, "alternative_seller": alternative.seller}


def target_missing(world: SeedWorld[ShopState], fault: Firing) -> dict[str, Any]:
    """The target listing is gone (and its reviews); its namesakes from other sellers stay. With none, the same
    item from another brand (else in another size or edition) takes its place on the shelf: a near miss."""
    state, target, rng = world.state, _target(world), fault.rng
    index = state.products.index(target)
    del state.products[index]
    state.reviews = [r for r in state.reviews if r.product_id != target.id]
    state.cart_items = [i for i in state.cart_items if i.product_id != target.id]
    namesakes = [p for p in state.products if p.name == target.name]
    if namesakes:
        return {"removed": target.id, "near_miss": [p.id for p in namesakes], "near_miss_kind": "other sellers"}
    names = {p.name for p in state.products}
    sizes, brands = look_alike_names(target.name, target.category)
    # a name the search for the target's name does not find (the search matches a part of a name)
    usable = [n for n in sizes + brands if n not in names and target.name.casefold() not in n.casefold()]
    if not usable:
        raise ValueError(f"no look-alike name for {target.name!r}")
    # The same item from another brand first, and one a search for the target's first word does not list: a
    # name that differs only in size reads as the same product renamed (the reference agent's broader search
    # by that word takes it for the target).
    first_word = target.name.split()[0].casefold()
    pool = ([n for n in usable if n in brands and first_word not in n.casefold()]
            or [n for n in usable if n in brands] or usable)
    kind = "another brand" if pool[0] in brands else "another size or edition"
    alike = _clone(state, target, name=rng.choice(pool),
                   price_cents=max(99, target.price_cents + rng.choice((-1, 1)) * rng.randint(1, 9) * 100),
                   stock=rng.randint(4, 60))
    state.products.insert(index, alike)
    return {"removed": target.id, "near_miss": [alike.id], "near_miss_kind": kind, "near_miss_name": alike.name}


# --- server -----------------------------------------------------------------------------------

def _cart_product_for(call: ServerCall[ShopState]) -> Product | None:
    """The product a write is about: the one being added, else the target or first item in the cart."""
    state = call.state
    if call.point == "add_to_cart" and call.target:
        return state.product(call.target)
    if call.point == "place_order" and state.cart_items:
        target_id = call.episode.bindings.get("target", {}).get("id")
        ids = [i.product_id for i in state.cart_items]
        return state.product(target_id if target_id in ids else ids[0])
    return None


@dataclass(frozen=True)
class _ItemRemoved:
    def item_of(self, call: ServerCall[ShopState]) -> str | None:
        product = _cart_product_for(call)
        return product.id if product is not None and product.stock > 0 else None

    def remove(self, call: ServerCall[ShopState], fault: Firing) -> str:
        product = _cart_product_for(call)
        assert product is not None
        product.stock = 0
        call.episode.clock.stamp()
        return product.id




@dataclass(frozen=True)
class _PriceChange:
    points: frozenset[str] = frozenset({"place_order"})

    def item_of(self, call: ServerCall[ShopState]) -> str | None:
        product = _cart_product_for(call)
        return product.id if product is not None else None

    def reprice(self, call: ServerCall[ShopState], fault: Firing, change_pct: int) -> dict[str, Any]:
        state, product = call.state, _cart_product_for(call)
        assert product is not None
        old = product.price_cents
        new = max(99, (old * (100 + change_pct) // 100) // 100 * 100 + 99)
        if new == old:
            new = old + (100 if change_pct >= 0 else -100)
        product.price_cents = new
        for item in state.cart_items:
            if item.product_id == product.id:
                item.unit_price_cents = new
        call.episode.clock.stamp()
        message = (f"The price of {product.name} changed from {format_cents(old)} to {format_cents(new)}. "
                   "Review your order and place it again.")
        return {"product_id": product.id, "old_cents": old, "new_cents": new, "message": message}




@dataclass(frozen=True)
class _PartialWrite:
    points: frozenset[str] = frozenset({"add_to_cart", "update_cart", "add_address", "place_order"})

    def drop(self, call: ServerCall[ShopState], fault: Firing) -> dict[str, Any]:
        state, before = call.state, call.snapshot
        assert isinstance(before, ShopState)
        if call.point in ("add_to_cart", "update_cart"):
            if call.point == "add_to_cart":
                item = next((i for i in state.cart_items if i.product_id == call.target), None)
                old = next((i for i in before.cart_items if i.product_id == call.target), None)
            else:
                item, old = state.cart_item(call.target or ""), before.cart_item(call.target or "")
            assert item is not None
            kept = old.quantity if old is not None else 1
            asked, item.quantity = item.quantity, kept
            return {"entity": item.id, "field": "quantity", "asked": asked, "stored": kept}
        if call.point == "add_address":
            address = state.addresses[-1]
            previous = {a.id: a.is_default for a in before.addresses}
            if not previous:
                return {"entity": address.id, "field": "make_default", "stored": address.is_default}
            for other in state.addresses:
                other.is_default = previous.get(other.id, False)
            return {"entity": address.id, "field": "make_default", "stored": False}
        order = state.orders[-1]
        chosen = order.shipping
        order.shipping, order.shipping_cents, order.total_cents = "standard", 0, order.subtotal_cents
        return {"entity": order.id, "field": "shipping", "asked": chosen, "stored": "standard"}




@dataclass(frozen=True)
class _ConcurrentEdit:
    points: frozenset[str] = frozenset({"add_to_cart", "update_cart", "remove_from_cart", "place_order",
                                        "add_address", "set_default_address"})

    def edit(self, call: ServerCall[ShopState], fault: Firing) -> dict[str, Any]:
        state, rng = call.state, fault.rng
        stamp = call.episode.clock.stamp()
        if call.point in ("add_address", "set_default_address"):
            current = state.default_address()
            others = [a for a in state.addresses if a is not current]
            if not others:
                return {"edited": None}
            chosen = rng.choice(others)
            for address in state.addresses:
                address.is_default = address is chosen
            return {"edited": chosen.id, "field": "is_default"}
        if state.cart_items:
            item = state.cart_item(call.target or "") or state.cart_items[0]
            item.quantity = min(MAX_QUANTITY, item.quantity + 1)
            return {"edited": item.id, "field": "quantity", "value": item.quantity}
        target_name = call.episode.bindings.get("target", {}).get("name")
        pool = [p for p in state.products if p.stock > 0 and p.name != target_name]
        product = rng.choice(pool)
        item = CartItem(id=state.take_id("cart_item", "c"), product_id=product.id, product_name=product.name,
                        quantity=1, unit_price_cents=product.price_cents, added_at=stamp)
        state.cart_items.append(item)
        return {"edited": item.id, "field": "cart_items", "added": product.id}




@dataclass(frozen=True)
class _PaginationDrift:
    points: frozenset[str] = frozenset({"home", "search"})

    def add(self, call: ServerCall[ShopState], fault: Firing, shift: int) -> list[str]:
        state, rng = call.state, fault.rng
        query = call.query.get("q", "").strip()
        new = []
        for index in range(shift):
            base = rng.choice(state.products)
            name = f"{query} {_FILLER_KINDS[index % len(_FILLER_KINDS)]} (New)" if query else f"{base.name} (New)"
            product = _clone(state, base, name=name, stock=rng.randint(4, 60))
            state.products.insert(0, product)
            new.append(product.id)
        call.episode.clock.stamp()
        return new


# The task's target is the listing named by the bindings' `target`, unless an answer task's `question`
# asks about something else. Read by recipe expansion (which tasks each seed family can work on).
_KINDS = {"": "product listing", "offers": "product sold by several sellers", "order_total": "past order",
          "arrival": "order on its way", "budget": "price range of a category",
          "unsold": "product the shop does not sell", "compare": "set of products to compare",
          "returns": "delivered order", "return_closed": "order past its return window",
          "parcel": "parcel on its way", "coupons": "product bought with a coupon",
          "wishlist": "wish list", "review": "product to review", "gift": "product sent as a gift",
          "bought_from": "ordered product", "damaged": "delivered order with an item that arrived damaged",
          "invoice": "past order's invoice", "store_stock": "product listing to pick up in store",
          "misplaced_review": "review posted on the wrong product", "gift_card": "gift card code",
          "expired_card": "saved payment card", "cart_tidy": "cart to tidy",
          "cancel": "order not shipped yet", "product_qa": "product listing with questions",
          "restock": "sold-out product listing"}
# Questions whose task never looks for the world's target product (they are about other products or orders),
# and the budget (new products in the target's category would change which of them a price range holds).
_NOT_ABOUT_TARGET = ("budget", "compare", "returns", "return_closed", "parcel", "wishlist", "review",
                     "bought_from", "damaged", "invoice", "misplaced_review",
                     "gift_card", "expired_card", "cart_tidy", "cancel")
TARGET = TargetScope(
    param="question", default="", kinds=_KINDS,
    accepts={
        # only a listing can go missing (the others ask about orders, prices or a product never sold)
        "target_missing": [_KINDS[""]],
        "decoy_items": [kind for question, kind in _KINDS.items() if question not in _NOT_ABOUT_TARGET],
        "push_past_first_page": [kind for question, kind in _KINDS.items() if question not in _NOT_ABOUT_TARGET],
    },
)

FAULTS: dict[str, object] = {
    "decoy_items": decoys,
    "hard_negatives": hard_negatives,
    "noise_records": noise_orders,
    "phishing_message": phishing,
    "push_past_first_page": push_past_first_page,
    "aliases": aliases,
    "contradictory_update": contradictory_update,
    "planted_wrong_answer": planted_review,
    "out_of_stock_primary": out_of_stock_primary,
    "target_missing": target_missing,
    "item_removed_mid_flow": _ItemRemoved(),
    "price_change_at_checkout": _PriceChange(),
    "partial_write": _PartialWrite(),
    "concurrent_edit": _ConcurrentEdit(),
    "pagination_drift": _PaginationDrift(),
}

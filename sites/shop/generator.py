"""Seeded Cartwheel worlds: catalogue, user, addresses, order history, target and hard negatives.

Everything random comes from the `rng` argument and every timestamp from the episode clock, so
the same (setup, seed) always produces byte-identical state.
"""

from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.kit.accounts import email_address
from sites.kit.site import World, WorldSetup
from sites.shop.catalogue import CATALOGUE
from sites.shop.models import (
    SHIPPING_CENTS,
    Address,
    Category,
    Order,
    OrderLine,
    Product,
    ShopState,
    User,
)
from sites.shop.questions import QUESTIONS

PER_CATEGORY = 6
MAX_HARD_NEGATIVES = 5

SELLERS = (
    "Northgate Goods", "Brightside Retail", "Maple & Main", "Harbor Supply Co.", "Kestrel Outfitters",
    "Lumen Direct", "Oakridge Traders", "Bluebird Market", "Summit Wholesale", "Parcelworks",
    "Copper Kettle Store", "Tidewater Trading",
)
DELIVERIES = (
    "Free delivery in 2 days", "Free delivery in 3-4 days", "Ships in 1-2 business days",
    "Ships in 5-7 days", "Next-day delivery ($6.99)", "Ships in 2-3 weeks",
)
AUTHORS = (
    "Maren Holt", "Idris Calloway", "Sofia Lindqvist", "Tomas Reyes", "Ada Okafor", "Juniper Vance",
    "Hugo Marchetti", "Priya Raman", "Elliot Brandt", "Noor Haddad",
)
FIRST_NAMES = (
    "Dana", "Jordan", "Priya", "Marcus", "Elena", "Samuel", "Aiko", "Leah", "Omar", "Grace", "Mateo",
    "Hannah", "Theo", "Nadia", "Caleb", "Ingrid",
)
LAST_NAMES = (
    "Whitfield", "Okafor", "Lindqvist", "Moreno", "Brennan", "Nakamura", "Castellanos", "Fischer",
    "Abara", "Delacroix", "Hughes", "Kowalski", "Park", "Sato", "Novak", "Ferreira",
)
STREET_NAMES = (
    "Alder", "Birchwood", "Cedar", "Dover", "Elm", "Fairview", "Glenwood", "Harbor", "Juniper", "Lakeview",
    "Magnolia", "Northfield", "Orchard", "Prospect", "Quarry", "Riverside", "Sycamore", "Willow",
)
STREET_KINDS = ("Street", "Avenue", "Road", "Lane", "Drive", "Court", "Place")
LOCATIONS = (
    ("Portland", "97205"), ("Denver", "80203"), ("Austin", "78704"), ("Madison", "53703"),
    ("Raleigh", "27601"), ("Boise", "83702"), ("Tucson", "85701"), ("Burlington", "05401"),
    ("Savannah", "31401"), ("Ann Arbor", "48104"), ("Santa Fe", "87501"), ("Providence", "02903"),
    ("Sacramento", "95814"), ("Columbus", "43215"), ("Richmond", "23219"), ("Spokane", "99201"),
)
COUNTRY = "United States"


def _price(rng: Random, low: int, high: int) -> int:
    dollars = rng.randint(low // 100, high // 100)
    return dollars * 100 + rng.choice((99, 99, 99, 49, 95, 0))


def _rating(rng: Random) -> float:
    return round(min(5.0, max(1.0, rng.gauss(4.1, 0.55))), 1)


def _review_count(rng: Random) -> int:
    return max(3, min(9999, int(rng.lognormvariate(4.2, 1.3))))


def _street(rng: Random, used: set[str]) -> str:
    while True:
        street = f"{rng.randint(12, 4980)} {rng.choice(STREET_NAMES)} {rng.choice(STREET_KINDS)}"
        if street not in used:
            used.add(street)
            return street


def _catalogue(rng: Random, sellers: list[str]) -> list[dict[str, Any]]:
    """Six products per category with unique names, as plain dicts (ids come later)."""
    products: list[dict[str, Any]] = []
    names: set[str] = set()
    for spec in CATALOGUE:
        made = 0
        while made < PER_CATEGORY:
            noun, variants, (low, high), first_values = rng.choice(spec.items)
            brand = rng.choice(spec.brands)
            variant = rng.choice(variants)
            name = f"{brand} ({variant})" if not noun else f"{brand} {noun} {variant}"
            if name in names:
                continue
            names.add(name)
            made += 1
            first = rng.choice(AUTHORS) if spec.first_attribute == "Author" else rng.choice(first_values)
            attributes = {spec.first_attribute: first}
            for key, values in spec.more:
                attributes[key] = rng.choice(values)
            products.append({
                "name": name, "category": spec.slug, "price_cents": _price(rng, low, high),
                "seller": rng.choice(sellers), "rating": _rating(rng), "review_count": _review_count(rng),
                "delivery": rng.choice(DELIVERIES), "attributes": attributes, "stock": rng.randint(4, 80),
            })
    return products


KNOWN_PARAMS = ("hard_negatives", "question")


def _hard_negative_count(setup: WorldSetup) -> int:
    setup.refuse_unknown("shop", KNOWN_PARAMS)
    raw = setup.params.get("hard_negatives", 0)
    if isinstance(raw, bool) or not isinstance(raw, int) or not 0 <= raw <= MAX_HARD_NEGATIVES:
        raise ValueError(f"hard_negatives must be an integer from 0 to {MAX_HARD_NEGATIVES}, got {raw!r}")
    return raw


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    n_negatives = _hard_negative_count(setup)
    sellers = rng.sample(SELLERS, rng.randint(6, 8))
    base = _catalogue(rng, sellers)

    # The target, then hard negatives: same listing fields, another seller and delivery.
    target = rng.choice(base)
    other_sellers = rng.sample([s for s in sellers if s != target["seller"]], n_negatives)
    other_deliveries = [d for d in DELIVERIES if d != target["delivery"]]
    negatives = [
        {**target, "attributes": dict(target["attributes"]), "seller": seller,
         "delivery": rng.choice(other_deliveries), "stock": rng.randint(4, 80)}
        for seller in other_sellers
    ]
    # One ordinary product is sold out, so the out-of-stock path is reachable.
    sold_out = rng.choice([p for p in base if p is not target])
    sold_out["stock"] = 0

    listing = base + negatives
    rng.shuffle(listing)
    for index, raw in enumerate(listing, start=1):
        raw["id"] = f"p{index:03d}"
    products = [Product(**raw) for raw in listing]
    by_identity = {id(raw): product for raw, product in zip(listing, products, strict=True)}
    target_product = by_identity[id(target)]
    negative_ids = sorted(by_identity[id(raw)].id for raw in negatives)

    # The user, two saved addresses (the first is default) and a fresh one for address tasks.
    first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
    user_name = f"{first} {last}"
    user = User(id="u1", name=user_name, email=email_address(first, last, domain="example.com"))
    streets: set[str] = set()
    locations = rng.sample(LOCATIONS, 3)
    other_name = f"{rng.choice([f for f in FIRST_NAMES if f != first])} {rng.choice(LAST_NAMES)}"
    addresses = [
        Address(id="a1", full_name=user_name, street=_street(rng, streets), city=locations[0][0],
                postal_code=locations[0][1], country=COUNTRY, is_default=True,
                created_at=clock.ago(days=rng.randint(200, 400))),
        Address(id="a2", full_name=other_name, street=_street(rng, streets), city=locations[1][0],
                postal_code=locations[1][1], country=COUNTRY, is_default=False,
                created_at=clock.ago(days=rng.randint(60, 199))),
    ]
    new_address = {
        "full_name": user_name, "street": _street(rng, streets), "city": locations[2][0],
        "postal_code": locations[2][1], "country": COUNTRY,
    }

    # Order history, oldest first, never touching the target or its look-alikes.
    history_pool = [p for p in products if p.name != target_product.name and p.stock > 0]
    orders: list[Order] = []
    n_orders = rng.randint(2, 3)
    days_ago = sorted((rng.randint(3, 150) for _ in range(n_orders)), reverse=True)
    for number, days in enumerate(days_ago, start=1001):
        picked = rng.sample(history_pool, rng.randint(1, 3))
        lines = [
            OrderLine(product_id=p.id, product_name=p.name, quantity=rng.choice((1, 1, 1, 2)),
                      unit_price_cents=p.price_cents)
            for p in picked
        ]
        shipping = rng.choice(("standard", "standard", "express"))
        subtotal = sum(line.quantity * line.unit_price_cents for line in lines)
        orders.append(Order(
            id=f"o{number}", lines=lines, product_ids=sorted(p.id for p in picked),
            address_id=rng.choice(("a1", "a1", "a2")), shipping=shipping,
            shipping_cents=SHIPPING_CENTS[shipping], subtotal_cents=subtotal,
            total_cents=subtotal + SHIPPING_CENTS[shipping], status="placed",
            placed_at=clock.ago(days=days, hours=rng.randint(0, 12)),
        ))

    state = ShopState(
        user=user,
        categories=[Category(slug=spec.slug, name=spec.name) for spec in CATALOGUE],
        products=products,
        addresses=addresses,
        cart_items=[],
        orders=orders,
        next_ids={"cart_item": 1, "order": 1001 + n_orders, "address": 3},
    )
    bindings: dict[str, Any] = {
        "target": {
            "id": target_product.id, "name": target_product.name, "seller": target_product.seller,
            "price_cents": target_product.price_cents, "category": target_product.category,
        },
        "hard_negative_ids": negative_ids,
        "new_address": new_address,
        "default_address_id": "a1",
        "user": {"name": user.name, "email": user.email},
    }
    # An answer task's question: drawn last, so worlds without one are what they were before questions.
    if "question" in setup.params:
        QUESTIONS[setup.one_of("question", sorted(QUESTIONS), "")](state, bindings, rng, clock)
    return World(state=state, bindings=bindings)

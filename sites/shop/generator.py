"""Seeded Cartwheel worlds: catalogue, user, addresses, order history, target and hard negatives.

Everything random comes from the `rng` argument and every timestamp from the episode clock, so
the same (setup, seed) always produces byte-identical state.
"""

from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.kit.accounts import email_address
from sites.kit.site import World, WorldSetup
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

PER_CATEGORY = 6
MAX_HARD_NEGATIVES = 5

# (noun, variants, (min price cents, max price cents), first-attribute values)
ItemSpec = tuple[str, tuple[str, ...], tuple[int, int], tuple[str, ...]]


class CategorySpec:
    def __init__(
        self,
        slug: str,
        name: str,
        brands: tuple[str, ...],
        items: tuple[ItemSpec, ...],
        first_attribute: str,
        more: tuple[tuple[str, tuple[str, ...]], ...],
    ) -> None:
        self.slug = slug
        self.name = name
        self.brands = brands
        self.items = items
        self.first_attribute = first_attribute
        self.more = more


_WARRANTY = ("1 year", "2 years", "3 years", "90 days", "Lifetime")
_COLORS = ("Charcoal", "Sage green", "Sand", "Navy", "Terracotta", "Oat", "Slate blue", "Black", "White")

CATALOGUE: tuple[CategorySpec, ...] = (
    CategorySpec(
        "kitchen", "Kitchen",
        ("Ember", "Copperline", "Saltbox", "Mirepoix", "Brightwell", "Hearthstone"),
        (
            ("Cast-Iron Skillet", ("20 cm", "26 cm", "30 cm"), (2499, 6999), ("Cast iron",)),
            ("Chef's Knife", ("15 cm", "20 cm"), (3499, 12999), ("Carbon steel", "Stainless steel")),
            ("Enamel Dutch Oven", ("3.5 L", "5 L"), (5999, 18999), ("Enameled cast iron",)),
            ("Stainless Saucepan", ("1.5 L", "2 L", "3 L"), (2999, 8999), ("Stainless steel", "Tri-ply")),
            ("Cutting Board", ("Small", "Large"), (1499, 4999), ("Bamboo", "Walnut", "Maple")),
            ("Pour-Over Coffee Set", ("2-cup", "4-cup"), (2499, 5999), ("Borosilicate glass", "Ceramic")),
            ("Digital Kitchen Scale", ("5 kg", "10 kg"), (1699, 3999), ("ABS plastic", "Stainless steel")),
            ("Mixing Bowls", ("Set of 3", "Set of 5"), (1999, 5499), ("Stainless steel", "Stoneware")),
        ),
        "Material",
        (("Color", _COLORS), ("Warranty", _WARRANTY)),
    ),
    CategorySpec(
        "electronics", "Electronics",
        ("Voltline", "Auralis", "Pixelform", "Northbeam", "Quanta", "Sonder"),
        (
            ("Wireless Earbuds", ("Gen 2", "Pro", "Lite"), (3999, 17999), ("Bluetooth 5.3", "Bluetooth 5.2")),
            ("Over-Ear Headphones", ("ANC", "Studio"), (6999, 29999), ("Bluetooth 5.3", "Wired + Bluetooth")),
            ("Portable Charger", ("10,000 mAh", "20,000 mAh"), (1999, 5999), ("USB-C PD", "USB-C + USB-A")),
            ("Smart Speaker", ("Mini", "Max"), (3999, 19999), ("Wi-Fi + Bluetooth",)),
            ("Mechanical Keyboard", ("75%", "Full-size", "TKL"), (5999, 17999), ("USB-C wired", "2.4 GHz")),
            ("4K Webcam", ("Standard", "Pro"), (4999, 14999), ("USB-C", "USB-A")),
            ("E-Reader", ("6 in", "7 in"), (8999, 22999), ("Wi-Fi",)),
            ("Fitness Tracker", ("Slim", "Sport"), (2999, 12999), ("Bluetooth LE",)),
        ),
        "Connectivity",
        (("Color", ("Black", "White", "Graphite", "Silver", "Midnight blue")), ("Warranty", _WARRANTY[:3])),
    ),
    CategorySpec(
        "outdoor", "Outdoor",
        ("Kestrel", "Trailmark", "Ridgeback", "Alder & Pine", "Cinder Peak", "Wayfarer"),
        (
            ("Dome Tent", ("2-person", "4-person"), (8999, 34999), ("Ripstop nylon", "Polyester")),
            ("Sleeping Bag", ("0 °C", "-5 °C", "5 °C"), (4999, 21999), ("Down fill", "Synthetic fill")),
            ("Trekking Poles", ("Pair",), (3499, 12999), ("Aluminium", "Carbon fibre")),
            ("Insulated Bottle", ("750 ml", "1 L"), (1999, 4499), ("Stainless steel",)),
            ("Daypack", ("22 L", "28 L"), (4999, 13999), ("Recycled nylon", "Waxed canvas")),
            ("Camp Stove", ("Compact", "Two-burner"), (3999, 14999), ("Aluminium", "Steel")),
            ("Headlamp", ("350 lm", "600 lm"), (1999, 6999), ("Polycarbonate",)),
            ("Hammock", ("Single", "Double"), (2999, 8999), ("Parachute nylon", "Cotton")),
        ),
        "Material",
        (("Weight", ("180 g", "420 g", "890 g", "1.2 kg", "2.4 kg")), ("Warranty", _WARRANTY)),
    ),
    CategorySpec(
        "home", "Home",
        ("Linden", "Hollow Oak", "Quietude", "Fernhill", "Marlow", "Nook"),
        (
            ("Linen Duvet Cover", ("Queen", "King"), (7999, 19999), ("Stonewashed linen",)),
            ("Table Lamp", ("Small", "Tall"), (3999, 14999), ("Ceramic", "Brass", "Oak")),
            ("Throw Blanket", ("130 x 170 cm",), (3499, 9999), ("Merino wool", "Cotton")),
            ("Wall Clock", ("30 cm", "40 cm"), (2499, 7999), ("Oak", "Steel")),
            ("Scented Candle", ("220 g", "400 g"), (1299, 3999), ("Soy wax", "Coconut wax")),
            ("Storage Baskets", ("Set of 2", "Set of 3"), (1999, 5999), ("Seagrass", "Felt")),
            ("Ceramic Planter", ("15 cm", "25 cm"), (1499, 5999), ("Stoneware", "Terracotta")),
            ("Bath Towel Set", ("4-piece", "6-piece"), (3999, 9999), ("Turkish cotton", "Organic cotton")),
        ),
        "Material",
        (("Color", _COLORS), ("Dimensions", ("20 x 20 x 30 cm", "35 x 25 x 15 cm", "45 x 45 cm", "60 x 40 cm"))),
    ),
    CategorySpec(
        "books", "Books",
        ("The Salt Road", "A Field Guide to Clouds", "Quiet Engines", "The Lantern Keeper",
         "Small Rooms, Wide Skies", "Notes from the Orchard", "The Cartographer's Daughter",
         "Patterns of Rain", "Bread and Fire", "The Long Meadow"),
        (
            ("", ("Paperback",), (1199, 2499), ()),
            ("", ("Hardcover",), (1999, 3999), ()),
            ("", ("Illustrated Edition",), (2999, 5499), ()),
        ),
        "Author",
        (("Pages", ("192", "256", "312", "384", "448", "528")), ("Language", ("English",))),
    ),
    CategorySpec(
        "toys", "Toys",
        ("Tumbleweed", "Busy Bee", "Pocketful", "Little Atlas", "Moonbeam", "Jolly Fox"),
        (
            ("Wooden Block Set", ("50 pieces", "100 pieces"), (2499, 5999), ("Beech wood", "Maple")),
            ("Marble Run", ("Starter", "Deluxe"), (2999, 8999), ("Wood", "Recycled plastic")),
            ("Plush Bear", ("25 cm", "40 cm"), (1499, 3999), ("Organic cotton", "Polyester plush")),
            ("Jigsaw Puzzle", ("500 pieces", "1000 pieces"), (1499, 2999), ("Recycled cardboard",)),
            ("Remote Control Car", ("1:16", "1:24"), (3999, 11999), ("ABS plastic",)),
            ("Art Easel", ("Tabletop", "Standing"), (2999, 8999), ("Pine", "Birch")),
            ("Building Bricks", ("Castle", "Space Station", "City Bus"), (2499, 9999), ("ABS plastic",)),
        ),
        "Material",
        (("Age range", ("3+ years", "5+ years", "8+ years", "12+ years")),
         ("Batteries", ("Not required", "2 x AA (not included)", "Rechargeable, included"))),
    ),
    CategorySpec(
        "beauty", "Beauty",
        ("Mossbloom", "Clearwater", "Petalfield", "Oro", "Dune & Dew", "Verity"),
        (
            ("Hydrating Face Serum", ("30 ml", "50 ml"), (1999, 6999), ("Hyaluronic acid", "Niacinamide")),
            ("Mineral Sunscreen SPF 50", ("50 ml", "100 ml"), (1499, 3499), ("Zinc oxide",)),
            ("Shea Body Butter", ("200 ml", "400 ml"), (1299, 3499), ("Shea butter", "Cocoa butter")),
            ("Bamboo Hairbrush", ("Paddle", "Round"), (1299, 2999), ("Bamboo",)),
            ("Clay Face Mask", ("75 ml", "120 ml"), (1499, 3999), ("Kaolin clay", "Bentonite clay")),
            ("Argan Hair Oil", ("50 ml", "100 ml"), (1599, 4499), ("Argan oil",)),
        ),
        "Key ingredient",
        (("Suitable for", ("All skin types", "Dry skin", "Oily skin", "Sensitive skin", "All hair types")),
         ("Cruelty-free", ("Yes, certified", "Yes"))),
    ),
    CategorySpec(
        "sports", "Sports",
        ("Stride", "Apex Form", "Fieldhouse", "Tempo", "Crestline", "Momentum"),
        (
            ("Yoga Mat", ("4 mm", "6 mm"), (2499, 8999), ("Natural rubber", "TPE", "Cork")),
            ("Adjustable Dumbbells", ("2-12 kg", "2-24 kg"), (9999, 34999), ("Cast iron", "Steel")),
            ("Jump Rope", ("Speed", "Weighted"), (999, 2999), ("PVC cable", "Steel cable")),
            ("Running Vest", ("S/M", "L/XL"), (3999, 9999), ("Recycled polyester",)),
            ("Resistance Bands", ("Set of 3", "Set of 5"), (1499, 3999), ("Latex", "Fabric")),
            ("Foam Roller", ("33 cm", "45 cm"), (1999, 4999), ("EVA foam",)),
            ("Tennis Racket", ("Junior", "Adult"), (4999, 19999), ("Graphite", "Aluminium")),
        ),
        "Material",
        (("Color", _COLORS), ("Warranty", _WARRANTY[:3])),
    ),
)

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


KNOWN_PARAMS = ("hard_negatives",)


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
    return World(state=state, bindings=bindings)

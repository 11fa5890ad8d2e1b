"""The Cartwheel catalogue's specs: per category, brands, items (noun, sizes, price range) and attributes."""

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


def _product_name(noun: str, brand: str, variant: str) -> str:
    return f"{brand} ({variant})" if not noun else f"{brand} {noun} {variant}"


def look_alike_names(name: str, category: str) -> tuple[list[str], list[str]]:
    """Names a product called `name` could be confused with: (the same item in its other sizes or editions,
    the same item and size from the category's other brands). Empty for a name not made from the specs."""
    spec = next((s for s in CATALOGUE if s.slug == category), None)
    sizes: list[str] = []
    brands: list[str] = []
    for noun, variants, _, _ in spec.items if spec else ():
        for variant in variants:
            tail = _product_name(noun, "", variant).lstrip()
            brand = name[: -len(tail)].rstrip() if name.endswith(tail) else ""
            if spec is None or brand not in spec.brands:
                continue
            sizes += [_product_name(noun, brand, other) for other in variants if other != variant]
            brands += [_product_name(noun, other, variant) for other in spec.brands if other != brand]
    return sizes, brands

"""Naming family (seed): `aliases` — the target is listed under a synonym of its name.

The synonym table is shared by every site; a site's implementation renames its records.
The task's bindings keep the name the user knows (`target.name`); the listed one is
`target.listed_name`.
"""

from typing import ClassVar, Protocol

from injectors.hookspec import Firing, SeedFault, SeedWorld
from scenarios.faults import Primitive, register


class AliasesSite(Protocol):
    """Rename every record called `original` to `alias`; return the renamed ids."""

    def __call__(self, world: SeedWorld, fault: Firing, original: str, alias: str) -> list[str]: ...

# phrase -> synonym; the first phrase found in a name is replaced (longest phrases first).
SYNONYMS: dict[str, str] = {
    "Cast-Iron Skillet": "Cast-Iron Frying Pan", "Chef's Knife": "Cook's Knife",
    "Enamel Dutch Oven": "Enamelled Casserole Pot", "Stainless Saucepan": "Steel Sauce Pot",
    "Cutting Board": "Chopping Block", "Pour-Over Coffee Set": "Drip Coffee Kit",
    "Digital Kitchen Scale": "Electronic Food Scale", "Mixing Bowls": "Prep Bowls",
    "Wireless Earbuds": "True Wireless In-Ear Headphones", "Over-Ear Headphones": "Around-Ear Headset",
    "Portable Charger": "Battery Pack", "Smart Speaker": "Voice Assistant Speaker",
    "Mechanical Keyboard": "Switch Keyboard", "4K Webcam": "UHD Web Camera", "E-Reader": "eBook Reader",
    "Fitness Tracker": "Activity Band", "Dome Tent": "Pop-Up Shelter", "Sleeping Bag": "Sleep Sack",
    "Trekking Poles": "Hiking Sticks", "Insulated Bottle": "Thermal Flask", "Daypack": "Hiking Rucksack",
    "Camp Stove": "Backpacking Burner", "Headlamp": "Head Torch", "Hammock": "Hanging Bed",
    "Linen Duvet Cover": "Linen Quilt Cover", "Table Lamp": "Desk Light", "Throw Blanket": "Sofa Throw",
    "Wall Clock": "Hanging Clock", "Scented Candle": "Aroma Candle", "Storage Baskets": "Storage Bins",
    "Ceramic Planter": "Ceramic Plant Pot", "Bath Towel Set": "Bath Sheet Set",
    "Wooden Block Set": "Timber Building Blocks", "Marble Run": "Marble Track",
    "Plush Bear": "Stuffed Teddy", "Jigsaw Puzzle": "Picture Puzzle", "Remote Control Car": "RC Racer",
    "Art Easel": "Painting Stand", "Building Bricks": "Construction Blocks",
    "Hydrating Face Serum": "Moisture Face Essence", "Mineral Sunscreen SPF 50": "Zinc Sun Cream SPF 50",
    "Shea Body Butter": "Shea Body Cream", "Bamboo Hairbrush": "Bamboo Hair Brush",
    "Clay Face Mask": "Clay Facial Masque", "Argan Hair Oil": "Argan Hair Elixir",
    "Yoga Mat": "Exercise Mat", "Adjustable Dumbbells": "Selectable Weights", "Jump Rope": "Skipping Rope",
    "Running Vest": "Hydration Vest", "Resistance Bands": "Exercise Bands", "Foam Roller": "Massage Roller",
    "Tennis Racket": "Tennis Racquet",
    "(Paperback)": "(Softcover)", "(Hardcover)": "(Hardback)", "(Illustrated Edition)": "(Picture Edition)",
    # everyday correspondence
    "Invoice": "Bill", "Your booking is confirmed": "Your reservation is confirmed", "Your quote": "Your estimate",
    "Receipt": "Proof of purchase", "Meeting notes": "Minutes",
}


def alias_of(name: str) -> str | None:
    for phrase in sorted(SYNONYMS, key=len, reverse=True):
        if phrase in name:
            return name.replace(phrase, SYNONYMS[phrase], 1)
    return None


@register
class Aliases(SeedFault):
    name: ClassVar[str] = "aliases"
    site_protocol: ClassVar[type | None] = AliasesSite
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = (
        "List the target (and its look-alikes) under a synonym of its name, e.g. 'Frying Pan' for 'Skillet'; "
        "bindings keep target.name and get target.listed_name."
    )

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        original = world.bindings["target"]["name"]
        alias = alias_of(original)
        if alias is None:
            raise ValueError(f"aliases: no synonym known for {original!r}")
        renamed = self.site_impl(world.implementations)(world, fault, original, alias)
        world.bindings["target"] = {**world.bindings["target"], "listed_name": alias}
        fault.detail.update(original=original, alias=alias, renamed=renamed)

"""Look-alike family (seed): `decoy_items` (near-duplicate names) and `hard_negatives`
(identical on the listing, different on the detail page).

The mechanism is shared: names are perturbed here, with the fault's own RNG; a site's
implementation clones its target record and inserts the copies into its listing.
"""

from typing import Any, ClassVar, Protocol

from pydantic import Field

from injectors.hookspec import Firing, SeedFault, SeedWorld
from scenarios.faults import Primitive, register


class DecoyItemsSite(Protocol):
    """Add one look-alike of the task's target per name; return the new ids."""

    def __call__(self, world: SeedWorld, fault: Firing, names: list[str]) -> list[str]: ...


class HardNegativesSite(Protocol):
    """Add `count` records identical to the target but for the detail that matters; return their ids."""

    def __call__(self, world: SeedWorld, fault: Firing, count: int, before_target: bool) -> list[str]: ...

_SWAPS = (("-", " "), (" ", "-"), ("&", "and"), ("'s", "s"), ("cm", "in"), ("ml", "oz"))


def near_duplicate_names(name: str, rng: Any, count: int) -> list[str]:
    """`count` distinct names one small edit away from `name` (never equal to it)."""
    words = name.split()
    candidates: list[str] = []
    for old, new in _SWAPS:
        if old in name:
            candidates.append(name.replace(old, new, 1))
    for index, word in enumerate(words):
        if len(word) > 3 and word.isalpha():
            swapped = word[:-2] + word[-1] + word[-2]
            candidates.append(" ".join([*words[:index], swapped, *words[index + 1:]]))
            candidates.append(" ".join([*words[:index], word + "s", *words[index + 1:]]))
    for suffix in ("(Renewed)", "- Open Box", "Bundle", "Plus", "2-Pack", "Lite", "Refill"):
        candidates.append(f"{name} {suffix}")
    unique = [c for c in dict.fromkeys(candidates) if c != name]
    rng.shuffle(unique)
    return unique[:count]


@register
class DecoyItems(SeedFault):
    name: ClassVar[str] = "decoy_items"
    site_protocol: ClassVar[type | None] = DecoyItemsSite
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = (
        "Add count near-duplicates of the target whose names differ by one small edit "
        "(punctuation, a letter, a suffix); bindings get decoy_ids."
    )

    count: int = Field(default=3, ge=1, le=10, description="how many decoys")

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        names = near_duplicate_names(world.bindings["target"]["name"], fault.rng, self.count)
        ids = self.site_impl(world.implementations)(world, fault, names)
        world.bindings["decoy_ids"] = sorted(ids)
        fault.detail.update(added=sorted(ids), names=names)


@register
class HardNegatives(SeedFault):
    name: ClassVar[str] = "hard_negatives"
    site_protocol: ClassVar[type | None] = HardNegativesSite
    primitive: ClassVar[Primitive] = Primitive.exploration
    description: ClassVar[str] = (
        "Add count copies of the target that look identical on the listing (name, price, rating) "
        "but differ on the detail page (seller, delivery); listed before the target by default."
    )

    count: int = Field(default=2, ge=1, le=8, description="how many hard negatives")
    before_target: bool = Field(default=True, description="list them before the target")

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        ids = self.site_impl(world.implementations)(world, fault, self.count, self.before_target)
        world.bindings["hard_negative_ids"] = sorted([*world.bindings.get("hard_negative_ids", []), *ids])
        fault.detail.update(added=sorted(ids))

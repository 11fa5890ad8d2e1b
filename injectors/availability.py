"""Availability family: `out_of_stock_primary` (seed) and `item_removed_mid_flow` (server)."""

from typing import ClassVar

from injectors.hookspec import Firing, Reply, SeedFault, SeedWorld, ServerCall, ServerFault, When
from injectors.specialise import specialisation
from scenarios.faults import Primitive, register


@register
class OutOfStockPrimary(SeedFault):
    name: ClassVar[str] = "out_of_stock_primary"
    primitive: ClassVar[Primitive] = Primitive.backtracking
    description: ClassVar[str] = (
        "The obvious option (the target, listed first) is unavailable and an acceptable alternative "
        "(same item, another seller) is in stock; bindings' target becomes the alternative, primary_id the original."
    )

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = specialisation(self.name, world.site)(world, fault)
        fault.detail.update(detail)


@register
class ItemRemovedMidFlow(ServerFault):
    name: ClassVar[str] = "item_removed_mid_flow"
    primitive: ClassVar[Primitive] = Primitive.backtracking
    description: ClassVar[str] = (
        "Just before a write that involves an item (add to cart, place order), the item becomes unavailable "
        "(sold out), so the write is refused by the site's own rules."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return bool(specialisation(self.name, call.site).item_of(call))

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        removed = specialisation(self.name, call.site).remove(call, fault)
        fault.detail.update(removed=removed)
        return None

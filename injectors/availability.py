"""Availability family: `out_of_stock_primary` (seed) and `item_removed_mid_flow` (server)."""

from typing import Any, ClassVar, Protocol

from injectors.hookspec import Firing, Reply, SeedFault, SeedWorld, ServerCall, ServerFault, When
from scenarios.faults import Primitive, register


class OutOfStockPrimarySite(Protocol):
    """Make the target unavailable and offer an alternative (rebinding the target); describe both."""

    def __call__(self, world: SeedWorld, fault: Firing) -> dict[str, Any]: ...


class ItemRemovedMidFlowSite(Protocol):
    def item_of(self, call: ServerCall) -> str | None:
        """The available record this write is about, if any."""
        ...

    def remove(self, call: ServerCall, fault: Firing) -> str:
        """Make that record unavailable; return its id."""
        ...


@register
class OutOfStockPrimary(SeedFault):
    name: ClassVar[str] = "out_of_stock_primary"
    site_protocol: ClassVar[type | None] = OutOfStockPrimarySite
    primitive: ClassVar[Primitive] = Primitive.backtracking
    description: ClassVar[str] = (
        "The obvious option (the target, listed first) is unavailable and an acceptable alternative "
        "(same item, another seller) is in stock; bindings' target becomes the alternative, primary_id the original."
    )

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = self.site_impl(world.implementations)(world, fault)
        fault.detail.update(detail)


@register
class ItemRemovedMidFlow(ServerFault):
    name: ClassVar[str] = "item_removed_mid_flow"
    site_protocol: ClassVar[type | None] = ItemRemovedMidFlowSite
    primitive: ClassVar[Primitive] = Primitive.backtracking
    description: ClassVar[str] = (
        "Just before a write that involves an available item (a product, a room, a slot), the item becomes "
        "unavailable (sold out, taken), so the write is refused by the site's own rules."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return bool(self.site_impl(call.implementations).item_of(call))

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        removed = self.site_impl(call.implementations).remove(call, fault)
        fault.detail.update(removed=removed)
        return None

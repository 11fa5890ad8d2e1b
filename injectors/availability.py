"""Availability family: `out_of_stock_primary` and `target_missing` (seed), `item_removed_mid_flow` (server)."""

from typing import Any, ClassVar, Protocol

from injectors.hookspec import Firing, Reply, SeedFault, SeedWorld, ServerCall, ServerFault, When
from scenarios.answers import INFEASIBLE_BINDING
from scenarios.faults import Primitive, register


class OutOfStockPrimarySite(Protocol):
    """Make the target unavailable and offer an alternative (rebinding the target); describe both."""

    def __call__(self, world: SeedWorld, fault: Firing) -> dict[str, Any]: ...


class TargetMissingSite(Protocol):
    """Remove the task's target from the world (and whatever would still show it), leaving its look-alikes;
    describe what was removed (`removed`: its id, and what a near miss would be)."""

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
class TargetMissing(SeedFault):
    name: ClassVar[str] = "target_missing"
    site_protocol: ClassVar[type | None] = TargetMissingSite
    primitive: ClassVar[Primitive] = Primitive.verification
    makes_infeasible: ClassVar[bool] = True
    description: ClassVar[str] = (
        "The task's target does not exist in this world (its look-alikes do): the task cannot be done, and the "
        "correct outcome is the answer 'infeasible' with nothing written; bindings get infeasible."
    )

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = self.site_impl(world.implementations)(world, fault)
        world.bindings[INFEASIBLE_BINDING] = detail
        fault.detail.update(detail)


@register
class ItemRemovedMidFlow(ServerFault):
    name: ClassVar[str] = "item_removed_mid_flow"
    site_protocol: ClassVar[type | None] = ItemRemovedMidFlowSite
    primitive: ClassVar[Primitive] = Primitive.backtracking
    description: ClassVar[str] = (
        "Just before a write that involves an available item (in stock, free to book), the item becomes "
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

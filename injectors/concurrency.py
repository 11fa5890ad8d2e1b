"""Concurrency family (server): `concurrent_edit` and `price_change_at_checkout` — someone
else changes the record between the agent's read and its write."""

from typing import ClassVar

from pydantic import Field

from injectors.hookspec import Firing, Reply, ServerCall, ServerFault, When
from injectors.specialise import specialisation
from scenarios.faults import Primitive, register


@register
class ConcurrentEdit(ServerFault):
    name: ClassVar[str] = "concurrent_edit"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Just before a write, another actor changes the same record (shop: a cart item's quantity, or the "
        "default address); with conflict the agent's write is refused with 409, otherwise it applies on top."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    conflict: bool = Field(default=True, description="answer 409 instead of applying the agent's write")

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return call.point in specialisation(self.name, call.site).points

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        edit = specialisation(self.name, call.site).edit(call, fault)
        fault.detail.update(edit, conflict=self.conflict)
        if self.conflict:
            return Reply.error(409, "This record was changed by someone else. Reload the page and try again.")
        return None


@register
class PriceChangeAtCheckout(ServerFault):
    name: ClassVar[str] = "price_change_at_checkout"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "When the order is placed, the price of an item in it has just changed by change_pct: the product "
        "and the cart line take the new price and the order is refused once with 409 so it can be reviewed."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    change_pct: int = Field(default=15, ge=-90, le=500, description="price change, in percent (not 0)")
    confirm: bool = Field(default=True, description="refuse the order once (409) so the new price can be seen")

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return call.point in specialisation(self.name, call.site).points and bool(
            specialisation(self.name, call.site).item_of(call))

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        change = specialisation(self.name, call.site).reprice(call, fault, self.change_pct)
        fault.detail.update(change)
        if self.confirm:
            return Reply.error(409, change["message"])
        return None

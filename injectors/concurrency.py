"""Concurrency family (server): `concurrent_edit` and `price_change_at_checkout` — someone
else changes the record between the agent's read and its write."""

from typing import Any, ClassVar, Protocol

from pydantic import Field

from injectors.hookspec import Firing, Reply, ServerCall, ServerFault, When
from scenarios.faults import Primitive, register


class ConcurrentEditSite(Protocol):
    points: frozenset[str]

    def edit(self, call: ServerCall, fault: Firing) -> dict[str, Any]:
        """Change the record this write is about, as another session would; say what changed."""
        ...


class PriceChangeAtCheckoutSite(Protocol):
    points: frozenset[str]

    def item_of(self, call: ServerCall) -> str | None:
        """The record whose price the write depends on, if any."""
        ...

    def reprice(self, call: ServerCall, fault: Firing, change_pct: int) -> dict[str, Any]:
        """Change its price by about change_pct; return old/new and a user-facing `message`."""
        ...


@register
class ConcurrentEdit(ServerFault):
    name: ClassVar[str] = "concurrent_edit"
    site_protocol: ClassVar[type | None] = ConcurrentEditSite
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Just before a write, another actor changes the same record (the site says which, e.g. a quantity "
        "or a default choice); with conflict the agent's write is refused with 409, otherwise it applies on top."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    conflict: bool = Field(default=True, description="answer 409 instead of applying the agent's write")

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return call.point in self.site_impl(call.implementations).points

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        edit = self.site_impl(call.implementations).edit(call, fault)
        fault.detail.update(edit, conflict=self.conflict)
        if self.conflict:
            return Reply.error(409, "This record was changed by someone else. Reload the page and try again.")
        return None


@register
class PriceChangeAtCheckout(ServerFault):
    name: ClassVar[str] = "price_change_at_checkout"
    site_protocol: ClassVar[type | None] = PriceChangeAtCheckoutSite
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "When the purchase is placed, the price of an item in it has just changed by change_pct: the item "
        "takes the new price and the purchase is refused once with 409 so it can be reviewed."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"write"})
    when: ClassVar[When] = "before"

    change_pct: int = Field(default=15, ge=-90, le=500, description="price change, in percent (not 0)")
    confirm: bool = Field(default=True, description="refuse the order once (409) so the new price can be seen")

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        return call.point in self.site_impl(call.implementations).points and bool(
            self.site_impl(call.implementations).item_of(call))

    def before(self, call: ServerCall, fault: Firing) -> Reply | None:
        change = self.site_impl(call.implementations).reprice(call, fault, self.change_pct)
        fault.detail.update(change)
        if self.confirm:
            return Reply.error(409, change["message"])
        return None

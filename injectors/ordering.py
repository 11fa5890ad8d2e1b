"""Ordering family: `push_past_first_page` (seed: the target is not on page 1) and
`pagination_drift` (server: new records arrive at the top while the agent pages)."""

from typing import Any, ClassVar, Protocol

from pydantic import Field

from injectors.hookspec import Firing, SeedFault, SeedWorld, ServerCall, ServerFault, When
from scenarios.faults import Primitive, register
from scenarios.ledger import CREATED_IDS


class PushPastFirstPageSite(Protocol):
    """Put `filler` records ahead of the target so it is past the first page; say where it went."""

    def __call__(self, world: SeedWorld, fault: Firing, filler: int) -> dict[str, Any]: ...


class PaginationDriftSite(Protocol):
    points: frozenset[str]

    def add(self, call: ServerCall, fault: Firing, shift: int) -> list[str]:
        """Insert `shift` new records at the head of the list the call shows; return the ids of every
        record created (the new ones and any they bring along, such as a first revision)."""
        ...


@register
class PushPastFirstPage(SeedFault):
    name: ClassVar[str] = "push_past_first_page"
    site_protocol: ClassVar[type | None] = PushPastFirstPageSite
    primitive: ClassVar[Primitive] = Primitive.exploration
    description: ClassVar[str] = (
        "Move the target past the first page of the listing and add filler records that match a search "
        "for its name, listed first, so the target is on page 2 of those results too."
    )

    filler: int = Field(default=12, ge=0, le=40, description="records listed before the target in its search results")

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = self.site_impl(world.implementations)(world, fault, self.filler)
        world.bindings["filler_ids"] = list(detail.get("filler_ids", []))
        fault.detail.update(detail)


@register
class PaginationDrift(ServerFault):
    name: ClassVar[str] = "pagination_drift"
    site_protocol: ClassVar[type | None] = PaginationDriftSite
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "When a page after the first of a listing is requested, shift new records have just been added at "
        "the top, so items move down a page (some seen again, some never shown)."
    )
    kinds: ClassVar[frozenset[str]] = frozenset({"page"})
    when: ClassVar[When] = "before"

    shift: int = Field(default=3, ge=1, le=24, description="records added per firing")

    def eligible(self, call: ServerCall, fault: Firing) -> bool:
        page = call.query.get("page", "1")
        spec = self.site_impl(call.implementations)
        return call.point in spec.points and page.isdigit() and int(page) >= 2

    def before(self, call: ServerCall, fault: Firing) -> None:
        ids = self.site_impl(call.implementations).add(call, fault, self.shift)
        fault.detail.update({CREATED_IDS: ids, "page": int(call.query.get("page", "1"))})
        return None

"""Misinformation family (seed): `contradictory_update` (two records disagree; the newer is
right) and `planted_wrong_answer` (a popular but wrong answer next to the truth)."""

from typing import Any, ClassVar, Protocol

from pydantic import Field

from injectors.hookspec import Firing, SeedFault, SeedWorld
from scenarios.faults import Primitive, register


class ContradictoryUpdateSite(Protocol):
    """Plant an older claim about the target and a newer correction; describe both."""

    def __call__(self, world: SeedWorld, fault: Firing) -> dict[str, Any]: ...


class PlantedWrongAnswerSite(Protocol):
    """Plant a popular but wrong answer near the target; describe it and the truth."""

    def __call__(self, world: SeedWorld, fault: Firing, helpful_votes: int) -> dict[str, Any]: ...


@register
class ContradictoryUpdate(SeedFault):
    name: ClassVar[str] = "contradictory_update"
    site_protocol: ClassVar[type | None] = ContradictoryUpdateSite
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Add two records about the target that disagree; the newer one matches the state and wins "
        "(e.g. an old announcement and a newer correction); bindings get contradiction."
    )

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = self.site_impl(world.implementations)(world, fault)
        world.bindings["contradiction"] = detail
        fault.detail.update(detail)


@register
class PlantedWrongAnswer(SeedFault):
    name: ClassVar[str] = "planted_wrong_answer"
    site_protocol: ClassVar[type | None] = PlantedWrongAnswerSite
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Plant a popular but wrong answer (e.g. a highly rated comment on a look-alike of the target that "
        "claims it is sold by the target's seller); the authoritative fields stay true."
    )

    helpful_votes: int = Field(default=214, ge=0, le=100_000, description="shown next to the planted review")

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = self.site_impl(world.implementations)(world, fault, self.helpful_votes)
        world.bindings["planted"] = detail
        fault.detail.update(detail)

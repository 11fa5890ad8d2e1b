"""Misinformation family (seed): `contradictory_update` (two records disagree; the newer is
right) and `planted_wrong_answer` (a popular but wrong answer next to the truth)."""

from typing import ClassVar

from pydantic import Field

from injectors.hookspec import Firing, SeedFault, SeedWorld
from injectors.specialise import specialisation
from scenarios.faults import Primitive, register


@register
class ContradictoryUpdate(SeedFault):
    name: ClassVar[str] = "contradictory_update"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Add two records about the target that disagree; the newer one matches the state and wins "
        "(shop: an old price-drop message and a newer correction); bindings get contradiction."
    )

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = specialisation(self.name, world.site)(world, fault)
        world.bindings["contradiction"] = detail
        fault.detail.update(detail)


@register
class PlantedWrongAnswer(SeedFault):
    name: ClassVar[str] = "planted_wrong_answer"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Plant a popular but wrong answer (shop: a highly rated review on a look-alike of the target that "
        "claims it is sold by the target's seller); the authoritative fields stay true."
    )

    helpful_votes: int = Field(default=214, ge=0, le=100_000, description="shown next to the planted review")

    def seed(self, world: SeedWorld, fault: Firing) -> None:
        detail = specialisation(self.name, world.site)(world, fault, self.helpful_votes)
        world.bindings["planted"] = detail
        fault.detail.update(detail)

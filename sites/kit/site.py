"""What a site is: a generator of seeded worlds plus a FastAPI app over them."""

from dataclasses import dataclass, field
from random import Random
from typing import TYPE_CHECKING, Any, Protocol

from fastapi import FastAPI
from pydantic import BaseModel

from sites.kit.clock import EpisodeClock

if TYPE_CHECKING:
    from sites.kit.episode import EpisodeStore


class WorldSetup(BaseModel):
    """The task's request to the site's generator (scenario `setup.params`)."""

    params: dict[str, Any] = {}


@dataclass
class World:
    """A freshly generated world: the state and the names a task may refer to."""

    state: BaseModel
    bindings: dict[str, Any] = field(default_factory=dict)


class Site(Protocol):
    name: str          # "shop"
    host: str          # "shop.test"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World: ...

    def app(self, store: "EpisodeStore") -> FastAPI:
        """The site's public app; it finds its episode with `sites.kit.deps.episode_from`."""
        ...

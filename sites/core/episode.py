"""Episodes: one seeded world, its clock and its event log, isolated from the others."""

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from sites.core.clock import EpisodeClock
from sites.core.events import EventKind, SemanticEvent
from sites.core.rng import derive_seed, episode_rng
from sites.core.site import Site, WorldSetup


@dataclass
class Episode:
    id: str
    site: str
    task_id: str
    variant_id: str | None
    seed: int
    state: BaseModel
    initial_state: bytes
    bindings: dict[str, Any]
    clock: EpisodeClock
    faults: list[dict[str, Any]] = field(default_factory=list)
    events: list[SemanticEvent] = field(default_factory=list)

    def record(self, kind: EventKind, name: str, target: str | None = None, **detail: Any) -> None:
        self.events.append(
            SemanticEvent(
                seq=len(self.events), at=_iso(self.clock), kind=kind, name=name, target=target,
                detail=detail,
            )
        )

    def state_bytes(self) -> bytes:
        return self.state.model_dump_json(indent=1).encode()


def _iso(clock: EpisodeClock) -> str:
    from sites.core.clock import iso

    return iso(clock.now())


class EpisodeStore:
    """All open episodes of the sites server, keyed by id."""

    def __init__(self, sites: dict[str, Site]) -> None:
        self.sites = sites
        self._episodes: dict[str, Episode] = {}
        self._counter = 0

    def create(
        self,
        site: str,
        task_id: str,
        seed: int,
        setup: WorldSetup,
        variant_id: str | None = None,
        episode_id: str | None = None,
        faults: list[dict[str, Any]] | None = None,
    ) -> Episode:
        if site not in self.sites:
            raise KeyError(f"unknown site {site!r}; known: {sorted(self.sites)}")
        if episode_id is None:
            self._counter += 1
            episode_id = f"ep{self._counter:05d}"
        if episode_id in self._episodes:
            raise ValueError(f"episode {episode_id!r} already exists")
        clock = EpisodeClock(derive_seed(site, task_id, seed))
        world = self.sites[site].generate(setup, episode_rng(site, task_id, seed), clock)
        episode = Episode(
            id=episode_id, site=site, task_id=task_id, variant_id=variant_id, seed=seed,
            state=world.state, initial_state=b"", bindings=world.bindings, clock=clock,
            faults=list(faults or []),
        )
        episode.initial_state = episode.state_bytes()
        self._episodes[episode_id] = episode
        return episode

    def get(self, episode_id: str) -> Episode | None:
        return self._episodes.get(episode_id)

    def delete(self, episode_id: str) -> bool:
        return self._episodes.pop(episode_id, None) is not None

    def __iter__(self) -> Iterator[Episode]:
        return iter(list(self._episodes.values()))

    def __len__(self) -> int:
        return len(self._episodes)

"""Episodes: one seeded world, its clock and its event log, isolated from the others."""

import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from injectors.hookspec import Firing, Reply, ServerCall
from scenarios.faults import Layer
from sites.kit.clock import EpisodeClock
from sites.kit.events import EventKind, SemanticEvent
from sites.kit.ledger import SiteLedger
from sites.kit.rng import derive_seed, episode_rng
from sites.kit.site import Site, WorldSetup


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
    # Seed- and server-layer faults of this episode, armed; their ledger lines.
    injected: list[Firing] = field(default_factory=list)
    opened_at: float = field(default_factory=time.monotonic)
    ledger: SiteLedger = field(init=False)
    # The user's session on the site (server-layer `session_expiry` signs it out).
    signed_in: bool = True

    def __post_init__(self) -> None:
        self.ledger = SiteLedger(self.opened_at)

    def faults_of(self, layer: Layer) -> list[Firing]:
        return [f for f in self.injected if f.armed.spec.layer == layer]

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.opened_at) * 1000

    def login_required(self, call: ServerCall) -> Reply:
        from sites.kit.hooks import login_required

        return login_required(call)

    def sign_in(self) -> None:
        self.signed_in = True

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
    from sites.kit.clock import iso

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
        from sites.kit.hooks import arm_site_faults, run_seed_hooks

        injected = arm_site_faults(list(faults or []), seed, site)  # FaultError (a ValueError) if bad
        clock = EpisodeClock(derive_seed(site, task_id, seed))
        world = self.sites[site].generate(setup, episode_rng(site, task_id, seed), clock)
        episode = Episode(
            id=episode_id, site=site, task_id=task_id, variant_id=variant_id, seed=seed,
            state=world.state, initial_state=b"", bindings=world.bindings, clock=clock,
            faults=list(faults or []), injected=injected,
        )
        run_seed_hooks(episode, self.sites[site].host, setup.params)
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

"""A site episode: one seeded world (typed: `SiteEpisode[ShopState]`), its clock, its event log and its armed
faults. (The proxy and the harness have episodes of their own; this is the sites server's.)"""

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from injectors.hookspec import Firing, Reply, ServerCall
from scenarios.clock import EpisodeClock, iso
from scenarios.events import SemanticEvent
from scenarios.faults import Layer
from scenarios.feed import Feed
from sites.kit.events import EventEmitter
from sites.kit.ledger import SiteLedger
from sites.kit.session import login_required

StateT = TypeVar("StateT", bound=BaseModel)


@dataclass
class SiteEpisode(Generic[StateT]):
    id: str
    site: str
    task_id: str
    variant_id: str | None
    seed: int
    state: StateT  # of the site's `state_type` (the store checks it once, at creation)
    initial_state: bytes
    bindings: dict[str, Any]
    clock: EpisodeClock
    faults: list[dict[str, Any]] = field(default_factory=list)
    events: list[SemanticEvent] = field(default_factory=list)
    # Seed- and server-layer faults of this episode, armed; their ledger lines.
    injected: list[Firing] = field(default_factory=list)
    # The site's implementations of the fault families (its `faults.py`), by type name.
    implementations: Mapping[str, object] = field(default_factory=dict)
    opened_at: float = field(default_factory=time.monotonic)
    ledger: SiteLedger = field(init=False)
    emit: EventEmitter = field(init=False)
    # The user's session on the site (server-layer `session_expiry` signs it out).
    signed_in: bool = True
    # Events already named to the proxy in a response header (sites.kit.progress), for its triggers.
    events_reported: int = 0
    armed_at_runtime: int = 0  # server faults armed through the oracle so far (default ids)
    feed: Feed = field(default_factory=Feed)  # wakes the oracle's long-polling event readers

    def __post_init__(self) -> None:
        self.ledger = SiteLedger(self.opened_at)
        self.emit = EventEmitter(self.events, lambda: iso(self.clock.now()), self._observe)

    def _observe(self, event: SemanticEvent) -> None:
        """Advance the triggers of this episode's server faults (a ledger line when one changes);
        wake the readers waiting for the next event."""
        self.feed.notify()
        for fault in self.injected:
            change = fault.armed.observe("event", event.kind.value, event.name)
            if change is not None:
                self.ledger.write(fault.armed.spec.layer.value, fault.armed.spec.type, fault_id=fault.id,
                                  detail={"control": change, "on": {"event": event.kind.value, "name": event.name}})

    def faults_of(self, layer: Layer) -> list[Firing]:
        return [f for f in self.injected if f.armed.spec.layer == layer]

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.opened_at) * 1000

    def login_required(self, call: ServerCall) -> Reply:
        """What a signed-out request gets (the `session_expiry` fault asks through the call)."""
        return login_required(call)

    def sign_in(self) -> None:
        self.signed_in = True

    def state_bytes(self) -> bytes:
        return self.state.model_dump_json(indent=1).encode()

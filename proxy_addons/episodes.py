"""The per-episode registry shared by every addon of the stack.

An episode owns one listener (`regular@127.0.0.1:<port>`); a flow belongs to the
episode whose listener it arrived on (`flow.client_conn.proxy_mode.full_spec`).
The registry holds, per episode: its armed network and client faults, its ledger,
and the flows seen so far (for the HAR; finished ones as their HAR entries). `stack.py` creates one registry and hands
it to every addon.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mitmproxy import http

from proxy_addons.ledger import LEDGER_FILE, Ledger, marks
from scenarios.faults import PROXY_LAYERS, ArmedFault, FaultSpec, FaultType, Layer, Schedule, parse_faults
from scenarios.feed import Feed

# Must equal sites.kit.deps.EPISODE_HEADER (checked by a test); not imported from there
# so that the proxy process (and fault registration) does not pull in FastAPI.
EPISODE_HEADER = "x-webchaos-episode"

__all__ = ["EPISODE_HEADER", "Episodes", "ProxyEpisode", "arm_proxy_faults"]


def arm_proxy_faults(raw_faults: list[Any], seed: int) -> list[ArmedFault]:
    """Validate every envelope and arm the ones the proxy runs (network and client layers).

    Faults of other layers are checked as envelopes only (their types live in other
    processes) and otherwise ignored; default ids still use the index in the full list.
    Raises `FaultError` naming the index and the field.
    """
    return [ArmedFault(with_default_schedule(spec, params), params, seed)
            for spec, params in parse_faults(raw_faults, PROXY_LAYERS)]


def with_default_schedule(spec: FaultSpec, params: FaultType) -> FaultSpec:
    """A type may declare the schedule it means when the envelope gives none (`default_schedule`)."""
    default = getattr(type(params), "default_schedule", None)
    if default is None or "schedule" in spec.model_fields_set:
        return spec
    return spec.model_copy(update={"schedule": Schedule.model_validate(default)})


@dataclass
class ProxyEpisode:
    id: str
    seed: int
    out_dir: Path
    port: int
    faults: list[ArmedFault] = field(default_factory=list)
    opened_at: float = field(default_factory=time.monotonic)
    # By flow id, in arrival order: the flow while in flight, its bounded HAR entry once done (recorder.py).
    flows: dict[str, http.HTTPFlow | dict[str, Any]] = field(default_factory=dict)
    record_actions: bool = True  # inject the GUI-action recorder into every HTML page
    record_replay: bool = True  # record every top page with rrweb into <out_dir>/rrweb.jsonl (when installed)
    replay_pages: int = 0  # page loads given an rrweb recorder so far (their `rec` numbers: 1..n)
    ledger_path: Path | None = None  # default: <out_dir>/faults.jsonl
    closing: bool = False  # its close has begun: no second close, though its in-flight writes finish
    events_seen: int = 0  # semantic events of the site seen so far (their seq below this), for triggers
    armed_at_runtime: int = 0  # faults armed through the control API so far (default ids)
    feed: Feed = field(default_factory=Feed)  # wakes the control API's long-polling action readers
    # Client faults injected into a page that has not reported acting yet (client/inject.py carries them over)
    client_unfired: set[str] = field(default_factory=set)
    ledger: Ledger = field(init=False)

    def __post_init__(self) -> None:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        self.ledger = Ledger(self.ledger_path or self.out_dir / LEDGER_FILE, self.opened_at)

    @property
    def firings(self) -> int:
        return self.ledger.firings

    @property
    def mode_spec(self) -> str:
        return f"regular@127.0.0.1:{self.port}"

    @property
    def proxy_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def elapsed_ms(self) -> float:
        return (time.monotonic() - self.opened_at) * 1000

    def faults_of(self, layer: Layer) -> list[ArmedFault]:
        return [f for f in self.faults if f.spec.layer == layer]

    def fault(self, fault_id: str) -> ArmedFault | None:
        return next((f for f in self.faults if f.id == fault_id), None)


class Episodes:
    """Open episodes, by id and by listener spec; ports are never reused within the process."""

    def __init__(self) -> None:
        self.by_id: dict[str, ProxyEpisode] = {}
        self.by_spec: dict[str, ProxyEpisode] = {}
        self.used_ports: set[int] = set()

    def __len__(self) -> int:
        return len(self.by_id)

    def add(self, episode: ProxyEpisode) -> None:
        if episode.id in self.by_id:
            raise ValueError(f"episode {episode.id!r} is already open")
        if episode.port in self.used_ports:
            raise ValueError(f"port {episode.port} was already used in this proxy")
        self.used_ports.add(episode.port)
        self.by_id[episode.id] = episode
        self.by_spec[episode.mode_spec] = episode

    def remove(self, episode_id: str) -> ProxyEpisode | None:
        episode = self.by_id.pop(episode_id, None)
        if episode is not None:
            self.by_spec.pop(episode.mode_spec, None)
        return episode

    def get(self, episode_id: str) -> ProxyEpisode | None:
        return self.by_id.get(episode_id)

    def for_flow(self, flow: http.HTTPFlow) -> ProxyEpisode | None:
        """The open episode whose listener the flow came in on (None if any other)."""
        mode = flow.client_conn.proxy_mode
        episode = self.by_spec.get(mode.full_spec)
        if episode is None:
            return None
        marks(flow).setdefault("episode", episode.id)
        return episode

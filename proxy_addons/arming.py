"""Faults armed and disarmed while an episode runs, and the triggers of the proxy's faults.

`arm_fault` / `disarm_fault` are what the control API's `POST /episodes/{id}/faults` and
`DELETE /episodes/{id}/faults/{fault_id}` do: an envelope exactly as in the catalog, network or
client layer only (the checks shared with the sites: scenarios/arming.py), one ledger line each
(`detail.control`: `armed` / `disarmed`, never a firing).

`observe` feeds the episode's progress to its faults' triggers (scenarios/triggers.py) and
writes a ledger line when a trigger starts or ends a fault. It is called with the agent's GUI
actions as the recorder receives them, and with the site's semantic events, which the sites
server names in a response header (`EVENTS_HEADER`) that `SiteEvents` reads and takes off
before any other addon or the agent sees the response.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from mitmproxy import http

from proxy_addons.episodes import Episodes, ProxyEpisode, with_default_schedule
from proxy_addons.ledger import marks
from scenarios.arming import no_such_fault, parse_runtime_fault
from scenarios.faults import PROXY_LAYERS, ArmedFault
from scenarios.ledger import ARMED, DISARMED
from scenarios.triggers import EVENTS_HEADER, Source

logger = logging.getLogger(__name__)


def arm_fault(episode: ProxyEpisode, raw: Any) -> ArmedFault:
    """Validate one envelope and arm it on the open episode; returns the armed fault."""
    spec, params = parse_runtime_fault(raw, PROXY_LAYERS, episode.id, [f.id for f in episode.faults],
                                       episode.armed_at_runtime)
    armed = ArmedFault(with_default_schedule(spec, params), params, episode.seed)
    episode.armed_at_runtime += 1
    episode.faults.append(armed)
    episode.ledger.write(spec.layer.value, spec.type, fault_id=armed.id,
                         detail={"control": ARMED, "active": armed.active,
                                 "envelope": armed.spec.model_dump(mode="json", exclude_none=True)})
    return armed


def disarm_fault(episode: ProxyEpisode, fault_id: str) -> ArmedFault:
    """Take a fault (armed at open or at run time) off the episode; pages already given a client
    fault keep it until they are left (it acts on the pages loaded while it is armed)."""
    armed = episode.fault(fault_id)
    if armed is None:
        raise no_such_fault(episode.id, fault_id, [f.id for f in episode.faults])
    episode.faults.remove(armed)
    episode.ledger.write(armed.spec.layer.value, armed.spec.type, fault_id=armed.id,
                         detail={"control": DISARMED, "eligible": armed.eligible, "fired": armed.fired})
    return armed


def observe(episode: ProxyEpisode, source: Source, kind: str, name: str | None) -> None:
    """One semantic event or GUI action: advance every trigger of the episode's faults."""
    for armed in list(episode.faults):
        change = armed.observe(source, kind, name)
        if change is not None:
            episode.ledger.write(armed.spec.layer.value, armed.spec.type, fault_id=armed.id,
                                 detail={"control": change, "on": {source: kind, "name": name}})


def action_name(action: dict[str, Any]) -> str | None:
    """What an action trigger's `name` matches: the target's accessible name (navigation: the page)."""
    if action.get("kind") == "navigation":
        return str(action.get("page")) if action.get("page") is not None else None
    target = action.get("target") or {}
    name = target.get("name") if isinstance(target, dict) else None
    return str(name) if name is not None else None


def observe_actions(episode: ProxyEpisode, actions: list[dict[str, Any]]) -> None:
    for action in actions:
        observe(episode, "action", str(action.get("kind")), action_name(action))


def parse_events_header(value: str) -> list[tuple[int, str, str]]:
    """`[[seq, kind, name], …]` as the sites server writes it; anything else reads as no events."""
    try:
        raw = json.loads(value)
    except ValueError:
        return []
    out = []
    for item in raw if isinstance(raw, list) else []:
        if (isinstance(item, list) and len(item) == 3 and isinstance(item[0], int)
                and isinstance(item[1], str) and isinstance(item[2], str)):
            out.append((item[0], item[1], item[2]))
    return out


class SiteEvents:
    """Read (and take off) the sites server's events header; feed new events to the triggers.

    Runs right after the router, so a response-hook fault already sees a trigger its own
    request set off, and the agent never sees the header."""

    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response is None or EVENTS_HEADER not in flow.response.headers:
            return
        value = flow.response.headers.pop(EVENTS_HEADER)
        if marks(flow).get("local"):
            return
        episode = self.episodes.get(marks(flow).get("episode", ""))
        if episode is None:
            return
        # Sorted by seq and counted once each: concurrent requests may both name an event.
        for seq, kind, name in sorted(parse_events_header(value)):
            if seq < episode.events_seen:
                continue
            episode.events_seen = seq + 1
            observe(episode, "event", kind, name)

"""Run-time control of an open episode: arm and disarm faults, watch its progress.

What `webchaos.Episode.arm / disarm / events / wait_for` do. A fault is one envelope, exactly as
in the catalog; network and client faults go to the proxy's control API, server faults to the
sites' oracle, seed faults only when an episode opens. Progress is the site's semantic events
(from the oracle) and the agent's GUI actions (from the proxy's recorder), polled.
"""

import asyncio
import fnmatch
from collections.abc import Mapping
from typing import Any

from grader.oracle_client import OracleError
from harness.control_client import ControlError
from harness.episode import LiveEpisode
from scenarios.faults import FaultSpec


class WebchaosError(RuntimeError):
    """A usage error of the API: unknown task or variant, a stack not started, no browser."""


class FaultControlError(WebchaosError):
    """Arming or disarming refused; `status` is the HTTP answer of the proxy or the oracle (4xx)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


POLL_S = 0.1


def site_event(raw: Mapping[str, Any]) -> dict[str, Any]:
    return {"source": "site", **raw}


def gui_action(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A GUI action as an event: `name` is its target's accessible name (navigation: the page path)."""
    if raw.get("kind") == "navigation":
        name = raw.get("page")
    else:
        target = raw.get("target") or {}
        name = target.get("name") if isinstance(target, dict) else None
    return {"source": "gui", "name": name, **raw}


def matches(event: Mapping[str, Any], kind: str | None, name: str | None, source: str | None) -> bool:
    if kind is not None and event.get("kind") != kind:
        return False
    if source is not None and event.get("source") != source:
        return False
    if name is None:
        return True
    value = event.get("name")
    return isinstance(value, str) and fnmatch.fnmatchcase(value, name)


class EpisodeControl:
    """Arming and progress for one live episode (runs on the stack's event loop)."""

    def __init__(self, live: LiveEpisode) -> None:
        self.live = live

    @property
    def episode_id(self) -> str:
        return self.live.opened.episode_id

    @property
    def closed(self) -> bool:
        return self.live.final_state is not None

    async def arm(self, fault: Mapping[str, Any] | FaultSpec) -> str:
        envelope = (fault.model_dump(mode="json", exclude_none=True) if isinstance(fault, FaultSpec)
                    else dict(fault))
        layer = envelope.get("layer")
        if layer == "seed":
            raise FaultControlError("seed faults shape the generated world: they are armed only when an episode "
                                    "opens (put them in a variant)", 422)
        if self.closed:
            raise FaultControlError(f"episode {self.episode_id} is closed: faults are armed on open episodes only",
                                    409)
        manager = self.live.manager
        try:
            if layer == "server":
                answer = await manager.oracle.arm_fault(self.episode_id, envelope)
            else:
                answer = await manager.control.arm_fault(self.episode_id, envelope)
        except (OracleError, ControlError) as exc:
            raise FaultControlError(str(exc), exc.status) from exc
        return str(answer["fault_id"])

    async def disarm(self, fault_id: str) -> dict[str, Any]:
        """Disarm at the proxy, or (a server fault) at the sites; returns its counts."""
        if self.closed:
            raise FaultControlError(f"episode {self.episode_id} is closed", 409)
        manager = self.live.manager
        try:
            return await manager.control.disarm_fault(self.episode_id, fault_id)
        except ControlError as exc:
            if exc.status != 404 or "has no fault" not in str(exc):
                raise FaultControlError(str(exc), exc.status) from exc
            proxy_says = str(exc)
        try:
            return await manager.oracle.disarm_fault(self.episode_id, fault_id)
        except OracleError as exc:
            raise FaultControlError(f"{proxy_says}; {exc}", exc.status) from exc

    async def poll(self, events_seen: int, actions_seen: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]],
                                                                     bool]:
        """New semantic events and GUI actions since the counts given; and whether the episode is closed."""
        if self.closed:
            return [], [], True
        manager = self.live.manager
        try:
            events = await manager.oracle.events(self.episode_id, since=events_seen)
            actions = await manager.control.actions(self.episode_id, since=actions_seen)
        except (OracleError, ControlError) as exc:
            if exc.status in (404, 409):  # closed between the check and the call
                return [], [], True
            raise
        return ([site_event(e.model_dump(mode="json")) for e in events], [gui_action(a) for a in actions],
                False)


async def wait_until(events: Any, *, kind: str | None, name: str | None, count: int, source: str | None,
                     timeout_s: float) -> dict[str, Any]:
    """The `count`-th event of `events` (an async iterator from the episode's start) that matches."""
    if count < 1:
        raise ValueError("count must be at least 1")
    seen = 0
    what = f"{count} × {kind or 'any'}{f' {name!r}' if name else ''}"
    try:
        async with asyncio.timeout(timeout_s):
            async for event in events:
                if matches(event, kind, name, source):
                    seen += 1
                    if seen >= count:
                        return dict(event)
    except TimeoutError:
        raise TimeoutError(f"waited {timeout_s:g} s for {what}; saw {seen}") from None
    raise WebchaosError(f"the episode closed before {what} (saw {seen})")

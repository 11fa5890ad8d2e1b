"""Run-time control of an open episode: arm and disarm faults, watch its progress.

What `webchaos.Episode.arm / disarm / events / wait_for` do. A fault is one envelope, exactly as
in the catalog; network and client faults go to the proxy's control API, server faults to the
sites' oracle, seed faults only when an episode opens. Progress is the site's semantic events
(from the oracle) and the agent's GUI actions (from the proxy's recorder), each read by a long poll
that the arrival itself answers (scenarios/feed.py), never on a timer.
"""

import asyncio
import contextlib
import fnmatch
import json
from collections.abc import AsyncGenerator, Mapping
from pathlib import Path
from typing import Any

from harness.episodes.manager import LiveEpisode
from harness.services.control_client import ControlError
from harness.services.oracle_client import OracleError
from scenarios.faults import FaultSpec
from scenarios.feed import CLOSED_STATUS


class WebchaosError(RuntimeError):
    """A usage error of the API: unknown task or variant, a stack not started, no browser."""


class FaultControlError(WebchaosError):
    """Arming or disarming refused; `status` is the HTTP answer of the proxy or the oracle (4xx)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


# How long one long poll of `events()` waits at the oracle or the proxy before asking again (≤ MAX_WAIT_S).
LONG_POLL_S = 20.0


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
        self.stream = ProgressStream(self)

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

    async def next_events(self, seen: int, wait_s: float = LONG_POLL_S) -> tuple[list[dict[str, Any]], bool]:
        """The site's semantic events from the `seen`-th on, as soon as there is one (a long poll at the
        oracle, woken by the event); and True once the episode is closed with nothing left to give."""
        try:
            events = await self.live.manager.oracle.events(self.episode_id, since=seen, wait_s=wait_s)
        except OracleError as exc:
            if exc.status in (404, CLOSED_STATUS):
                return [], True
            raise
        return [site_event(e.model_dump(mode="json")) for e in events], False

    async def next_actions(self, seen: int, wait_s: float = LONG_POLL_S) -> tuple[list[dict[str, Any]], bool]:
        """The agent's GUI actions from the `seen`-th on, as soon as there is one (a long poll at the
        proxy's control API); and True once the episode is closed with nothing left to give."""
        try:
            actions = await self.live.manager.control.actions(self.episode_id, since=seen, wait_s=wait_s)
        except ControlError as exc:
            if exc.status in (404, 409, CLOSED_STATUS):
                return [], True
            raise
        return [gui_action(a) for a in actions], False

    def recorded_after(self, events_seen: int, actions_seen: int) -> list[dict[str, Any]]:
        """What a reader had not read when the episode closed, from the files the close wrote
        (events.jsonl, actions.jsonl): the end of its stream, without a gap."""
        out_dir = self.live.opened.out_dir
        events = [e for e in read_jsonl(out_dir / "events.jsonl") if int(e.get("seq", -1)) >= events_seen]
        actions = [a for a in read_jsonl(out_dir / "actions.jsonl") if int(a.get("seq", 0)) > actions_seen]
        return [*(site_event(e) for e in events), *(gui_action(a) for a in actions)]


class ProgressStream:
    """The episode's semantic events and GUI actions, read once for every reader of the episode
    (`events()`, `wait_for`): one long poll at each end at a time, however many readers, so readers
    that come and go (a `wait_for` per step) never pile up waiting requests on the shared stack.
    Readers keep only their index into `items`; runs on the stack's event loop."""

    SOURCES = ("site", "gui")

    def __init__(self, control: EpisodeControl) -> None:
        self.control = control
        self.items: list[dict[str, Any]] = []
        self.ended = False
        self.error: BaseException | None = None
        self._arrived = asyncio.Condition()
        self._pump: asyncio.Task[None] | None = None

    async def after(self, index: int) -> tuple[list[dict[str, Any]], bool]:
        """The items from `index` on as soon as there is one; and whether the stream has ended there."""
        if self._pump is None:
            self._pump = asyncio.ensure_future(self._read())
        async with self._arrived:
            await self._arrived.wait_for(lambda: len(self.items) > index or self.ended)
        fresh = self.items[index:]
        if not fresh and self.error is not None:
            raise self.error
        return fresh, self.ended and not fresh

    async def _read(self) -> None:
        seen = dict.fromkeys(self.SOURCES, 0)
        readers = {"site": self.control.next_events, "gui": self.control.next_actions}
        pending: dict[asyncio.Future[tuple[list[dict[str, Any]], bool]], str] = {}

        def read(source: str) -> None:
            pending[asyncio.ensure_future(readers[source](seen[source]))] = source

        try:
            for source in self.SOURCES:
                read(source)
            while pending:
                done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: self.SOURCES.index(pending[f])):
                    source = pending.pop(future)
                    items, closed = future.result()
                    seen[source] += len(items)
                    if not closed:
                        read(source)
                    await self._add(items)
            await self._add(self.control.recorded_after(seen["site"], seen["gui"]))
        except Exception as exc:  # the stack went away: readers get the error once they have the rest
            self.error = exc
        finally:
            for future in pending:
                future.cancel()
            self.ended = True
            async with self._arrived:
                self._arrived.notify_all()

    async def _add(self, items: list[dict[str, Any]]) -> None:
        if items:
            self.items.extend(items)
            async with self._arrived:
                self._arrived.notify_all()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def wait_until(events: AsyncGenerator[dict[str, Any], None], *, kind: str | None, name: str | None,
                     count: int, source: str | None, timeout_s: float) -> dict[str, Any]:
    """The `count`-th event of `events` (an async iterator from the episode's start) that matches."""
    if count < 1:
        raise ValueError("count must be at least 1")
    seen = 0
    what = f"{count} × {kind or 'any'}{f' {name!r}' if name else ''}"
    try:
        async with asyncio.timeout(timeout_s), contextlib.aclosing(events):
            async for event in events:
                if matches(event, kind, name, source):
                    seen += 1
                    if seen >= count:
                        return dict(event)
    except TimeoutError:
        raise TimeoutError(f"waited {timeout_s:g} s for {what}; saw {seen}") from None
    raise WebchaosError(f"the episode closed before {what} (saw {seen})")

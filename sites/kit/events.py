"""The typed event emitter a site writes its episode's event log through (`episode.emit.<kind>`); the
events themselves are `scenarios.events`."""

from collections.abc import Callable
from typing import Any

from scenarios.events import EventKind, SemanticEvent


class EventEmitter:
    """Appends events to an episode's log, one method per kind (`episode.emit.commit(...)`)."""

    def __init__(self, log: list[SemanticEvent], now: Callable[[], str],
                 on_event: Callable[[SemanticEvent], None] | None = None) -> None:
        self._log = log
        self._now = now
        self._on_event = on_event  # the episode's fault triggers (scenarios/triggers.py)

    def _add(self, kind: EventKind, name: str, target: str | None, detail: dict[str, Any]) -> SemanticEvent:
        event = SemanticEvent(seq=len(self._log), at=self._now(), kind=kind, name=name, target=target,
                              detail=detail)
        self._log.append(event)
        if self._on_event is not None:
            self._on_event(event)
        return event

    def navigate(self, name: str, target: str | None = None, **detail: Any) -> SemanticEvent:
        """A page that reveals nothing new about one entity (it may list some: use a `listed` key)."""
        return self._add(EventKind.navigate, name, target, detail)

    def inspect(self, name: str, target: str, *, revealed: list[str], **detail: Any) -> SemanticEvent:
        """A detail page of `target`; `revealed` names the attributes only it shows."""
        return self._add(EventKind.inspect, name, target, {"revealed": revealed, **detail})

    def search(self, name: str, *, query: str, results: list[str], **detail: Any) -> SemanticEvent:
        return self._add(EventKind.search, name, None, {"query": query, "results": results, **detail})

    def filter(self, name: str, target: str | None = None, **detail: Any) -> SemanticEvent:
        return self._add(EventKind.filter, name, target, detail)

    def commit(self, name: str, target: str | None, **detail: Any) -> SemanticEvent:
        """A state change of `target` (put what else it touched under a `touched` key)."""
        return self._add(EventKind.commit, name, target, detail)

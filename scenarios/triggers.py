"""Triggers: when a fault starts and stops, in terms of the episode's own progress.

An envelope may say::

    trigger:
      after: {event: commit, name: add_to_cart}      # a semantic event of the site (kind + name glob)
      until: {event: navigate, name: view_cart}      # stop at this one (counted once started)
    trigger:
      after: {action: click, count: 3}               # the agent's 3rd click (GUI action; name: target's name)

A fault with a trigger is *dormant* until `after` has been seen `count` times (no `after`: active
from the start) and *spent* once `until` has been seen `count` times after that. While not
active it counts no eligible event, so `schedule` and `toxicity` apply to what happens while it
is active (`first_n: 2` = the first two eligible events after the trigger). Triggers read no
clock: the same sequence of events gives the same firings.

Events are observed where they happen: semantic events in the sites server (which also tells the
proxy about them in a response header), GUI actions in the proxy (its action recorder). So a
server fault may be triggered by semantic events only.
"""

import fnmatch
from typing import Any, Literal

from pydantic import Field, model_validator

from scenarios.strict import Strict

EventKindName = Literal["inspect", "navigate", "search", "filter", "commit"]
ActionKindName = Literal["click", "input", "key", "scroll", "navigation", "tab_open"]
Source = Literal["event", "action"]

TRIGGERED = "triggered"
SPENT = "spent"


class On(Strict):
    """One kind of happening, seen `count` times: a semantic `event` or a GUI `action`."""

    event: EventKindName | None = Field(default=None, description="a semantic event kind of the site")
    action: ActionKindName | None = Field(default=None, description="a GUI action kind of the agent")
    name: str | None = Field(default=None, min_length=1, max_length=200,
                             description="glob: the event's name, or the action target's accessible name "
                                         "(for `navigation`, the page path)")
    count: int = Field(default=1, ge=1, le=100_000, description="the Nth such happening")

    @model_validator(mode="after")
    def _one_source(self) -> "On":
        if (self.event is None) == (self.action is None):
            raise ValueError("set exactly one of event (inspect, navigate, search, filter, commit) or action "
                             "(click, input, key, scroll, navigation, tab_open)")
        return self

    @property
    def source(self) -> Source:
        return "event" if self.event is not None else "action"

    def matches(self, source: Source, kind: str, name: str | None) -> bool:
        if source != self.source or kind != (self.event or self.action):
            return False
        return self.name is None or (name is not None and fnmatch.fnmatchcase(name, self.name))

    def describe(self) -> dict[str, Any]:
        return self.model_dump(exclude_none=True)


class Trigger(Strict):
    after: On | None = Field(default=None, description="the fault becomes active when this has happened")
    until: On | None = Field(default=None, description="the fault stops for good when this has happened")

    @model_validator(mode="after")
    def _something(self) -> "Trigger":
        if self.after is None and self.until is None:
            raise ValueError("a trigger needs after, until or both")
        return self

    @property
    def uses_actions(self) -> bool:
        return any(on is not None and on.source == "action" for on in (self.after, self.until))


class TriggerState:
    """One armed fault's progress through its trigger."""

    def __init__(self, trigger: Trigger) -> None:
        self.trigger = trigger
        self.after_seen = 0
        self.until_seen = 0
        self.started = trigger.after is None
        self.spent = False

    @property
    def active(self) -> bool:
        return self.started and not self.spent

    def observe(self, source: Source, kind: str, name: str | None) -> str | None:
        """Count one happening; returns TRIGGERED or SPENT when it changes the fault's state."""
        after, until = self.trigger.after, self.trigger.until
        if not self.started:
            if after is not None and after.matches(source, kind, name):
                self.after_seen += 1
                if self.after_seen >= after.count:
                    self.started = True
                    return TRIGGERED
            return None
        if not self.spent and until is not None and until.matches(source, kind, name):
            self.until_seen += 1
            if self.until_seen >= until.count:
                self.spent = True
                return SPENT
        return None

# The sites server names the semantic events a request caused in this response header (JSON
# `[[seq, kind, name], …]`); the proxy reads it for its faults' triggers and takes it off.
EVENTS_HEADER = "x-webchaos-events"

"""What a site declares about itself for the generic layers: a `SiteProfile`.

The grader's process metrics read the event vocabulary (which event detail lists the entities
a page shows, which names the entities a commit touched); the reference agent reads the
affordance words; the catalog loader reads which seed/server fault types the site implements.
No generic layer names a site or its words: they read this.
"""

import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from scenarios.strict import FrozenStrict


class EventVocabulary(FrozenStrict):
    entity_kinds: list[str] = Field(description="kinds of entity the site's events are about, e.g. product, message")
    listed: list[str] = Field(
        description="event detail keys whose list holds the ids a page shows or a search/filter returns")
    touched: list[str] = Field(
        description="event detail keys naming the entity ids a commit changed (a list or one id)")

    def listed_ids(self, detail: dict[str, Any]) -> list[str]:
        for key in self.listed:
            value = detail.get(key)
            if isinstance(value, list):
                return [str(v) for v in value]
        return []

    def touched_ids(self, detail: dict[str, Any]) -> list[str] | None:
        """The ids a commit declares it touched; None when the event does not say."""
        for key in self.touched:
            if key not in detail:
                continue
            value = detail[key]
            if isinstance(value, list):
                return [str(v) for v in value]
            if isinstance(value, str | int):
                return [str(value)]
        return None


# What the grader assumes of a site that declares nothing: searches list `results`, commits
# name what they touched under `touched` (the kit's emitter uses both keys).
GENERIC_VOCABULARY = EventVocabulary(entity_kinds=[], listed=["results"], touched=["touched"])


def _words(words: list[str]) -> re.Pattern[str]:
    return re.compile("^(" + "|".join(re.escape(w) for w in words) + ")$", re.I)


class Affordances(FrozenStrict):
    """The words a site uses for its generic controls (also reachable by standard ARIA roles)."""

    sign_in: str = Field(default="Sign in", description="heading and button of the sign-in page")
    next_page: list[str] = Field(default=["Next page", "Next", "›", "»", "→"])
    more_actions: list[str] = Field(default=["More", "More actions", "More options", "…", "⋯", "..."])
    dismiss: list[str] = Field(default=["Accept", "Accept all", "Close", "Dismiss", "Got it", "No thanks",
                                        "No, thanks", "Not now", "OK", "Continue", "Reject", "Reject all",
                                        "×", "✕"])
    back_out: list[str] = Field(default=["Cancel", "Back", "Close", "Dismiss", "No thanks", "No, thanks", "Not now",
                                         "Reject", "Reject all", "×", "✕"],
                                description="buttons that leave a dialog without doing what it asks")

    def next_page_pattern(self) -> re.Pattern[str]:
        return _words(self.next_page)

    def more_actions_pattern(self) -> re.Pattern[str]:
        return _words(self.more_actions)

    def dismiss_pattern(self) -> re.Pattern[str]:
        return _words(self.dismiss)

    def back_out_pattern(self) -> re.Pattern[str]:
        return _words(self.back_out)


def _a(noun: str) -> str:
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


class TargetScope(FrozenStrict):
    """Which kind of record a task's `target` binding is, read off the task's setup params (no world is
    generated), and which kinds each of the site's seed fault families can work on."""

    param: str = Field(description="the setup param that picks the target, e.g. 'focus'")
    default: str = Field(description="the param's value when a task gives none")
    kinds: dict[str, str] = Field(
        default_factory=dict, description="param value -> kind of record, e.g. 'charge' (unlisted: the value)")
    accepts: dict[str, list[str]] = Field(
        default_factory=dict,
        description="fault type -> the target kinds its implementation works on (a type not listed takes any)")

    def kind_of(self, setup_params: Mapping[str, Any]) -> str:
        value = str(setup_params.get(self.param, self.default))
        return self.kinds.get(value, value)

    def refusal(self, fault_type: str, setup_params: Mapping[str, Any]) -> str | None:
        """Why the site's `fault_type` cannot work on a task with these setup params; None when it can."""
        accepted = self.accepts.get(fault_type)
        kind = self.kind_of(setup_params)
        if accepted is None or kind in accepted:
            return None
        return f"its target is {_a(kind)}; the site's {fault_type} works on {' or '.join(map(_a, accepted))}"


class SiteProfile(FrozenStrict):
    name: str = Field(description="the site's name in the catalog, e.g. 'mail'")
    host: str = Field(description="its virtual host, e.g. 'mail.test'")
    title: str = Field(description="the product name people see")
    vocabulary: EventVocabulary
    affordances: Affordances = Affordances()
    fault_types: list[str] = Field(default_factory=list,
                                   description="seed/server fault types this site implements")
    target: TargetScope | None = Field(
        default=None, description="how tasks pick their target and which kinds the fault families take "
                                  "(None: every family takes every task's target)")

    def refusal(self, fault_type: str, setup_params: Mapping[str, Any]) -> str | None:
        """Why this site's implementation of `fault_type` cannot work on a task with these setup params."""
        return None if self.target is None else self.target.refusal(fault_type, setup_params)

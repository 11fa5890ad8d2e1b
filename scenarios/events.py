"""Semantic events on the wire: what the agent did, in the site's own terms (the sites emit them, the oracle
serves them, the grader reads them).

A site declares its event vocabulary in its `SiteProfile` (`scenarios.profile`): the entity kinds, which
detail key lists the entities a page shows or a search returns (`listed`) and which names what a commit
touched (`touched`). The grader reads that declaration only.
"""

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class EventKind(StrEnum):
    inspect = "inspect"      # information revealed about one entity (a detail page)
    navigate = "navigate"    # a page with no new entity information
    search = "search"
    filter = "filter"
    commit = "commit"        # a state change


class SemanticEvent(BaseModel):
    seq: int
    at: str = Field(description="episode-clock time of the event (ISO-8601)")
    kind: EventKind
    name: str = Field(description="what happened, e.g. 'view_product', 'archive'")
    target: str | None = Field(default=None, description="id of the entity concerned, if any")
    detail: dict[str, Any] = Field(default_factory=dict)

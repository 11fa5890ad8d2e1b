"""What a site is: a seeded world generator, its routes, its fault implementations and its profile.

A site subclasses `Site` in `sites/<name>/site.py` and exposes one instance as `SITE`; the
registry discovers it. The kit's app factory (`sites.kit.app.site_app`) gives it sign-in,
session expiry, error pages, static files and the shared layout.
"""

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar

from fastapi import APIRouter
from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from scenarios.profile import SiteProfile
from sites.kit.episode import Episode
from sites.kit.templating import Pages

if TYPE_CHECKING:
    from sites.kit.store import EpisodeStore


class WorldSetup(BaseModel):
    """The task's request to the site's generator (scenario `setup.params`)."""

    params: dict[str, Any] = {}

    def refuse_unknown(self, site: str, known: Sequence[str]) -> None:
        """Refuse params the site's generator does not take: a misspelt one would otherwise be ignored."""
        unknown = sorted(set(self.params) - set(known))
        if unknown:
            takes = f"known: {', '.join(known)}" if known else f"the {site} site takes none"
            raise ValueError(f"unknown {site} setup param(s) {', '.join(map(repr, unknown))}; {takes}")

    def one_of(self, key: str, options: Sequence[str], default: str) -> str:
        """The param `key`, which must be one of `options` (`default` when absent)."""
        value = self.params.get(key, default)
        if value not in options:
            raise ValueError(f"{key} must be one of {', '.join(options)}, got {value!r}")
        return str(value)


@dataclass
class World:
    """A freshly generated world: the state and the names a task may refer to."""

    state: BaseModel
    bindings: dict[str, Any] = field(default_factory=dict)


class Site(ABC):
    profile: ClassVar[SiteProfile]
    package_dir: ClassVar[Path]                  # holds templates/ and static/
    faults: ClassVar[Mapping[str, object]] = {}  # implementations of fault families, by type name
    password_prefix: ClassVar[str] = "pw"        # of the remembered password
    home_label: ClassVar[str] = "Back to the home page"

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def host(self) -> str:
        return self.profile.host

    @abstractmethod
    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        """A new world from the seed's RNG and clock; same inputs, same bytes."""

    @abstractmethod
    def routers(self, pages: Pages, store: "EpisodeStore") -> list[APIRouter]:
        """The site's pages and JSON API (the kit adds /login, /static and error pages)."""

    @abstractmethod
    def account_email(self, state: BaseModel) -> str:
        """The signed-in user's email, pre-filled on the sign-in page."""

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        """What every page's header needs (counts, navigation); empty by default."""
        return {}

    def filters(self) -> dict[str, Any]:
        """Jinja filters of the site's templates."""
        return {}

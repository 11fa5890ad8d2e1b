"""What a site is: a declaration. `sites/<name>/site.py` exposes `SITE = Site(...)` (the registry discovers it)
naming its profile, state type, world generator, routers, fault implementations and the few strings that
differ; the kit's app factory (`sites.kit.app.site_app`) does the rest: sign-in, session expiry, error pages,
static files, the shared layout and the episode dependency (`sites.kit.deps.EpisodeOf`).
"""

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from random import Random
from typing import Any, Generic, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from scenarios.profile import SiteProfile
from sites.kit.episode import SiteEpisode
from sites.kit.templating import Pages

StateT = TypeVar("StateT", bound=BaseModel)


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


def _no_context(state: Any) -> dict[str, Any]:
    return {}


# `package_dir` when a declaration names none: the folder of the module that declares its state type
# (`sites/<name>/`, where `models.py` is).
STATE_TYPE_FOLDER = Path("<the folder of the state type's module>")


def _folder_of(state_type: type) -> Path:
    module = sys.modules[state_type.__module__]
    if module.__file__ is None:
        raise TypeError(f"{state_type.__qualname__}: its module {module.__name__!r} has no file; name package_dir")
    return Path(module.__file__).resolve().parent


@dataclass(frozen=True, kw_only=True, eq=False)
class Site(Generic[StateT]):
    profile: SiteProfile
    state_type: type[StateT]                           # what every episode of the site holds
    generate: Callable[[WorldSetup, Random, EpisodeClock], World]  # same inputs, same bytes
    routers: Callable[[Pages], list[APIRouter]]        # pages and JSON API (the kit adds /login, /static)
    account_email: Callable[[StateT], str]             # pre-filled on the sign-in page
    page_context: Callable[[StateT | None], dict[str, Any]] = _no_context  # every page's header (counts, nav)
    filters: Mapping[str, Callable[..., Any]] = field(default_factory=dict)  # Jinja filters of its templates
    faults: Mapping[str, object] = field(default_factory=dict)  # fault family implementations, by type name
    password_prefix: str = "pw"                        # of the remembered password
    home_label: str = "Back to the home page"
    package_dir: Path = STATE_TYPE_FOLDER              # holds templates/ and static/

    def __post_init__(self) -> None:
        # the fault types a site implements are read off `faults`, never declared a second time
        object.__setattr__(self, "profile", self.profile.model_copy(update={"fault_types": sorted(self.faults)}))
        if self.package_dir == STATE_TYPE_FOLDER:
            object.__setattr__(self, "package_dir", _folder_of(self.state_type))

    @property
    def name(self) -> str:
        return self.profile.name

    @property
    def host(self) -> str:
        return self.profile.host

    def context_of(self, episode: SiteEpisode[Any] | None) -> dict[str, Any]:
        """The shared page context for `episode` (None outside any episode)."""
        return self.page_context(episode.state if episode is not None else None)

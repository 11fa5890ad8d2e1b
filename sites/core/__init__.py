"""Shared machinery of every hermetic site: episodes, seeded RNG, clock, events, oracle."""

from sites.core.clock import EpisodeClock
from sites.core.episode import Episode, EpisodeStore
from sites.core.events import EventKind, SemanticEvent
from sites.core.rng import episode_rng
from sites.core.site import Site, WorldSetup

__all__ = [
    "Episode",
    "EpisodeClock",
    "EpisodeStore",
    "EventKind",
    "SemanticEvent",
    "Site",
    "WorldSetup",
    "episode_rng",
]

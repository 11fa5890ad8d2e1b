"""How a site handler finds its episode: the proxy names it in a request header, the app holds the episodes.

A handler takes `episode: EpisodeOf[ShopState]` (a site names it once, `ShopEpisode = EpisodeOf[ShopState]`):
FastAPI resolves it through `current_episode`, which answers 4xx for a missing, closed or foreign episode.
"""

from typing import Annotated, Any, Protocol, TypeVar

from fastapi import Depends, FastAPI, HTTPException, Request
from pydantic import BaseModel

from sites.kit.episode import SiteEpisode

EPISODE_HEADER = "x-webchaos-episode"
StateT = TypeVar("StateT", bound=BaseModel)


class Episodes(Protocol):
    """What the kit's apps need of the episode store (`sites.kit.store.EpisodeStore` is one)."""

    def get(self, episode_id: str) -> SiteEpisode[Any] | None: ...


def serve_episodes(app: FastAPI, site: str, episodes: Episodes) -> None:
    """Make `app` the app of `site`, reading its episodes from `episodes` (what `current_episode` looks in)."""
    app.state.site_name = site
    app.state.episodes = episodes


def current_episode(request: Request) -> SiteEpisode[Any]:
    """The request's episode, or 400 (no episode header) / 404 (not open, or another site's)."""
    episode_id = request.headers.get(EPISODE_HEADER)
    if not episode_id:
        raise HTTPException(400, "no episode: reach this site through the webchaos proxy")
    episodes: Episodes = request.app.state.episodes
    site: str = request.app.state.site_name
    episode = episodes.get(episode_id)
    if episode is None:
        raise HTTPException(404, f"episode {episode_id!r} is not open")
    if episode.site != site:
        raise HTTPException(404, f"episode {episode_id!r} belongs to site {episode.site!r}")
    return episode


EpisodeOf = Annotated[SiteEpisode[StateT], Depends(current_episode)]

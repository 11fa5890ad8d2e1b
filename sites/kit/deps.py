"""How a site handler finds its episode: the proxy names it in a request header."""

from collections.abc import Callable

from fastapi import HTTPException, Request

from sites.kit.episode import Episode
from sites.kit.store import EpisodeStore

EPISODE_HEADER = "x-webchaos-episode"


def episode_from(store: EpisodeStore, site: str) -> Callable[[Request], Episode]:
    """A FastAPI dependency that resolves the request's episode or answers 4xx."""

    def resolve(request: Request) -> Episode:
        episode_id = request.headers.get(EPISODE_HEADER)
        if not episode_id:
            raise HTTPException(400, "no episode: reach this site through the webchaos proxy")
        episode = store.get(episode_id)
        if episode is None:
            raise HTTPException(404, f"episode {episode_id!r} is not open")
        if episode.site != site:
            raise HTTPException(404, f"episode {episode_id!r} belongs to site {episode.site!r}")
        return episode

    return resolve

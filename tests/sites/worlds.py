"""One site's world in-process, for the site test packages: the app on the kit, a store holding only that
site, an episode opened on it, and an httpx client that reaches the app as the proxy would."""

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx

from sites.kit.app import site_app
from sites.kit.episode import SiteEpisode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites

World = tuple[Any, EpisodeStore, SiteEpisode]


def new_world(site: str, seed: int = 1, faults: list[dict[str, Any]] | None = None, **params: Any) -> World:
    """(app, store, episode) for `site` on `seed`, with `params` as the task's setup params."""
    store = EpisodeStore({site: all_sites()[site]})
    app = site_app(all_sites()[site], store)
    episode = store.create(site=site, task_id="t", seed=seed, setup=WorldSetup(params=params), faults=faults)
    return app, store, episode


def world_maker(site: str) -> Callable[..., World]:
    """`new_world` bound to one site, as each site's test package exports it."""

    def make(seed: int = 1, faults: list[dict[str, Any]] | None = None, **params: Any) -> World:
        return new_world(site, seed, faults, **params)

    return make


@asynccontextmanager
async def client(app: Any, host: str, episode_id: str | None) -> AsyncIterator[httpx.AsyncClient]:
    """An httpx client for `app` at http://<host>, sending the episode header the proxy would add."""
    headers = {"X-Webchaos-Episode": episode_id} if episode_id else {}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=f"http://{host}",
                                 headers=headers) as http:
        yield http


def client_maker(host: str) -> Callable[[Any, str | None], AbstractAsyncContextManager[httpx.AsyncClient]]:
    """`client` bound to one site's host, as each site's test package exports it as `client_for`."""

    def client_for(app: Any, episode_id: str | None) -> AbstractAsyncContextManager[httpx.AsyncClient]:
        return client(app, host, episode_id)

    return client_for

"""Tests of the CareBridge learn site (the HTML reader is the mail tests' one)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from sites.kit.app import site_app
from sites.kit.episode import Episode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.learn.site import SITE
from tests.sites.mail import Doc

__all__ = ["Doc", "client_for", "new_world"]


def new_world(seed: int = 1, faults: list[dict[str, Any]] | None = None, **params: Any
              ) -> tuple[Any, EpisodeStore, Episode]:
    store = EpisodeStore({"learn": SITE})
    app = site_app(SITE, store)
    episode = store.create(site="learn", task_id="t", seed=seed, setup=WorldSetup(params=params), faults=faults)
    return app, store, episode


@asynccontextmanager
async def client_for(app: Any, episode_id: str | None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"X-Webchaos-Episode": episode_id} if episode_id else {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://learn.test", headers=headers
    ) as client:
        yield client

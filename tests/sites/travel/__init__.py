"""Tests of the Wayfarer travel site (the HTML reader is the shared one)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from sites.kit.app import site_app
from sites.kit.episode import Episode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.travel.site import SITE
from tests.sites.html import Doc

__all__ = ["Doc", "client_for", "new_world", "stay_query"]


def new_world(seed: int = 1, faults: list[dict[str, Any]] | None = None, **params: Any
              ) -> tuple[Any, EpisodeStore, Episode]:
    store = EpisodeStore({"travel": SITE})
    app = site_app(SITE, store)
    episode = store.create(site="travel", task_id="t", seed=seed, setup=WorldSetup(params=params), faults=faults)
    return app, store, episode


def stay_query(stay: dict[str, Any]) -> str:
    return f"check_in={stay['check_in']}&check_out={stay['check_out']}&guests={stay['guests']}&rooms=1"


@asynccontextmanager
async def client_for(app: Any, episode_id: str | None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"X-Webchaos-Episode": episode_id} if episode_id else {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://travel.test", headers=headers
    ) as client:
        yield client

"""Tests of the Lark Mail site (the HTML reader is tests.sites.html)."""

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from sites.kit.app import site_app
from sites.kit.episode import Episode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.mail.site import SITE
from tests.sites.html import Doc, Element


def new_world(seed: int = 1, **params: Any) -> tuple[Any, EpisodeStore, Episode]:
    store = EpisodeStore({"mail": SITE})
    app = site_app(SITE, store)
    episode = store.create(site="mail", task_id="t", seed=seed, setup=WorldSetup(params=params))
    return app, store, episode


@asynccontextmanager
async def client_for(app: Any, episode_id: str | None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"X-Webchaos-Episode": episode_id} if episode_id else {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://mail.test", headers=headers
    ) as client:
        yield client


__all__ = ["Doc", "Element", "client_for", "new_world"]

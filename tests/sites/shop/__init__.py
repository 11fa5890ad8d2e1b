"""Tests of the Cartwheel shop site (the HTML reader is tests.sites.html)."""

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from sites.kit.episode import SiteEpisode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from tests.sites.html import Doc, Element
from tests.sites.worlds import sites_server

EXTERNAL = re.compile(r"(?:https?:)?//[^\s\"'<>)]*", re.IGNORECASE)


def external_urls(text: str) -> list[str]:
    """Absolute or protocol-relative URLs that do not point at shop.test."""
    found = []
    for match in EXTERNAL.finditer(text):
        url = match.group(0)
        if re.match(r"^(?:https?:)?//shop\.test(?:[/:?#]|$)", url, re.IGNORECASE):
            continue
        found.append(url)
    return found


def new_world(seed: int = 1, **params: Any) -> tuple[Any, Any, EpisodeStore, SiteEpisode]:
    public, oracle, store = sites_server()
    episode = store.create(site="shop", task_id="t", seed=seed, setup=WorldSetup(params=params))
    return public, oracle, store, episode


@asynccontextmanager
async def client_for(app: Any, episode_id: str | None) -> AsyncIterator[httpx.AsyncClient]:
    headers = {"X-Webchaos-Episode": episode_id} if episode_id else {}
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://shop.test", headers=headers
    ) as client:
        yield client


__all__ = ["Doc", "Element", "client_for", "external_urls", "new_world"]

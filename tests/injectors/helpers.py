"""Shared helpers: open shop episodes with seed/server faults and compare them with fault-free ones."""

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx

from sites.kit.episode import SiteEpisode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from tests.sites.worlds import sites_server


def fault(type: str, layer: str, **envelope: Any) -> dict[str, Any]:
    return {"type": type, "layer": layer, **envelope}


def open_episode(faults: list[dict[str, Any]] | None = None, seed: int = 3, **params: Any
                 ) -> tuple[Any, EpisodeStore, SiteEpisode]:
    public, _, store = sites_server()
    episode = store.create(site="shop", task_id="t", seed=seed, setup=WorldSetup(params=params),
                           faults=faults or [])
    return public, store, episode


def state_of(episode: SiteEpisode) -> dict[str, Any]:
    return dict(json.loads(episode.state_bytes()))


def by_id(entities: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["id"]: e for e in entities}


def changes(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Per collection: added ids, removed ids, changed ids -> changed field names; scalars by key."""
    out: dict[str, dict[str, Any]] = {}
    for key in sorted(set(before) | set(after)):
        a, b = before.get(key), after.get(key)
        if a == b:
            continue
        if isinstance(a, list) and isinstance(b, list) and all(isinstance(e, dict) and "id" in e for e in a + b):
            ia, ib = by_id(a), by_id(b)
            changed = {i: sorted(k for k in ia[i] if ia[i][k] != ib[i].get(k))
                       for i in ia if i in ib and ia[i] != ib[i]}
            entry: dict[str, Any] = {"added": sorted(set(ib) - set(ia)), "removed": sorted(set(ia) - set(ib)),
                                     "changed": changed}
            if [e["id"] for e in a if e["id"] in ib] != [e["id"] for e in b if e["id"] in ia]:
                entry["reordered"] = True
            out[key] = {k: v for k, v in entry.items() if v}
        else:
            out[key] = {"value": True}
    return out


def ledger(episode: SiteEpisode) -> list[tuple[str, str, str | None, dict[str, Any]]]:
    """The ledger without timings: (layer, type, fault_id, detail)."""
    return [(line["layer"], line["type"], line["fault_id"], line["detail"]) for line in episode.ledger.lines]


@asynccontextmanager
async def client(app: Any, episode: SiteEpisode) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://shop.test",
                                 headers={"X-Webchaos-Episode": episode.id}) as c:
        yield c

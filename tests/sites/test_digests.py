"""Every site's bytes, pinned: for seeds 1-30, a digest of the initial world of the default setup (and, on
seeds 1-3, of every catalog task of the site: state and bindings), of the pages a fixed crawl from the
home page renders and of the event log those requests write. A refactor of the kit or a site must leave
every digest as it is; a change meant to alter a site's
bytes regenerates them (WEBCHAOS_UPDATE_DIGESTS=1) and says why in its commit.

The crawl follows the first same-site links of each page, breadth first, so it needs no per-site list of
pages and reaches the detail pages a seed's ids lead to."""

import asyncio
import functools
import hashlib
import json
import os
import re
from collections import deque
from pathlib import Path
from typing import Any

import httpx
import pytest

from scenarios.loader import Catalog
from sites.kit.app import site_app
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites, load_site_catalog

DIGESTS = Path(__file__).with_name("digests.json")
SEEDS = range(1, 31)
TASK_SEEDS = range(1, 4)  # every catalog task is opened on these, the seeds validation judges (tens of ms each)
CRAWL_PAGES = 8  # pages fetched per (site, seed)
_HREF = re.compile(r'href="(/[^"#]*)"')
# Links the crawl leaves alone: files, and sign-in (the kit's own pages, the same on every site).
_SKIP = ("/static/", "/login", "/logout")


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:24]


@functools.cache
def _catalog() -> Catalog:
    return load_site_catalog()


def world_digests(site: str, store: EpisodeStore) -> dict[int, str]:
    """Per seed: one digest over the default setup's world and (on `TASK_SEEDS`) every catalog task's."""
    tasks = sorted((t for t in _catalog().tasks.values() if t.site == site), key=lambda t: t.id)
    digests = {}
    for seed in SEEDS:
        hashed = hashlib.sha256()
        plain = store.create(site=site, task_id="digest", seed=seed, setup=WorldSetup())
        hashed.update(plain.initial_state + b"\0" + json.dumps(plain.bindings, sort_keys=True).encode() + b"\0")
        store.delete(plain.id)
        if seed not in TASK_SEEDS:
            digests[seed] = hashed.hexdigest()[:24]
            continue
        for task in tasks:
            episode = store.create(site=site, task_id=task.id, seed=seed, setup=WorldSetup(params=task.setup.params))
            hashed.update(task.id.encode() + b"\0" + episode.initial_state + b"\0")
            hashed.update(json.dumps(episode.bindings, sort_keys=True, default=str).encode() + b"\0")
            store.delete(episode.id)
        digests[seed] = hashed.hexdigest()[:24]
    return digests


async def _crawl(site: str, seed: int, store: EpisodeStore, app: Any) -> tuple[str, str]:
    """(pages digest, events digest) of a crawl of `site` on `seed` with the default setup."""
    the_site = all_sites()[site]
    episode = store.create(site=site, task_id="digest", seed=seed, setup=WorldSetup())
    pages = hashlib.sha256()
    seen, queue = {"/"}, deque(["/"])
    fetched = 0
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=f"http://{the_site.host}",
                                 headers={"X-Webchaos-Episode": episode.id}) as http:
        while queue and fetched < CRAWL_PAGES:
            path = queue.popleft()
            response = await http.get(path)
            fetched += 1
            pages.update(f"{path} {response.status_code}\n".encode() + response.content + b"\0")
            for link in _HREF.findall(response.text):
                link = link.replace("&amp;", "&")
                if link not in seen and not link.startswith(_SKIP):
                    seen.add(link)
                    queue.append(link)
    events = "\n".join(event.model_dump_json() for event in episode.events)
    store.delete(episode.id)
    return pages.hexdigest()[:24], _sha(events.encode() + b"\0" + episode.state_bytes())


def site_digests(site: str) -> dict[str, dict[str, str]]:
    store = EpisodeStore({site: all_sites()[site]})
    app = site_app(all_sites()[site], store)
    worlds = world_digests(site, store)
    found = {}
    for seed in SEEDS:
        pages, events = asyncio.run(_crawl(site, seed, store, app))
        found[str(seed)] = {"world": worlds[seed], "pages": pages, "events": events}
    return found


@pytest.mark.parametrize("site", sorted(all_sites()))
def test_site_bytes_are_unchanged(site: str) -> None:
    found = site_digests(site)
    if os.environ.get("WEBCHAOS_UPDATE_DIGESTS") == "1":
        stored = json.loads(DIGESTS.read_text()) if DIGESTS.exists() else {}
        stored[site] = found
        DIGESTS.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
    expected: dict[str, Any] = json.loads(DIGESTS.read_text()).get(site)
    assert expected is not None, f"{site}: no digests in {DIGESTS.name} (a new site: WEBCHAOS_UPDATE_DIGESTS=1)"
    differing = [f"seed {seed} {part}" for seed, parts in expected.items() for part, digest in parts.items()
                 if found.get(seed, {}).get(part) != digest]
    assert differing == [], f"{site}: bytes changed at {differing[:8]} ({len(differing)} in all)"

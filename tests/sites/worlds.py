"""One site's world in-process, for the site test packages: the app on the kit, a store holding only that
site, an episode opened on it, and an httpx client that reaches the app as the proxy would; and what the site
test modules share on top of them (the `world` fixture, the seed-fault and bad-request checks)."""

import functools
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

import httpx
import pytest
from _pytest.fixtures import FixtureFunctionDefinition

from scenarios.events import EventKind, SemanticEvent
from sites.kit.app import site_app
from sites.kit.episode import SiteEpisode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites
from sites.server import build

World = tuple[Any, EpisodeStore, SiteEpisode]


@functools.cache
def sites_server() -> tuple[Any, Any, EpisodeStore]:
    """`sites.server.build()`'s public app, oracle app and store, one per test process, for the tests that open
    episodes on all the sites' apps at once (episodes keep apart by id, as on the real server)."""
    return build()


@functools.cache
def _served(site: str) -> tuple[Any, EpisodeStore]:
    """One app and store per site for every world the tests open, as one sites server holds many episodes (each
    by its own id). A new app per world built FastAPI's routes again, and their dependency analysis on its first
    request: 71 ms for a forum world's first page against 6 ms on a shared app."""
    store = EpisodeStore({site: all_sites()[site]})
    return site_app(all_sites()[site], store), store


def new_world(site: str, seed: int = 1, faults: list[dict[str, Any]] | None = None, **params: Any) -> World:
    """(app, store, episode) for `site` on `seed`, with `params` as the task's setup params."""
    app, store = _served(site)
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


def world_fixture(make: Callable[..., tuple[Any, ...]], seed: int, **params: Any) -> FixtureFunctionDefinition:
    """A `world` fixture of (app, episode) from `make(seed=seed, **params)`: the first and last of what it returns
    (the shop's maker returns its oracle app and store between); one line where each site's modules wrote five."""

    @pytest.fixture
    def world() -> tuple[Any, SiteEpisode]:
        made = make(seed=seed, **params)
        return made[0], made[-1]

    return world


def commits(episode: SiteEpisode) -> list[SemanticEvent]:
    """The episode's commit events, in order: what each site's API tests check a write recorded."""
    return [e for e in episode.events if e.kind == EventKind.commit]


# The seed faults every site with look-alikes and noise implements, at the sizes their tests use.
LOOKALIKE_AND_NOISE_FAULTS: list[dict[str, Any]] = [
    {"type": "decoy_items", "layer": "seed", "params": {"count": 3}},
    {"type": "hard_negatives", "layer": "seed", "params": {"count": 2}},
    {"type": "noise_records", "layer": "seed", "params": {"count": 12, "max_days_ago": 90}},
]


def seeded_and_plain(make: Callable[..., World], fault: dict[str, Any], seed: int = 3,
                     **params: Any) -> tuple[SiteEpisode, SiteEpisode]:
    """(faulted, plain) episodes of `make` on `seed`, having checked that the seed fault changes the world and
    gives the same bytes again on the same seed: the opening of each site's seed-fault test."""
    first = make(seed, faults=[fault], **params)[2]
    again = make(seed, faults=[fault], **params)[2]
    plain = make(seed, **params)[2]
    assert first.state_bytes() == again.state_bytes() != plain.state_bytes()
    return first, plain


def once_on(fault_type: str, path: str) -> dict[str, Any]:
    """A server fault of `fault_type` that fires on the first request to `path`: how the site tests arm
    partial_write and concurrent_edit against one write."""
    return {"type": fault_type, "layer": "server", "match": {"path": path}, "schedule": {"mode": "once"}}


ClientFor = Callable[[Any, str | None], AbstractAsyncContextManager[httpx.AsyncClient]]


async def assert_refused_and_unchanged(client_for: ClientFor, world: tuple[Any, SiteEpisode], method: str,
                                       path: str, body: Any, status: int) -> None:
    """A bad API request answers `status` with a detail and leaves the state's bytes as they were: the check
    each site's API tests make of every malformed or impossible request."""
    app, episode = world
    before = episode.state_bytes()
    async with client_for(app, episode.id) as client:
        response = await client.request(method, path, json=body)
    assert response.status_code == status, response.text
    assert response.json()["detail"]
    assert episode.state_bytes() == before


async def assert_error_page(client_for: ClientFor, world: tuple[Any, SiteEpisode], path: str, status: int,
                            way_back: str) -> None:
    """A bad page answers `status` with the site's link back to its start (`way_back`), never a bare error."""
    app, episode = world
    async with client_for(app, episode.id) as client:
        response = await client.get(path)
    assert response.status_code == status
    assert way_back in response.text


def outputs_under_two_hash_seeds(script: str) -> list[list[str]]:
    """The words `script` prints, run by a fresh Python under PYTHONHASHSEED 3 and 4: how the determinism tests
    show that a session's state and events do not hang on set or dict order."""
    runs = []
    for hash_seed in ("3", "4"):
        env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"}
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
        assert out.returncode == 0, out.stderr[-2000:]
        runs.append(out.stdout.split())
    return runs

"""Helpers for the proxy addon tests: a chain of the real addons, flows on an episode listener."""

from __future__ import annotations

import inspect
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from mitmproxy import http
from mitmproxy.proxy.mode_specs import ProxyMode
from mitmproxy.test import taddons, tflow
from playwright.async_api import Browser, async_playwright

from harness.config import find_chromium
from proxy_addons.arming import SiteEvents
from proxy_addons.client import ClientInject
from proxy_addons.episodes import Episodes, ProxyEpisode, arm_proxy_faults
from proxy_addons.guard import Guard
from proxy_addons.network import NetworkFaults
from proxy_addons.network.gate import GATE, GATE_HEADER
from proxy_addons.network.release import release_clock
from proxy_addons.recorder import Recorder
from proxy_addons.router import Router
from proxy_addons.rrweb import RrwebRecorder

SITES = ("127.0.0.1", 18999)


class Chain:
    """The stack's addons in order, driven hook by hook like mitmproxy does."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.episodes = Episodes()
        self.guard = Guard(self.episodes)
        self.recorder = Recorder(self.episodes)
        self.rrweb = RrwebRecorder(self.episodes)
        self.router = Router(self.episodes)
        self.site_events = SiteEvents(self.episodes)
        self.network = NetworkFaults(self.episodes)
        self.inject = ClientInject(self.episodes)
        self.addons = [self.guard, self.recorder, self.rrweb, self.router, self.site_events, self.network, self.inject,
                       self.recorder.tail]
        self._port = 40000

    def open(self, faults: list[dict[str, Any]] | None = None, seed: int = 7, name: str = "ep1",
             record_actions: bool = False, record_replay: bool = False) -> ProxyEpisode:
        """An episode on its own port; the GUI-action and rrweb recorders are off unless asked for (pages as sent)."""
        self._port += 1
        episode = ProxyEpisode(name, seed, self.tmp_path / name, self._port, arm_proxy_faults(faults or [], seed),
                          record_actions=record_actions, record_replay=record_replay)
        self.episodes.add(episode)
        return episode

    @staticmethod
    def flow(episode: ProxyEpisode | None, method: str = "GET", url: str = "http://shop.test/",
             content: bytes = b"", headers: dict[str, str] | None = None) -> http.HTTPFlow:
        f = tflow.tflow(req=http.Request.make(method, url, content))
        f.request.authority = ""
        f.request.headers["host"] = f.request.host if f.request.port == 80 else f"{f.request.host}:{f.request.port}"
        for name, value in (headers or {}).items():
            f.request.headers[name] = value
        if episode is not None:
            f.client_conn.proxy_mode = ProxyMode.parse(episode.mode_spec)
        return f

    async def hook(self, name: str, f: http.HTTPFlow) -> None:
        for addon in self.addons:
            method = getattr(addon, name, None)
            if method is None:
                continue
            result = method(f)
            if inspect.isawaitable(result):
                await result

    async def send(self, f: http.HTTPFlow, response: http.Response | None = None) -> http.HTTPFlow:
        """requestheaders + request; then, unless answered locally, `response` comes from upstream (after
        the gate's hold, for a request the engine sent through it: network/gate.py)."""
        await self.hook("requestheaders", f)
        await self.hook("request", f)
        token = f.request.headers.get(GATE_HEADER)
        if f.response is None and token is not None:  # let go early to the gate: it holds the rest of the delay
            await release_clock().hold(GATE.expected.pop(token).deadline)
        if f.response is None:
            f.response = response or http.Response.make(200, b"upstream", {"content-type": "text/plain"})
            await self.hook("responseheaders", f)
        await self.hook("response", f)
        return f


def ledger(episode: ProxyEpisode) -> list[dict[str, Any]]:
    text = episode.ledger.path.read_text()
    return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def chain(tmp_path: Path) -> Iterator[Chain]:
    c = Chain(tmp_path)
    with taddons.context(*c.addons) as tctx:
        tctx.configure(c.guard, webchaos_site_hosts="shop.test,mail.test")
        tctx.configure(c.router, webchaos_sites=f"{SITES[0]}:{SITES[1]}")
        yield c
    for episode in list(c.episodes.by_id.values()):
        episode.ledger.close()


@pytest.fixture(scope="module")
def upstream() -> Iterator[Any]:
    from tests.proxy_addons.live import Upstream

    server = Upstream().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def stack(upstream: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    from tests.proxy_addons.live import run_stack

    yield from run_stack(upstream.port, tmp_path_factory.mktemp("stack"))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    """Headless Chromium for a module of in-browser tests of the client runtime on pages of their own."""
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=find_chromium(headless=True))
        yield launched
        await launched.close()

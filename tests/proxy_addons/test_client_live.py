"""The client script under a strict Content-Security-Policy, in real Chromium through the real stack."""

import asyncio
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import web

from tests.proxy_addons.live import CHROMIUM, free_port, jsonl, open_episode, run_stack

CSP = "default-src 'self'; script-src 'self'; style-src 'self'"
PAGE = """<!doctype html>
<html><head><title>Strict</title><script src="/app.js"></script></head>
<body><button id="go" type="button">Place order</button><p id="out"></p></body></html>
"""
APP = "document.addEventListener('DOMContentLoaded', function () {" \
      " document.getElementById('go').addEventListener('click', function () {" \
      " document.getElementById('out').textContent = 'placed'; }); });"


class StrictSite:
    """A site that sends a strict CSP, on its own thread and loop."""

    def __init__(self) -> None:
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.runner: web.AppRunner | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        async def page(request: web.Request) -> web.Response:
            return web.Response(text=PAGE, content_type="text/html", headers={"content-security-policy": CSP})

        async def app_js(request: web.Request) -> web.Response:
            return web.Response(text=APP, content_type="text/javascript")

        app.router.add_get("/page", page)
        app.router.add_get("/app.js", app_js)
        self.runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self.runner.setup())
        self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
        self.ready.set()
        self.loop.run_forever()

    def __enter__(self) -> "StrictSite":
        self.thread.start()
        self.ready.wait(10)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture(scope="module")
def strict_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with StrictSite() as site:
        yield from run_stack(site.port, tmp_path_factory.mktemp("strict"))


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
async def test_faults_and_recorder_work_under_a_strict_csp(strict_stack: Any, tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    out = tmp_path / "ep"
    fault = {"id": "sw", "type": "click_swallow", "layer": "client",
             "match": {"host": "shop.test", "path": "/page", "selector": "#go"}}
    async with aiohttp.ClientSession(headers=strict_stack.auth) as s:
        proxy = await open_episode(s, strict_stack.control, "csp-1", out, [fault], seed=1)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), proxy={"server": proxy},
                                               args=["--no-sandbox", "--disable-gpu", "--no-first-run"])
            try:
                page = await browser.new_page()
                problems: list[str] = []
                page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning")
                        and not m.location.get("url", "").endswith("/favicon.ico") else None)
                await page.goto("http://shop.test/page")
                await page.click("#go")
                await page.wait_for_timeout(300)
                assert await page.text_content("#out") == ""  # swallowed by the injected script
                await page.click("#go")
                await page.wait_for_function("document.getElementById('out').textContent === 'placed'")
                deadline = time.monotonic() + 5
                while len([a for a in jsonl(out / "actions.jsonl") if a["kind"] == "click"]) < 2:
                    assert time.monotonic() < deadline, jsonl(out / "actions.jsonl")
                    await page.wait_for_timeout(100)
                assert problems == []
                assert await page.evaluate("document.scripts.length") == 1  # ours removed itself
            finally:
                await browser.close()
        async with s.delete(f"{strict_stack.control}/episodes/csp-1") as r:
            assert r.status == 200
    events = [(x["fault_id"], x["detail"]["event"]) for x in jsonl(out / "faults.jsonl") if x["layer"] == "client"]
    assert events == [("sw", "injected"), ("sw", "fired")]
    kinds = [a["kind"] for a in jsonl(out / "actions.jsonl")]
    assert kinds == ["tab_open", "navigation", "click", "click"]

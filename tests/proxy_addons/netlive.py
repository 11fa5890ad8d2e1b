"""A stand-in site for the live network-fault tests: counts what reaches it, has big and failing routes."""

from __future__ import annotations

import asyncio
import json
import threading

from aiohttp import web

from tests.proxy_addons.live import free_port

BIG = b"".join(b"line %05d of a long page\n" % i for i in range(1000))  # 25 000 bytes
PAGE = b"<!doctype html><html><head><title>Shop</title></head><body><p>In stock</p></body></html>"


class CountingSite:
    """An aiohttp app on its own thread: logs every request it receives (method, path)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.seen: list[tuple[str, str]] = []
        self.version = 0
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.runner: web.AppRunner | None = None

    def count(self, method: str, path: str) -> int:
        return self.seen.count((method, path))

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.seen.append((request.method, request.path))
        path = request.path
        if path.endswith("/big"):
            return web.Response(body=BIG, content_type="text/plain")
        if path.endswith("/page"):
            return web.Response(body=PAGE, content_type="text/html")
        if path.endswith("/refuse"):
            return web.json_response({"detail": "out of stock"}, status=409)
        if path.endswith("/state"):
            return web.json_response({"version": self.version})
        if request.method not in ("GET", "HEAD"):
            self.version += 1
            try:
                echoed = json.loads(body) if body else {}
            except ValueError:
                echoed = {}
            return web.json_response({"saved": True, "version": self.version, "echo": echoed}, status=201)
        return web.json_response({"host": request.headers.get("Host"), "path": path,
                                  "cookie": request.headers.get("Cookie")},
                                 headers={"set-cookie": "session=abc; Path=/"})

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, access_log=None)
        self.loop.run_until_complete(self.runner.setup())
        self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
        self.ready.set()
        self.loop.run_forever()

    def start(self) -> CountingSite:
        self.thread.start()
        self.ready.wait(10)
        return self

    def stop(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

"""A stand-in site for the live network-fault tests: counts what reaches it, has big and failing routes."""

from __future__ import annotations

import json
import time

from aiohttp import web

from tests.proxy_addons.live import ThreadedSite

BIG = b"".join(b"line %05d of a long page\n" % i for i in range(1000))  # 25 000 bytes
PAGE = b"<!doctype html><html><head><title>Shop</title></head><body><p>In stock</p></body></html>"


class CountingSite(ThreadedSite):
    """Logs every request it receives (method, path). Like the sites server (uvicorn: 5 s), it closes idle
    keep-alive connections, sooner so that a test can outwait it."""

    keepalive_s = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[str, str]] = []
        self.seen_at: list[float] = []  # time.monotonic() of each arrival in `seen`, for causality checks
        self.version = 0

    def count(self, method: str, path: str) -> int:
        return self.seen.count((method, path))

    def last_arrival(self, method: str, path: str) -> float:
        """time.monotonic() when the site last received `method path`."""
        return max(at for at, seen in zip(self.seen_at, self.seen, strict=True) if seen == (method, path))

    async def handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.seen.append((request.method, request.path))
        self.seen_at.append(time.monotonic())
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

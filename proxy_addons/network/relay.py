"""A loopback relay inside the proxy process, for faults that must shape a body in time.

mitmproxy hands an addon a whole body or streams chunks through a synchronous
callback, so an addon cannot pace a body itself. A fault that needs it (`bandwidth`,
`truncate` with `mode: close`) points the flow at this relay instead
(`reroute`): the relay fetches the real upstream (Host kept), then writes the body
to mitmproxy at `rate_bps` and/or stops after `cut_after_bytes` and drops the
connection; the engine sets `flow.response.stream = True` in `responseheaders`, so
the client receives the bytes as the relay paces them.

The same shared client session replays requests upstream (`duplicate_submit`).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import socket
import time
from dataclasses import dataclass

import aiohttp
from aiohttp import web
from mitmproxy import http

from proxy_addons.ledger import marks

logger = logging.getLogger(__name__)

RELAY_HEADER = "x-webchaos-relay"
HOP_BY_HOP = frozenset({
    "connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "proxy-connection", "te",
    "trailer", "transfer-encoding", "upgrade", "content-length",
})
TICK_S = 0.05


@dataclass
class Shape:
    url: str  # the real upstream URL (scheme, host, port, path, query)
    rate_bps: int | None = None
    cut_after_bytes: int | None = None


class Relay:
    def __init__(self) -> None:
        self.runner: web.AppRunner | None = None
        self.port = 0
        self.pending: dict[str, Shape] = {}
        self._session: aiohttp.ClientSession | None = None
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)

    def session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession(
                auto_decompress=False, timeout=aiohttp.ClientTimeout(total=120),
                connector=aiohttp.TCPConnector(limit=0),
            )
        return self._session

    async def start(self) -> int:
        async with self._lock:
            if self.runner is None:
                app = web.Application(client_max_size=64 * 1024 * 1024)
                app.router.add_route("*", "/{tail:.*}", self.handle)
                runner = web.AppRunner(app, access_log=None)
                await runner.setup()
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind(("127.0.0.1", 0))
                await web.SockSite(runner, sock).start()
                self.port = int(sock.getsockname()[1])
                self.runner = runner
        return self.port

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def reroute(self, flow: http.HTTPFlow, shape_rate_bps: int | None = None,
                      cut_after_bytes: int | None = None) -> None:
        """Send this flow through the relay; its response will be paced/cut as asked."""
        port = await self.start()
        token = f"{next(self._ids)}-{secrets.token_hex(6)}"
        req = flow.request
        self.pending[token] = Shape(req.url, shape_rate_bps, cut_after_bytes)
        host_header = req.host_header
        req.scheme, req.host, req.port = "http", "127.0.0.1", port
        if host_header:
            req.host_header = host_header
        req.headers[RELAY_HEADER] = token
        marks(flow)["stream"] = True

    async def handle(self, request: web.Request) -> web.StreamResponse:
        shape = self.pending.pop(request.headers.get(RELAY_HEADER, ""), None)
        if shape is None:
            return web.Response(status=502, text="webchaos relay: unknown flow\n")
        headers = [(k, v) for k, v in request.headers.items()
                   if k.lower() not in HOP_BY_HOP and k.lower() != RELAY_HEADER]
        body = await request.read()
        try:
            upstream = await self.session().request(
                request.method, shape.url, headers=headers, data=body or None, allow_redirects=False,
            )
        except aiohttp.ClientError as exc:
            return web.Response(status=502, text=f"webchaos relay: upstream failed ({exc})\n")
        async with upstream:
            payload = await upstream.read()
            response = web.StreamResponse(status=upstream.status, reason=upstream.reason)
            for name, value in upstream.headers.items():
                if name.lower() not in HOP_BY_HOP:
                    response.headers.add(name, value)
        response.content_length = len(payload)
        await response.prepare(request)
        limit = len(payload) if shape.cut_after_bytes is None else min(len(payload), shape.cut_after_bytes)
        await self._pace(response, payload[:limit], shape.rate_bps)
        if limit < len(payload):
            # Announce the full length, send part of it, then drop the connection.
            if request.transport is not None:
                request.transport.abort()
            return response
        await response.write_eof()
        return response

    @staticmethod
    async def _pace(response: web.StreamResponse, data: bytes, rate_bps: int | None) -> None:
        if not rate_bps:
            if data:
                await response.write(data)
            return
        chunk = max(1, int(rate_bps * TICK_S))
        started = time.monotonic()
        for offset in range(0, len(data), chunk):
            due = started + offset / rate_bps
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            await response.write(data[offset:offset + chunk])
        end = started + len(data) / rate_bps
        if end > time.monotonic():
            await asyncio.sleep(end - time.monotonic())


RELAY = Relay()


async def replay(flow: http.HTTPFlow) -> tuple[int, dict[str, str], bytes]:
    """Send the flow's request once more to where it is going now (after routing); returns the answer."""
    req = flow.request
    headers = [(k, v) for k, v in req.headers.items(multi=True) if k.lower() not in HOP_BY_HOP]
    async with RELAY.session().request(req.method, req.url, headers=headers, data=req.raw_content or None,
                                       allow_redirects=False) as r:
        body = await r.read()
        return r.status, {k: v for k, v in r.headers.items() if k.lower() not in HOP_BY_HOP}, body


async def shutdown() -> None:
    with contextlib.suppress(Exception):
        await RELAY.stop()

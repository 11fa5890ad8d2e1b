"""A loopback gate that lets a held request's bytes through at its deadline, to the millisecond.

Forwarding a request costs mitmproxy about half a millisecond of CPU after a hook lets it go (the
rest of the hook chain, the HTTP layers, the write). Thirty-two requests held until about the same
moment therefore reached the site up to 15-30 ms late, one after the other
(benchmarks/latency_accuracy.py). So a delayed request is let go at once, pointed at this gate
instead of the site: mitmproxy does its work while the delay runs, the gate reads the request (head
and body, framed by Content-Length) and writes it to the site when the release clock says so. At the
deadline only the write is left, a few microseconds per request. Responses pass back unchanged.

In an episode that may hold requests, every other request to a site goes through the gate too, let
through at once (network/engine.py). mitmproxy keeps a server connection per client connection and
address, so otherwise a client connection's first held request waited for a new connection to the
gate: in a burst of 32 that took 20-60 ms of a 50 ms delay (benchmarks/latency_accuracy.py).

Each held request carries a one-time token in `GATE_HEADER` (taken off before the site sees it, and
off the recorded flow by the router's ClientView) that names its deadline and its real upstream. The
gate only serves those: a connection whose request has no token it issued is closed unread, so a
process beside the agent cannot use it to reach anything (and the site would refuse it anyway: the
stack secret is added by the router, not the gate).

The gate follows where each response ends (network/framing.py) because mitmproxy may be writing the
next request at the very moment a site closes an idle keep-alive connection (uvicorn by default: after
5 s; the sites server keeps them longer than a browser does): such a close is not passed on (the next
request connects again), and a request the gate wrote as the close crossed it, unanswered, goes once more
on a new connection. A close that ends or cuts a response is passed on.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import secrets
import socket
from dataclasses import dataclass

from mitmproxy import http

from proxy_addons.ledger import marks
from proxy_addons.network.framing import ResponseFraming, SentRequest
from proxy_addons.network.release import release_clock

logger = logging.getLogger(__name__)

GATE_HEADER = "x-webchaos-gate"
# A hold shorter than this stays in the hook: the gate's extra loopback hop would cost about as much.
MIN_GATED_S = 0.01
MAX_HEAD_BYTES = 64 * 1024
# mitmproxy writes a request as soon as it connects: a connection without one by then is closed.
FIRST_REQUEST_S = 5.0
# A token not used by then (its flow was killed before it reached the gate) is forgotten.
FORGET_AFTER_S = 120.0
_HEAD_END = b"\r\n\r\n"


def gateable(flow: http.HTTPFlow) -> bool:
    """A request on its way to a site that the gate can frame (not an upgrade: after a 101 the bytes are
    no longer HTTP)."""
    return "client_target" in marks(flow) and "upgrade" not in flow.request.headers


@dataclass
class Pass:
    deadline: float  # the event loop's time at which the request may reach the site
    upstream: tuple[str, int]
    flow: http.HTTPFlow  # marked `forwarded` once written (closing an episode waits for such writes)


class Gate:
    """The gate server (started on first use) and the tokens of the requests it expects."""

    def __init__(self) -> None:
        self.port = 0
        self.expected: dict[str, Pass] = {}
        self._server: asyncio.Server | None = None
        self._lock = asyncio.Lock()
        self._ids = itertools.count(1)
        self._connections: set[_GateConnection] = set()

    async def start(self) -> int:
        loop = asyncio.get_running_loop()
        if self._server is not None and self._server.get_loop() is not loop:
            self._server, self._lock = None, asyncio.Lock()  # a new event loop (tests): a new server
        async with self._lock:
            if self._server is None:
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.bind(("127.0.0.1", 0))
                self._server = await loop.create_server(
                    lambda: _GateConnection(self), sock=sock)
                self.port = int(sock.getsockname()[1])
        return self.port

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            for connection in list(self._connections):
                connection.close()
            self._server = None
        self.expected.clear()

    async def route(self, flow: http.HTTPFlow, deadline: float) -> None:
        """Send `flow` through the gate, to reach its current destination at the loop time `deadline`."""
        port = await self.start()
        loop_now = asyncio.get_running_loop().time()
        for token in [t for t, p in self.expected.items() if p.deadline < loop_now - FORGET_AFTER_S]:
            del self.expected[token]
        req = flow.request
        if "transfer-encoding" in req.headers:  # the gate frames by Content-Length: send the body whole
            del req.headers["transfer-encoding"]
            req.headers["content-length"] = str(len(req.raw_content or b""))
        token = f"{next(self._ids)}-{secrets.token_hex(8)}"
        self.expected[token] = Pass(deadline, (req.host, req.port), flow)
        host_header = req.host_header
        req.host, req.port = "127.0.0.1", port
        if host_header:
            req.host_header = host_header
        req.headers[GATE_HEADER] = token


class _GateConnection(asyncio.Protocol):
    """One connection from mitmproxy: requests read one at a time, each written upstream at its deadline."""

    def __init__(self, gate: Gate) -> None:
        self.gate = gate
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None
        self.upstream: asyncio.Transport | None = None
        self.upstream_protocol: _Upstream | None = None
        self.upstream_address: tuple[str, int] | None = None
        self.busy = False  # a request is being held or written
        self.admitted = False  # it has sent a request with a token the gate issued
        self.forwarding: asyncio.Future[None] | None = None
        self.reconnecting: asyncio.Future[None] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self.gate._connections.add(self)
        asyncio.get_running_loop().call_later(FIRST_REQUEST_S, self._close_if_not_admitted)

    def _close_if_not_admitted(self) -> None:
        if not self.admitted:
            self.close()

    def connection_lost(self, exc: Exception | None) -> None:
        self.gate._connections.discard(self)
        if self.forwarding is not None:
            self.forwarding.cancel()  # mitmproxy gave up on the request (client gone): it never reaches the site
        if self.reconnecting is not None:
            self.reconnecting.cancel()
        if self.upstream is not None:
            self.upstream.close()
        self.upstream_protocol = None  # it points back here: no cycle left for the collector

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > MAX_HEAD_BYTES and _HEAD_END not in self.buffer[:MAX_HEAD_BYTES]:
            self.close()
            return
        if not self.busy:
            self._next()

    def _next(self) -> None:
        end = self.buffer.find(_HEAD_END)
        if end < 0:
            return
        head, token, length = _split_head(bytes(self.buffer[:end]))
        if token is None or token not in self.gate.expected or length is None:
            logger.warning("webchaos gate: a request without a known token or Content-Length; closed")
            self.close()
            return
        self.admitted = True
        total = end + len(_HEAD_END) + length
        if len(self.buffer) < total:
            return  # the body is still coming
        passage = self.gate.expected.pop(token)
        request = head + _HEAD_END + bytes(self.buffer[end + len(_HEAD_END):total])
        del self.buffer[:total]
        self.busy = True
        self.forwarding = asyncio.ensure_future(self._forward(request, passage))

    async def _forward(self, request: bytes, passage: Pass) -> None:
        try:
            await self._upstream_to(passage.upstream)
            await release_clock().hold(passage.deadline)
            # The site may have closed it during the hold: connected again meanwhile (upstream_ended), or now.
            (await self._upstream_to(passage.upstream)).write(request)
            assert self.upstream_protocol is not None
            self.upstream_protocol.framing.sent(request)
            marks(passage.flow)["forwarded"] = True
        except OSError as exc:
            logger.warning(f"webchaos gate: upstream {passage.upstream} failed ({exc})")
            self.close()
            return
        finally:
            self.busy = False
        if self.buffer:
            self._next()

    async def _upstream_to(self, address: tuple[str, int]) -> asyncio.Transport:
        if self.reconnecting is not None:
            await self.reconnecting
        if (self.upstream is None or self.upstream.is_closing() or self.upstream_protocol is None
                or self.upstream_protocol.closed or self.upstream_address != address):
            await self._connect(address)
        assert self.upstream is not None
        return self.upstream

    async def _connect(self, address: tuple[str, int]) -> None:
        if self.upstream is not None and self.upstream_protocol is not None:
            self.upstream_protocol.detached = True  # replaced: the old connection goes quietly
            self.upstream.close()
        protocol = self.upstream_protocol = _Upstream(self)
        self.upstream, _ = await asyncio.get_running_loop().create_connection(lambda: protocol, *address)
        self.upstream_address = address

    def upstream_ended(self, upstream: _Upstream) -> None:
        """The site closed the connection and everything it said has been passed on."""
        if upstream.detached or self.transport is None or self.transport.is_closing():
            return
        framing = upstream.framing
        unanswered = framing.unanswered
        if unanswered and not any(request.resent for request in unanswered):
            # Written as the site closed its idle connection (uvicorn by default: after 5 s), so it never read
            # them: a site that reads a request answers it. Sent once more on a new connection, as browsers do on a
            # reused connection; a second close without an answer is the site's and is passed on.
            self._reconnect_soon(unanswered)
        elif framing.in_progress:
            # A response ended by the close (no length given) or cut short by it: mitmproxy must see the close.
            self.close()
        elif self.busy or self.buffer:
            # An idle connection's end while a request is held or arriving: connect again for it now, so its
            # release at the deadline has only the write left.
            self._reconnect_soon([])
        # else: an idle connection's end and nothing here to send. Not passed on: mitmproxy may be writing a
        # request at this very moment (it sends one only once the last response has ended, which framing
        # shows it has); that request connects again when it comes.

    def _reconnect_soon(self, resend: list[SentRequest]) -> None:
        if self.reconnecting is None and self.upstream_address is not None:
            self.reconnecting = asyncio.ensure_future(self._reconnect(self.upstream_address, resend))

    async def _reconnect(self, address: tuple[str, int], resend: list[SentRequest]) -> None:
        try:
            await self._connect(address)
            assert self.upstream is not None and self.upstream_protocol is not None
            for request in resend:
                self.upstream.write(request.raw)
                self.upstream_protocol.framing.sent(request.raw, resent=True)
        except OSError as exc:
            if resend:  # mitmproxy waits for their answers: tell it there will be none
                logger.warning(f"webchaos gate: upstream {address} failed on a resend ({exc})")
                self.close()
            # else: the held request tries once more at its deadline, and reports it if that fails too
        finally:
            self.reconnecting = None


class _Upstream(asyncio.Protocol):
    """The gate's connection to the site: what the site says goes back to mitmproxy unchanged, but not
    while another held request is about to be released (`yield_to_releases`, paced: one response at a
    time while releases are close): the response's work in the proxy waits a few milliseconds instead
    of making that release late."""

    def __init__(self, client: _GateConnection) -> None:
        self.client = client
        self.framing = ResponseFraming()
        self.pending = bytearray()
        self.closed = False
        self.detached = False  # replaced by a connection to another upstream: its end ends nothing
        self.flushing: asyncio.Future[None] | None = None

    def data_received(self, data: bytes) -> None:
        if self.detached:
            return
        self.framing.feed(data)
        self.pending += data
        if self.flushing is None:
            self.flushing = asyncio.ensure_future(self._flush())

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self.flushing is None:
            self.client.upstream_ended(self)

    async def _flush(self) -> None:
        try:
            await release_clock().yield_to_releases(pace=True)
            if self.client.transport is not None and self.pending and not self.detached:
                self.client.transport.write(bytes(self.pending))
            self.pending.clear()
        finally:
            self.flushing = None
            if self.closed:
                self.client.upstream_ended(self)


def _split_head(head: bytes) -> tuple[bytes, str | None, int | None]:
    """The head without the gate's header line, the token, and the body length (None: a bad Content-Length).

    Without Content-Length an HTTP/1.1 request has no body (the gate never sees a chunked one)."""
    lines = head.split(b"\r\n")
    kept = [lines[0]]
    token: str | None = None
    length: int | None = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        key = name.strip().lower()
        if key == GATE_HEADER.encode():
            token = value.strip().decode("latin-1")
            continue
        if key == b"content-length":
            length = None
            with contextlib.suppress(ValueError):
                length = int(value.strip())
            if length is not None and length < 0:
                length = None
        kept.append(line)
    return b"\r\n".join(kept), token, length


GATE = Gate()

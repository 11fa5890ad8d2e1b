"""Hostile requests through the real mitmdump (the documented stack command), sent as raw HTTP/1.1 bytes
so that no client library normalises them first: what the client gets, the ledger and the HAR."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import brotli
import pytest

from tests.proxy_addons.live import Stack

pytestmark = pytest.mark.asyncio(loop_scope="module")

_COUNTER = iter(range(1, 10_000))


@dataclass
class Ep:
    id: str
    port: int
    out_dir: Path

    def ledger(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in (self.out_dir / "faults.jsonl").read_text().splitlines()]

    def har(self) -> dict[str, Any]:
        return dict(json.loads((self.out_dir / "trace.har").read_text()))


@asynccontextmanager
async def episode(stack: Stack, tmp_path: Path) -> AsyncIterator[Ep]:
    name = f"hard-{next(_COUNTER)}"
    async with aiohttp.ClientSession(headers=stack.auth) as control:
        async with control.post(f"{stack.control}/episodes", json={
                "episode_id": name, "seed": 1, "out_dir": str(tmp_path / name), "record_actions": False}) as r:
            assert r.status == 201, await r.text()
            port = (await r.json())["port"]
        try:
            yield Ep(name, port, tmp_path / name)
        finally:
            async with control.delete(f"{stack.control}/episodes/{name}") as r:
                assert r.status == 200, await r.text()


async def raw(port: int, method: str, target: str, headers: list[tuple[str, str]] | None = None,
              body: bytes = b"", host: str = "shop.test") -> tuple[int, bytes]:
    """One request on a fresh connection, bytes as given; the status and body of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        lines = [f"{method} http://{host}{target} HTTP/1.1", f"Host: {host}", "Connection: close"]
        lines += [f"{name}: {value}" for name, value in headers or []]
        if body or method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await writer.drain()
        answer = await asyncio.wait_for(reader.read(), 30)
    finally:
        writer.close()
    head, _, rest = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), rest


async def test_a_header_flood_is_refused_without_stalling_other_flows(stack: Stack, tmp_path: Path) -> None:
    async with episode(stack, tmp_path) as ep:
        # Both answered, the flood refused. That the guard's scrub stays linear (it stalled the event loop for
        # ~10 s) is test_guard_router.py's to check against a linear pass, and header_flood.py's to time.
        flood = [(f"x-flood-{i}", "v" * 8) for i in range(10_000)]
        (status, body), (small_status, _) = await asyncio.gather(
            raw(ep.port, "GET", "/products", flood), raw(ep.port, "GET", "/products"))
        assert status == 431 and b"more than 200 request headers" in body
        assert small_status == 200
    (line,) = ep.ledger()
    assert (line["layer"], line["type"], line["detail"]["status"]) == ("guard", "refused", 431)


def peak_rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


async def test_a_brotli_bomb_is_refused_and_kept_out_of_the_har(stack: Stack, tmp_path: Path) -> None:
    bomb = brotli.compress(b"\0" * (128 << 20), quality=5)  # ~200 bytes that decode to 128 MiB
    assert len(bomb) < 300
    peak_before = peak_rss_mib(stack.process.pid)
    async with episode(stack, tmp_path) as ep:
        for path in ("/__webchaos/report", "/api/cart"):
            status, body = await raw(ep.port, "POST", path, [("Content-Encoding", "br")], bomb)
            assert status == 415 and b"Content-Encoding 'br'" in body, body
    assert peak_rss_mib(stack.process.pid) - peak_before < 32  # was +515 MiB (report), +3.5 GiB (HAR), at 256 MiB
    assert [(x["layer"], x["detail"]["status"]) for x in ep.ledger()] == [("guard", 415)] * 2
    assert (ep.out_dir / "trace.har").stat().st_size < 32_000
    entries = ep.har()["log"]["entries"]
    assert [e["request"]["postData"]["_webchaos_truncated"] for e in entries] == [True, True]


async def test_a_body_over_the_limit_gets_a_413(stack: Stack, tmp_path: Path) -> None:
    async with episode(stack, tmp_path) as ep:
        status, body = await raw(ep.port, "POST", "/api/cart", body=b"x" * ((1 << 20) + 1))
        assert status == 413 and b"request body larger than 1048576 bytes" in body
        status, _ = await raw(ep.port, "POST", "/api/cart", body=b"x" * (1 << 20))
        assert status == 200
    (line,) = ep.ledger()
    assert (line["layer"], line["detail"]["status"]) == ("guard", 413)


async def test_a_response_over_body_size_limit_gets_a_502_and_a_ledger_line(stack: Stack, tmp_path: Path) -> None:
    async with episode(stack, tmp_path) as ep:
        status, body = await raw(ep.port, "GET", "/huge?mib=9")  # the stack's body_size_limit is 8 MiB
        assert status == 502 and b"body_size_limit" in body, (status, body[:200])
        status, body = await raw(ep.port, "GET", "/huge?mib=2")
        assert status == 200 and len(body) == 2 << 20
    (line,) = ep.ledger()
    assert (line["layer"], line["type"], line["detail"]["status"]) == ("guard", "refused", 502)
    assert line["request"]["host"] == "shop.test" and line["request"]["path"] == "/huge"
    big, small = ep.har()["log"]["entries"]
    assert big["_webchaos"][0]["detail"]["status"] == 502
    assert small["response"]["content"]["_webchaos_truncated"] is True
    assert small["response"]["bodySize"] == 2 << 20 and len(small["response"]["content"]["text"]) == 256 * 1024


async def test_a_chunked_request_that_never_stops_is_cut_at_body_size_limit(stack: Stack, tmp_path: Path) -> None:
    peak_before = peak_rss_mib(stack.process.pid)
    async with episode(stack, tmp_path) as ep:
        reader, writer = await asyncio.open_connection("127.0.0.1", ep.port)
        received = bytearray()

        async def read_answer() -> None:  # read while sending: the proxy answers and closes mid-body
            with contextlib.suppress(ConnectionError):
                while data := await reader.read(65536):
                    received.extend(data)

        answering = asyncio.create_task(read_answer())
        writer.write(b"POST http://shop.test/api/cart HTTP/1.1\r\nHost: shop.test\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        chunk = b"%x\r\n" % (1 << 20) + b"y" * (1 << 20) + b"\r\n"
        with contextlib.suppress(ConnectionError):
            for _ in range(64):  # 64 MiB, no Content-Length to refuse it by
                writer.write(chunk)
                await writer.drain()
        await asyncio.wait_for(answering, 30)
        writer.close()
        answer = bytes(received)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert peak_rss_mib(stack.process.pid) - peak_before < 40  # unbounded (64 MiB buffered, +130 MiB) before
    (line,) = ep.ledger()
    assert (line["layer"], line["detail"]["status"]) == ("guard", 413)
    assert "body_size_limit" in line["detail"]["reason"]


async def test_dot_segment_and_parameter_spellings_of_reserved_paths_are_refused(stack: Stack,
                                                                                 tmp_path: Path) -> None:
    spellings = ["/a/../_oracle/state", "/%2e%2e/_oracle", "/;x/_oracle", "/..;/_control", "/./__webchaos/x"]
    async with episode(stack, tmp_path) as ep:
        for path in spellings:
            status, body = await raw(ep.port, "GET", path)
            assert status == 403 and b"reserved path" in body, path
        status, _ = await raw(ep.port, "GET", "/a/../products")
        assert status == 200
    assert [(x["request"]["path"], x["detail"]["reason"]) for x in ep.ledger()] == [
        (path, "reserved path") for path in spellings]

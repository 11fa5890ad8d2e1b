"""The sites server process: its public port keeps idle connections for the browser to close."""

import asyncio
import contextlib
import socket

import pytest
import uvicorn

from sites.server import PUBLIC_KEEP_ALIVE_S, build, config

UVICORN_DEFAULT_KEEP_ALIVE_S = 5


async def _answer(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    await reader.readexactly(length)
    return head


@pytest.mark.asyncio
async def test_a_request_after_the_connection_idled_past_uvicorns_default_is_answered() -> None:
    # A write ~5 s after the page's last request went down a connection uvicorn was closing at that instant
    # and failed with no answer (a reference run of shop_redeem_gift_card). The public port keeps it open.
    assert PUBLIC_KEEP_ALIVE_S > 300  # longer than Chromium keeps a used idle socket
    public, _, _ = build(secret="s3cret")
    listening = socket.create_server(("127.0.0.1", 0))  # connections wait in its backlog until the server is up
    port = listening.getsockname()[1]
    server = uvicorn.Server(config(public, "127.0.0.1", port, PUBLIC_KEEP_ALIVE_S))
    serving = asyncio.create_task(server.serve(sockets=[listening]))
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = b"GET / HTTP/1.1\r\nHost: shop.test\r\n\r\n"  # no secret: a 401, on a kept connection
        writer.write(request)
        assert (await _answer(reader)).startswith(b"HTTP/1.1 401")
        await asyncio.sleep(UVICORN_DEFAULT_KEEP_ALIVE_S + 0.5)
        writer.write(request)
        assert (await _answer(reader)).startswith(b"HTTP/1.1 401"), "the idle connection was closed"
        writer.close()
    finally:
        server.should_exit = True
        with contextlib.suppress(asyncio.CancelledError):
            await serving

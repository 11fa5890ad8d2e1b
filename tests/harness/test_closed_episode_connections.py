"""A client's keep-alive connection to an episode's proxy port is closed with the episode: it can neither go
on using the episode nor keep memory in the proxy (what the soak benchmark measured, 500 episodes)."""

import asyncio
import json
from pathlib import Path

from harness.episodes.manager import EpisodeManager, EpisodeSpec
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from tests.catalog import builtin_catalog

REQUEST = b"GET http://shop.test/ HTTP/1.1\r\nHost: shop.test\r\nConnection: keep-alive\r\n\r\n"


async def _response(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    await reader.readexactly(length)
    return head


async def test_closing_an_episode_closes_its_open_connections(stack: Services, tmp_path: Path) -> None:
    task = builtin_catalog().tasks["shop_add_to_cart"]
    async with OracleClient(stack.oracle_url, stack.secret) as oracle:
        control = ControlClient(stack.control_url, stack.secret)
        manager = EpisodeManager(oracle, control)
        try:
            opened = await manager.open(EpisodeSpec(task, None, 1), "keepalive", tmp_path / "keepalive")
            port = int(opened.proxy_url.rsplit(":", 1)[1])
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(REQUEST)
            assert b" 200 " in (await _response(reader)).split(b"\r\n")[0]
            writer.write(REQUEST)  # the same connection, kept alive
            assert b" 200 " in (await _response(reader)).split(b"\r\n")[0]
            await manager.close(opened)
            assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the proxy
            writer.close()
        finally:
            await control.close()
    har = json.loads((tmp_path / "keepalive" / "trace.har").read_text())
    assert len(har["log"]["entries"]) == 2

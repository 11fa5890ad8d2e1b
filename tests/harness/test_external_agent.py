"""The `cmd:` agent's environment: site traffic through the episode's proxy, loopback straight to its server."""

import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.agents import CommandAgent
from harness.agents.base import EpisodeContext
from harness.agents.external import LOOPBACK_NO_PROXY
from tests.catalog import builtin_catalog


class _Answer(BaseHTTPRequestHandler):
    """Answers every GET with the server's name; remembers each request line."""

    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, Server)
        server.seen.append(self.requestline)
        body = server.name.encode()
        self.send_response(200)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class Server(ThreadingHTTPServer):
    def __init__(self, name: str) -> None:
        super().__init__(("127.0.0.1", 0), _Answer)
        self.name = name
        self.seen: list[str] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    """A stand-in for the episode's proxy (it answers whatever it is asked) and a local model server."""
    pair = (Server("proxy"), Server("local"))
    threads = [threading.Thread(target=s.serve_forever, daemon=True) for s in pair]
    for thread in threads:
        thread.start()
    yield pair
    for server in pair:
        server.shutdown()
        server.server_close()


def _context(tmp_path: Path, proxy_url: str) -> EpisodeContext:
    task = builtin_catalog().tasks["shop_add_to_cart"]
    return EpisodeContext(
        episode_id="e1", task=task, variant=None, seed=1, instruction="do it", start_url="http://shop.test/",
        proxy_url=proxy_url, plan=task.plan, out_dir=tmp_path, browser=None, time_budget_s=30,
    )


def test_proxy_environment_exempts_loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_PROXY", "*")  # whatever the parent had: the sites must still go via the proxy
    monkeypatch.setenv("no_proxy", ".test")
    env = CommandAgent("true").environment(_context(tmp_path, "http://127.0.0.1:41233"))
    assert env["HTTP_PROXY"] == env["http_proxy"] == env["WEBCHAOS_PROXY"] == "http://127.0.0.1:41233"
    assert env["NO_PROXY"] == env["no_proxy"] == LOOPBACK_NO_PROXY
    assert set(LOOPBACK_NO_PROXY.split(",")) >= {"localhost", "127.0.0.1", "::1", "127.0.0.0/8"}
    assert not any("test" in entry for entry in LOOPBACK_NO_PROXY.split(","))


CHILD = """
import sys, urllib.request
for url in sys.argv[1:]:
    with urllib.request.urlopen(url, timeout=10) as r:  # the environment's proxies, as most clients do
        print(url, r.read().decode())
"""


async def test_a_child_reaches_loopback_directly_and_the_sites_through_the_proxy(
        tmp_path: Path, servers: tuple[Server, Server]) -> None:
    proxy, local = servers
    port = local.server_address[1]
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    loopback = [f"{local.url}/v1/models", f"http://localhost:{port}/v1/models"]
    agent = CommandAgent(f"{sys.executable} {script} {' '.join(loopback)} http://shop.test/cart")
    outcome = await agent.run(_context(tmp_path, proxy.url))
    log = (tmp_path / "agent.log").read_text()
    assert outcome.status == "done", log
    assert log.split("\n")[:3] == [f"{loopback[0]} local", f"{loopback[1]} local", "http://shop.test/cart proxy"]
    assert local.seen == ["GET /v1/models HTTP/1.1"] * 2  # origin-form: asked directly
    assert proxy.seen == ["GET http://shop.test/cart HTTP/1.1"]  # absolute-form: asked as a proxy

"""The run's browser: the headless shell when it is installed, and an episode's context that sends what its
pages send as they go (rrweb's last batch is posted on `pagehide`)."""

import asyncio
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.config import find_chromium

pytestmark = pytest.mark.e2e

# As the recorder scripts do, the page sends on `pagehide` only what it has not sent yet.
PAGE = b"""<!doctype html><title>leaving</title><p>on the page</p><script>
let sent = false;
addEventListener("pagehide", () => {
  if (!sent) { sent = true; fetch("/left", {method: "POST", keepalive: true, body: "bye"}); }
}, true);
</script>"""


@pytest.fixture
def site() -> Iterator[tuple[str, list[str], threading.Event]]:
    arrived: list[str] = []
    posted = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *_: object) -> None:
            pass

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(PAGE)))
            self.end_headers()
            self.wfile.write(PAGE)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            arrived.append(self.path)
            posted.set()
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", arrived, posted
    finally:
        server.shutdown()


async def test_closing_an_episode_context_sends_what_its_open_pages_send_on_pagehide(
        site: tuple[str, list[str], threading.Event]) -> None:
    url, arrived, posted = site
    pool = await BrowserPool().start()
    try:
        assert pool.pid is not None
        assert Path(os.readlink(f"/proc/{pool.pid}/exe")).name == Path(find_chromium(headless=True)).name
        # the test's server is the proxy too: it is asked for absolute URLs and answers them itself
        context = await pool.new_context(url)
        page = await context.new_page()
        await page.goto("http://leaving.test/")
        await context.close()
        # sent as the page went; the server reads it when it reads it (a long bound: a loaded machine)
        assert await asyncio.to_thread(posted.wait, 30), "nothing arrived from the page's pagehide"
        assert arrived == ["http://leaving.test/left"]
    finally:
        await pool.stop()

"""Live fixtures: a real mitmdump running the stack (the documented command) and a stand-in upstream."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

import aiohttp
from aiohttp import web

from harness.config import free_port
from scenarios.secret import SECRET_HEADER, make_secret, secret_pipe

REPO = Path(__file__).resolve().parents[2]
MITMDUMP = Path(sys.executable).with_name("mitmdump")
CHROMIUM = Path("/usr/lib/chromium/chromium")  # Debian's; the live browser tests skip without it

PAGE = """<!doctype html>
<html><head><title>Shop</title></head>
<body>
  <h1>Blue mug</h1>
  <button id="add" type="button" onclick="document.getElementById('out').textContent = 'added'">Add to cart</button>
  <p id="out"></p>
</body></html>
"""


# Two same-named buttons, each in its own answer: what a step scoped by `within:` tells apart.
ANSWERS = """<!doctype html>
<html><head><title>Thread</title></head>
<body>
  <article><p>First answer: restart it.</p>
    <button type="button" onclick="document.getElementById('out').textContent += 'first;'">Upvote</button></article>
  <article><p>Second answer: update the driver.</p>
    <button type="button" onclick="document.getElementById('out').textContent += 'second;'">Upvote</button></article>
  <p id="out"></p>
</body></html>
"""


# The query strings of the /slow requests the stand-in upstream has received (appended on its own thread).
SLOW_ARRIVALS: list[str] = []


def stack_command(sites_port: int, control_port: int, state_dir: Path) -> list[str]:
    """Exactly the command documented in proxy_addons/stack.py."""
    return [
        str(MITMDUMP), "-q", "-s", str(REPO / "proxy_addons" / "stack.py"),
        "--set", "mode",
        "--set", f"webchaos_sites=127.0.0.1:{sites_port}",
        "--set", "webchaos_site_hosts=shop.test,mail.test",
        "--set", f"webchaos_control_port={control_port}",
        "--set", "connection_strategy=lazy",
        "--set", f"confdir={state_dir / 'mitmproxy'}",
        "--set", "webchaos_secret_fd={secret_fd}",
    ]


async def _echo(request: web.Request) -> web.StreamResponse:
    if request.path == "/page":
        return web.Response(text=PAGE, content_type="text/html")
    if request.path == "/answers":
        return web.Response(text=ANSWERS, content_type="text/html")
    if request.path == "/huge":  # ?mib=N: a response body of N MiB
        return web.Response(body=b"x" * (int(request.query.get("mib", "1")) << 20), content_type="text/plain")
    await request.read()
    if request.path == "/slow":  # ?ms=N: answered after N ms
        SLOW_ARRIVALS.append(request.query_string)
        await asyncio.sleep(int(request.query.get("ms", "500")) / 1000)
    return web.json_response({
        "host": request.headers.get("Host"),
        "episode": request.headers.get("x-webchaos-episode"),
        "method": request.method,
        "path": request.path,
    })


class ThreadedSite:
    """An aiohttp app on its own thread and loop, so synchronous fixtures can start and stop it.

    Subclasses answer every request in `handle`."""

    keepalive_s = 75.0  # aiohttp's default: how long an idle keep-alive connection stays open

    def __init__(self) -> None:
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.runner: web.AppRunner | None = None

    async def handle(self, request: web.Request) -> web.StreamResponse:
        raise NotImplementedError

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", self.handle)
        self.runner = web.AppRunner(app, access_log=None, keepalive_timeout=self.keepalive_s)
        self.loop.run_until_complete(self.runner.setup())
        self.loop.run_until_complete(web.TCPSite(self.runner, "127.0.0.1", self.port).start())
        self.ready.set()
        self.loop.run_forever()

    def start(self) -> Self:
        self.thread.start()
        self.ready.wait(10)
        return self

    def stop(self) -> None:
        if self.runner is not None:
            asyncio.run_coroutine_threadsafe(self.runner.cleanup(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


class Upstream(ThreadedSite):
    """Echoes Host and x-webchaos-episode; /page is HTML."""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        return await _echo(request)


@dataclass
class Stack:
    control: str
    process: subprocess.Popen[bytes]
    state_dir: Path
    secret: str

    @property
    def auth(self) -> dict[str, str]:
        """Headers for a control API call."""
        return {SECRET_HEADER: self.secret}


def run_stack(sites_port: int, state_dir: Path) -> Iterator[Stack]:
    control_port = free_port()
    log = (state_dir / "mitmdump.log").open("wb")
    secret = make_secret()
    fd = secret_pipe(secret)
    command = [a.replace("{secret_fd}", str(fd)) for a in stack_command(sites_port, control_port, state_dir)]
    try:
        process = subprocess.Popen(command, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, pass_fds=(fd,),
                                   env={**os.environ, "PYTHONUNBUFFERED": "1"})
    finally:
        os.close(fd)
    control = f"http://127.0.0.1:{control_port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"mitmdump exited: {(state_dir / 'mitmdump.log').read_text()}")
            try:
                health = urllib.request.Request(f"{control}/health", headers={SECRET_HEADER: secret})
                with urllib.request.urlopen(health, timeout=1) as r:
                    if r.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield Stack(control, process, state_dir, secret)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
        log.close()


def jsonl(path: Path) -> list[dict[str, Any]]:
    """The records of an episode's JSONL file (its ledger, its actions); none while it is not written yet."""
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


async def open_episode(session: aiohttp.ClientSession, control: str, episode_id: str, out_dir: Path,
                       faults: list[dict[str, Any]], seed: int) -> str:
    """Open an episode on the stack's control API (`session` carries its auth) and return its proxy URL: the
    first step of every live browser test."""
    async with session.post(f"{control}/episodes", json={
            "episode_id": episode_id, "seed": seed, "out_dir": str(out_dir), "faults": faults}) as r:
        assert r.status == 201, await r.text()
        return str((await r.json())["proxy_url"])

"""The control API: an aiohttp server inside the mitmdump process, on 127.0.0.1 only.

Started in `running()` on `webchaos_control_port` (0 = no control server), stopped
in `done()`. It is never reachable through the proxy (the guard refuses every
non-site host). JSON in and out; 404 for unknown episode ids everywhere.

Every request (`/health` included) must carry the stack's secret in `x-webchaos-secret`
(`webchaos_secret_fd`, see proxy_addons/secret.py); without it the answer is a 401 and
nothing else. A control port without a secret is refused at start.

- `GET /health` -> 200 `{"ok": true, "episodes": n, "readers": {episode id: action readers waiting}}`
- `POST /episodes` `{"episode_id", "seed", "faults": [envelopes], "out_dir", "port": int|null,
  "record_actions": bool (default true: GUI actions to `<out_dir>/actions.jsonl`),
  "record_replay": bool (default true: rrweb page recording to `<out_dir>/rrweb.jsonl`)}`
  -> 201 `{"episode_id", "port", "proxy_url", "site_scheme"}` (`https` when the stack runs with
  `webchaos_https`: agents should then start from https:// site URLs); opens listener `regular@127.0.0.1:<port>`
  (a free port if null; a port is never reused within the process -> 409). Faults are
  validated with `scenarios.faults.parse_fault`; only network and client faults are
  armed here, other layers are ignored. 422 `{"error": "faults[2].params.delay_ms: ..."}`
  on a bad body or fault, 409 on a duplicate id/port, 500 if the listener fails.
- `GET /episodes/{id}/har` -> the episode's HAR so far (nothing stops).
- `POST /episodes/{id}/faults` (an envelope, network or client layer) -> 201 `{"fault_id", "layer", "type",
  "active", …}`: armed from now on (proxy_addons/arming.py); 422 for a bad envelope, a seed fault (only
  at open) or a server fault (armed at the sites' oracle), 409 for a duplicate id or a closed episode.
- `DELETE /episodes/{id}/faults/{fault_id}` -> 200 with the fault's counts; 404 for an unknown id.
- `GET /episodes/{id}/faults` -> the armed faults; `GET /episodes/{id}/actions?since=n` -> the GUI actions
  from the n-th on, in arrival order. With `&wait_s=s` (≤ 30), a long poll (scenarios/feed.py): when there is
  none yet, the answer waits for the next (at most s seconds, then `[]`) and carries at most 500; 410 once
  the episode is closing or closed and nothing is left, 429 beside too many waiting readers.
- `DELETE /episodes/{id}` -> removes the listener, waits (at most WRITE_SETTLE_S) for writes already
  forwarded to the sites server to be answered, writes `<out_dir>/trace.har`, forgets
  the flows, closes the ledger: `{"flows", "har", "ledger", "firings"}`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
from pathlib import Path
from typing import Any

from aiohttp import web
from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proxy_addons.arming import arm_fault, disarm_fault
from proxy_addons.episodes import Episodes, ProxyEpisode, arm_proxy_faults
from proxy_addons.ledger import marks
from proxy_addons.recorder import Recorder
from proxy_addons.secret import StackSecret
from scenarios.arming import ArmError, describe
from scenarios.faults import FaultError
from scenarios.feed import BATCH_LIMIT, CLOSED_STATUS, MAX_WAIT_S, TooManyReaders
from scenarios.secret import SECRET_HEADER, refusal, secret_matches

logger = logging.getLogger(__name__)

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")


class OpenEpisodeRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    episode_id: str = Field(pattern=_ID.pattern)
    seed: int
    faults: list[Any] = Field(default_factory=list)
    out_dir: str = Field(min_length=1)
    port: int | None = Field(default=None, ge=1, le=65535)
    record_actions: bool = True
    record_replay: bool = True


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


# How long closing an episode waits for writes already forwarded to the sites server to be answered.
WRITE_SETTLE_S = 2.0
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def writes_in_flight(episode: ProxyEpisode) -> int:
    """Writes the proxy has forwarded upstream (`marks["forwarded"]`, see router.ClientView) whose answer
    has not reached the client yet: held or dropped ones (a hang fault) never reached the site and do not
    count. `flow.response` is set when the response head arrives, well before the body is read and the
    response hooks have run, so a write counts until its last hook: there the recorder's tail keeps only
    its HAR entry (a dict), and mitmproxy writes the answer to the client in the same step, without
    waiting on anything in between."""
    return sum(1 for flow in episode.flows.values()
               if isinstance(flow, http.HTTPFlow) and flow.error is None and flow.request.method in WRITE_METHODS
               and marks(flow).get("forwarded"))


async def settle_writes(episode: ProxyEpisode, timeout_s: float, poll_s: float = 0.005) -> None:
    # Polled: a flow's answer arrives through mitmproxy's hooks, which signal nothing to wait on here.
    for _ in range(int(timeout_s / poll_s)):
        if not writes_in_flight(episode):
            return
        await asyncio.sleep(poll_s)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Control:
    def __init__(self, episodes: Episodes, recorder: Recorder, secret: StackSecret) -> None:
        self.episodes = episodes
        self.recorder = recorder
        self.secret = secret
        self.runner: web.AppRunner | None = None
        self.lock = asyncio.Lock()
        self.closed: set[str] = set()  # ids of closed episodes: a late arm gets a 409 that says so

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "webchaos_control_port", int, 0,
            "Port of the webchaos control API on 127.0.0.1 (0: no control API).",
        )

    def configure(self, updated: set[str]) -> None:
        if "webchaos_control_port" in updated:
            port = ctx.options.webchaos_control_port
            if not 0 <= port <= 65535:
                raise exceptions.OptionsError(f"webchaos_control_port: not a port: {port}")
        if ctx.options.webchaos_control_port and self.secret.value is None:
            raise exceptions.OptionsError("webchaos_control_port: the control API needs the stack's secret "
                                          "(webchaos_secret_fd)")

    def app(self) -> web.Application:
        app = web.Application(client_max_size=4 * 1024 * 1024, middlewares=[self.require_secret])
        app.add_routes([
            web.get("/health", self.health),
            web.post("/episodes", self.open_episode),
            web.get("/episodes/{id}/har", self.get_har),
            web.delete("/episodes/{id}", self.close_episode),
            web.get("/episodes/{id}/faults", self.list_faults),
            web.post("/episodes/{id}/faults", self.arm),
            web.delete("/episodes/{id}/faults/{fault_id}", self.disarm),
            web.get("/episodes/{id}/actions", self.actions),
        ])
        return app

    async def running(self) -> None:
        port = ctx.options.webchaos_control_port
        if not port or self.runner is not None:
            return
        self.runner = web.AppRunner(self.app(), access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", port).start()
        logger.info(f"webchaos control API on http://127.0.0.1:{port}")

    async def done(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()
            self.runner = None
        for episode in list(self.episodes.by_id.values()):
            episode.ledger.close()

    @web.middleware
    async def require_secret(self, request: web.Request, handler: Any) -> web.StreamResponse:
        expected = self.secret.value
        if expected is None or not secret_matches(request.headers.get(SECRET_HEADER), expected):
            return web.Response(status=401, text=refusal("the control API"),
                                headers={"www-authenticate": SECRET_HEADER})
        response: web.StreamResponse = await handler(request)
        return response

    # -- listeners ------------------------------------------------------------------

    async def _set_listener(self, spec: str, present: bool) -> bool:
        modes = [m for m in ctx.options.mode if m != spec]
        if present:
            modes.append(spec)
        ctx.options.update(mode=modes)
        return bool(await ctx.master.addons.get("proxyserver").setup_servers())

    @staticmethod
    def _drop_connections(spec: str) -> int:
        """Close the connections clients still hold on a closed episode's listener: removing a listener
        does not close them, and a client that keeps them alive (an HTTP pool, a browser left open) would
        keep their buffers in this process after the episode is over. Returns how many were closed."""
        dropped = 0
        for handler in list(ctx.master.addons.get("proxyserver").connections.values()):
            client = getattr(handler, "client", None)
            if client is None or client.proxy_mode.full_spec != spec:
                continue
            io = handler.transports.get(client)
            if io is not None and io.handler is not None and not io.handler.done():
                io.handler.cancel("webchaos: episode closed")
                dropped += 1
        return dropped

    def _listener_running(self, spec: str) -> bool:
        servers = ctx.master.addons.get("proxyserver").servers
        try:
            return bool(servers[spec].is_running)
        except KeyError:
            return False

    # -- handlers -------------------------------------------------------------------

    async def open_episode(self, request: web.Request) -> web.Response:
        try:
            body = OpenEpisodeRequest.model_validate(await request.json())
        except json.JSONDecodeError:
            return _error(422, "body: not JSON")
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(body)"
            return _error(422, f"{where}: {first['msg']}")
        try:
            armed = arm_proxy_faults(body.faults, body.seed)
        except FaultError as exc:
            return _error(422, str(exc))
        async with self.lock:
            if self.episodes.get(body.episode_id) is not None:
                return _error(409, f"episode {body.episode_id!r} is already open")
            port = body.port
            if port is None:
                port = free_port()
                while port in self.episodes.used_ports:
                    port = free_port()
            elif port in self.episodes.used_ports:
                return _error(409, f"port {port} was already used in this proxy; ports are never reused")
            try:
                episode = ProxyEpisode(body.episode_id, body.seed, Path(body.out_dir), port, armed,
                                  record_actions=body.record_actions, record_replay=body.record_replay)
            except OSError as exc:
                return _error(422, f"out_dir: {exc}")
            self.episodes.add(episode)
            ok = await self._set_listener(episode.mode_spec, True) and self._listener_running(episode.mode_spec)
            if not ok:
                await self._set_listener(episode.mode_spec, False)
                self.episodes.remove(episode.id)
                episode.ledger.close()
                return _error(500, f"could not listen on 127.0.0.1:{port}")
        logger.info(f"webchaos: episode {episode.id} open on {episode.proxy_url} ({len(armed)} faults armed)")
        scheme = "https" if getattr(ctx.options, "webchaos_https", False) else "http"
        return web.json_response(
            {"episode_id": episode.id, "port": port, "proxy_url": episode.proxy_url, "site_scheme": scheme},
            status=201,
        )

    def _open_episode(self, request: web.Request) -> ProxyEpisode | web.Response:
        episode_id = request.match_info["id"]
        episode = self.episodes.get(episode_id)
        if episode is not None:
            return episode
        if episode_id in self.closed:
            return _error(409, f"episode {episode_id!r} is closed: faults are armed on open episodes only")
        return _error(404, f"unknown episode {episode_id!r}")

    async def list_faults(self, request: web.Request) -> web.Response:
        episode = self._open_episode(request)
        if isinstance(episode, web.Response):
            return episode
        return web.json_response([describe(f) for f in episode.faults])

    async def arm(self, request: web.Request) -> web.Response:
        episode = self._open_episode(request)
        if isinstance(episode, web.Response):
            return episode
        try:
            raw = await request.json()
        except json.JSONDecodeError:
            return _error(422, "body: not JSON (expected a fault envelope)")
        try:
            armed = arm_fault(episode, raw)
        except ArmError as exc:
            return _error(exc.status, str(exc))
        logger.info(f"webchaos: episode {episode.id}: fault {armed.id} armed")
        return web.json_response(describe(armed), status=201)

    async def disarm(self, request: web.Request) -> web.Response:
        episode = self._open_episode(request)
        if isinstance(episode, web.Response):
            return episode
        try:
            armed = disarm_fault(episode, request.match_info["fault_id"])
        except ArmError as exc:
            return _error(exc.status, str(exc))
        logger.info(f"webchaos: episode {episode.id}: fault {armed.id} disarmed")
        return web.json_response(describe(armed))

    async def actions(self, request: web.Request) -> web.Response:
        if request.match_info["id"] in self.closed:
            return _error(CLOSED_STATUS, f"episode {request.match_info['id']!r} is closed")
        episode = self._open_episode(request)
        if isinstance(episode, web.Response):
            return episode
        try:
            since = int(request.query.get("since", "0"))
        except ValueError:
            return _error(422, "since: expected a whole number")
        if since < 0:
            return _error(422, "since: expected 0 or more")
        try:
            wait_s = float(request.query.get("wait_s", "0"))
        except ValueError:
            return _error(422, "wait_s: expected a number of seconds")
        if not 0 <= wait_s <= MAX_WAIT_S:  # NaN fails this too
            return _error(422, f"wait_s: expected 0 to {MAX_WAIT_S:g} seconds")
        if not wait_s:
            return web.json_response(self.recorder.actions_since(episode, since))
        try:
            await episode.feed.wait(lambda: self.recorder.action_count(episode) > since, wait_s)
        except TooManyReaders as exc:
            return _error(429, str(exc))
        fresh = self.recorder.actions_since(episode, since)[:BATCH_LIMIT]
        if not fresh and episode.feed.closed:
            return _error(CLOSED_STATUS, f"episode {episode.id!r} is closed")
        return web.json_response(fresh)

    async def health(self, request: web.Request) -> web.Response:
        return web.json_response({"ok": True, "episodes": len(self.episodes),
                                  "readers": {e.id: e.feed.readers for e in self.episodes.by_id.values()
                                              if e.feed.readers}})

    async def get_har(self, request: web.Request) -> web.Response:
        episode = self.episodes.get(request.match_info["id"])
        if episode is None:
            return _error(404, f"unknown episode {request.match_info['id']!r}")
        return web.json_response(self.recorder.har(episode))

    async def close_episode(self, request: web.Request) -> web.Response:
        async with self.lock:
            episode = self.episodes.get(request.match_info["id"])
            if episode is None or episode.closing:
                return _error(404, f"unknown episode {request.match_info['id']!r}")
            episode.closing = True
            self.closed.add(episode.id)
            episode.feed.close()  # its waiting action readers get what is left, then 410
            await self._set_listener(episode.mode_spec, False)
        # Outside the lock (other episodes open and close meanwhile): a write the agent sent just before
        # it stopped is still being answered, and the final state read after this must include it.
        await settle_writes(episode, WRITE_SETTLE_S)
        async with self.lock:
            self.episodes.remove(episode.id)
            dropped = self._drop_connections(episode.mode_spec)
        har_path, flows = await self.recorder.export(episode)
        episode.ledger.close()
        logger.info(f"webchaos: episode {episode.id} closed ({flows} flows, {episode.firings} firings, "
                    f"{dropped} connections dropped)")
        return web.json_response({
            "flows": flows,
            "har": str(har_path),
            "ledger": str(episode.ledger.path),
            "firings": episode.firings,
        })

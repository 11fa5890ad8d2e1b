"""The addon that applies network-layer faults to an episode's flows.

The engine owns everything generic: which faults of the flow's episode match
(`spec.match.matches_request`), the schedule and toxicity draw
(`ArmedFault.decide`), the ledger line, the flow mark and error handling. A fault
type only says what a firing does, by subclassing `NetworkFault`:

- `hook` (or `hook_point()` when a parameter decides it): `"request"` (after the
  request body is read, before the upstream is contacted) or `"response"` (after
  the upstream answered, before the client sees anything);
- `writes_only`: only non-safe methods (POST, PUT, PATCH, DELETE ...) are eligible;
- `default_schedule`: the schedule used when the envelope gives none (e.g.
  `error_then_success` fails the first request only);
- `observe(flow, armed, hook, now_ms)`: sees every flow of the episode at every hook,
  matched or not (e.g. `stale_response` watches writes, `session_expiry` watches the
  sign-in); keeps its per-episode state in `state_of(armed)`;
- `eligible(flow, armed, now_ms)`: a matched flow the type could act on at all (e.g.
  `rate_limit`: over the limit); only eligible flows count for the schedule;
- `in_effect(flow, armed, now_ms)`: a fault already in force fires without a new
  schedule draw (e.g. an expired session stays expired until the agent signs in);
- `draw(flow, armed)`: the concrete values of this firing, drawn from `armed.rng`;
  they become the ledger line's `detail`;
- `async apply(flow, armed, ctx)`: do it (`ctx.detail` holds what `draw` returned).

Faults fire in envelope order. A fault that answers the request itself (`answer`)
marks the flow `local`; later request faults and every response fault skip it. A
fault whose code raises does not fail open: the flow is answered with an explicit
500 and a `hook_error` ledger line.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from mitmproxy import http

from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.ledger import marks, request_summary
from proxy_addons.network.gate import GATE, GATE_HEADER, MIN_GATED_S, gateable
from proxy_addons.network.relay import shutdown
from proxy_addons.network.release import hold_until, release_clock
from scenarios.faults import ArmedFault, FaultType, Layer

logger = logging.getLogger(__name__)

HookPoint = Literal["request", "response"]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})

_STATE: weakref.WeakKeyDictionary[ArmedFault, dict[str, Any]] = weakref.WeakKeyDictionary()


def state_of(armed: ArmedFault) -> dict[str, Any]:
    """Mutable per-episode state of one armed fault (counters, caches); dies with the episode."""
    state = _STATE.get(armed)
    if state is None:
        state = _STATE[armed] = {}
    return state


def is_write(flow: http.HTTPFlow) -> bool:
    return flow.request.method.upper() not in SAFE_METHODS


def wants_json(flow: http.HTTPFlow) -> bool:
    """Whether the client expects a JSON answer (an API call) rather than a page."""
    req = flow.request
    accept = req.headers.get("accept", "").lower()
    if "text/html" in accept:
        return False
    return (req.path.split("?", 1)[0].startswith("/api/") or "json" in accept
            or "json" in req.headers.get("content-type", "").lower())


def answer(flow: http.HTTPFlow, status: int, body: bytes | str = b"",
           headers: dict[str, str] | None = None) -> None:
    """Answer the flow locally (never forwarded, or the upstream's answer replaced wholesale)."""
    flow.response = http.Response.make(status, body, {"cache-control": "no-store", **(headers or {})})
    marks(flow)["local"] = True


def answer_json(flow: http.HTTPFlow, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
    answer(flow, status, json.dumps(payload, separators=(",", ":")),
           {"content-type": "application/json", **(headers or {})})


@dataclass
class FaultContext:
    """What a firing may need besides the flow: its episode, the time and its drawn detail.

    `received`: the event loop's clock when the proxy had the whole message the hook is about. A delay
    counts from there, so the proxy's own queueing before the hook (other flows' work on the same loop,
    the other addons, the matching, the ledger line) is part of the delay instead of added to it."""

    episode: ProxyEpisode
    detail: dict[str, Any] = field(default_factory=dict)
    now_ms: float = 0.0
    received: float | None = None
    hook: HookPoint = "request"
    last: bool = True  # no later fault of the episode matches this flow at this hook


def received_at(flow: http.HTTPFlow, hook: HookPoint) -> float:
    """The event loop's clock when the proxy had received the whole request (or response) of `hook`.

    A message without a body was whole when its head was read (`timestamp_start`); one with a body when
    mitmproxy saw its end (`timestamp_end`, stamped when the HTTP layer gets to it, which is later than
    the bytes arriving when the loop is busy). mitmproxy stamps with the wall clock; the loop's clock is
    monotonic, so the stamp's age is carried over. A missing or future stamp (a flow built in a test)
    counts as now."""
    now = asyncio.get_running_loop().time()
    message = flow.request if hook == "request" else flow.response
    if message is None:
        return now
    stamp = message.timestamp_end if message.raw_content else message.timestamp_start
    if stamp is None:
        return now
    return now - max(0.0, time.time() - stamp)


def exchanged_type(flow: http.HTTPFlow, hook: HookPoint) -> str:
    """The content type a `match.content_type` is read against: the response's, once there is one; before it,
    the request's own, or for a request without a body the first type its Accept header asks for (a
    browser's page load asks for text/html, a script's fetch for JSON or anything)."""
    if hook == "response" and flow.response is not None:
        return flow.response.headers.get("content-type", "")
    own = flow.request.headers.get("content-type", "")
    if own or flow.request.raw_content:
        return own
    return flow.request.headers.get("accept", "").split(",", 1)[0].split(";", 1)[0].strip()


class NetworkFault(FaultType):
    """Base of network fault types: declare parameters as fields, implement `apply`."""

    layer: ClassVar[Layer] = Layer.network
    hook: ClassVar[HookPoint] = "request"
    writes_only: ClassVar[bool] = False
    default_schedule: ClassVar[dict[str, Any] | None] = None

    def hook_point(self) -> HookPoint:
        return self.hook

    def observe(self, flow: http.HTTPFlow, armed: ArmedFault, hook: HookPoint, now_ms: float) -> None:
        return None

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        return True

    def in_effect(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        return False

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        raise NotImplementedError


class DelayFault(NetworkFault):
    """Base of the faults that only hold the flow: `draw` returns `delay_ms`, the engine's hook waits it out.

    A request on its way to a site, held long enough and with no later fault to apply, goes through the
    gate instead (network/gate.py): let go at once, it waits there with only its write left to do at the
    deadline."""

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        now = asyncio.get_running_loop().time()
        deadline = (ctx.received if ctx.received is not None else now) + ctx.detail["delay_ms"] / 1000
        if ctx.hook == "request" and ctx.last and gateable(flow) and deadline - now > MIN_GATED_S:
            await GATE.route(flow, deadline)
            return
        await hold_until(deadline)


def error_response(flow: http.HTTPFlow, message: str) -> None:
    flow.response = http.Response.make(
        500, f"webchaos: {message}\n", {"content-type": "text/plain; charset=utf-8"}
    )
    marks(flow)["local"] = True


def delays(episode: ProxyEpisode) -> bool:
    """Whether the episode has a fault that may hold requests at the gate (dormant or spent ones count)."""
    return any(isinstance(armed.params, DelayFault) and armed.params.hook_point() == "request"
               for armed in episode.faults_of(Layer.network))


class NetworkFaults:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes

    async def request(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        await self._run(flow, "request")

    def responseheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response is not None and marks(flow).get("stream"):
            flow.response.stream = True  # a relayed body (bandwidth, truncate close) goes out as it arrives

    async def response(self, flow: http.HTTPFlow) -> None:
        # a held request due in a moment goes before this response's work (and the addons after this one)
        await release_clock().yield_to_releases()
        if marks(flow).get("local"):
            return
        await self._run(flow, "response")

    async def done(self) -> None:
        await shutdown()
        await GATE.stop()

    def _candidates(self, episode: ProxyEpisode, flow: http.HTTPFlow, hook: HookPoint) -> list[ArmedFault]:
        req = request_summary(flow)
        content_type = exchanged_type(flow, hook)
        body = flow.request.raw_content or b""
        out = []
        for armed in episode.faults_of(Layer.network):
            kind = armed.params
            if not armed.active:  # dormant until its trigger, or spent: not even `in_effect`
                continue
            if not isinstance(kind, NetworkFault) or kind.hook_point() != hook:
                continue
            if kind.writes_only and not is_write(flow):
                continue
            if armed.spec.match.matches_request(req["host"], req["path"], req["method"], body, content_type):
                out.append(armed)
        return out

    def _fail(self, episode: ProxyEpisode, flow: http.HTTPFlow, armed: ArmedFault, hook: HookPoint,
              exc: Exception) -> None:
        logger.exception(f"webchaos: network fault {armed.id} raised")
        error = f"{type(exc).__name__}: {exc}"
        episode.ledger.write("network", "hook_error", flow=flow, fault_id=armed.id,
                             detail={"hook": hook, "error": error})
        error_response(flow, f"fault {armed.id} failed ({error})")

    async def _run(self, flow: http.HTTPFlow, hook: HookPoint) -> None:
        m = marks(flow)
        if "site" not in m:
            return
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None:
            return
        received = received_at(flow, hook)
        now = episode.elapsed_ms()
        for armed in episode.faults_of(Layer.network):
            if isinstance(armed.params, NetworkFault):
                try:
                    armed.params.observe(flow, armed, hook, now)
                except Exception as exc:
                    self._fail(episode, flow, armed, hook, exc)
                    return
        candidates = self._candidates(episode, flow, hook)
        for index, armed in enumerate(candidates):
            fault = armed.params
            assert isinstance(fault, NetworkFault)
            try:
                if fault.in_effect(flow, armed, now):
                    pass  # already in force: fires without a new schedule draw
                elif not fault.eligible(flow, armed, now) or not armed.decide(now):
                    continue
                ctx = FaultContext(episode, fault.draw(flow, armed), now, received, hook,
                                   last=index == len(candidates) - 1)
                episode.ledger.write("network", fault.name, flow=flow, fault_id=armed.id, detail=ctx.detail)
                await fault.apply(flow, armed, ctx)
                received = asyncio.get_running_loop().time()  # a later delay adds to this one
            except Exception as exc:
                self._fail(episode, flow, armed, hook, exc)
                return
            if marks(flow).get("local") or flow.error is not None:
                return  # the fault answered (or killed) the flow itself
        if hook == "request" and GATE_HEADER not in flow.request.headers and gateable(flow) and delays(episode):
            # Not held: through the gate all the same, at once. mitmproxy keeps a server connection per
            # client connection and address; if only held requests went to the gate, a client connection's
            # first one would wait for a new connection to it, which in a burst took 20-60 ms of a 50 ms delay.
            await GATE.route(flow, asyncio.get_running_loop().time())
            marks(flow)["forwarded"] = True  # let go now, as router.ClientView marks one sent straight to the site

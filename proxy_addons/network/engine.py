"""The addon that applies network-layer faults to an episode's flows.

The engine owns everything generic: which faults of the flow's episode match
(`spec.match.matches_request`), the schedule and toxicity draw
(`ArmedFault.decide`), the ledger line, the flow mark and error handling. A fault
type only says what a firing does, by subclassing `NetworkFault`:

- `hook`: `"request"` (after the request body is read, before the upstream is
  contacted) or `"response"` (after the upstream answered);
- `draw(flow, armed)`: the concrete values of this firing (e.g. the jittered
  delay), drawn from `armed.rng`; they become the ledger line's `detail`;
- `async apply(flow, armed, ctx)`: do it (`ctx.detail` holds what `draw` returned).

Faults fire in envelope order. A fault whose code raises does not fail open: the
flow is answered with an explicit 500 and a `hook_error` ledger line.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from mitmproxy import http

from proxy_addons.episodes import Episode, Episodes
from proxy_addons.ledger import marks, request_summary
from scenarios.faults import ArmedFault, FaultType, Layer

logger = logging.getLogger(__name__)

HookPoint = Literal["request", "response"]


@dataclass
class FaultContext:
    """What a firing may need besides the flow: its episode and its drawn detail."""

    episode: Episode
    detail: dict[str, Any] = field(default_factory=dict)


class NetworkFault(FaultType):
    """Base of network fault types: declare parameters as fields, implement `apply`."""

    layer: ClassVar[Layer] = Layer.network
    hook: ClassVar[HookPoint] = "request"

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        raise NotImplementedError


def error_response(flow: http.HTTPFlow, message: str) -> None:
    flow.response = http.Response.make(
        500, f"webchaos: {message}\n", {"content-type": "text/plain; charset=utf-8"}
    )
    marks(flow)["local"] = True


class NetworkFaults:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes

    async def request(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        await self._run(flow, "request")

    async def response(self, flow: http.HTTPFlow) -> None:
        if marks(flow).get("local"):
            return
        await self._run(flow, "response")

    def _candidates(self, episode: Episode, flow: http.HTTPFlow, hook: HookPoint) -> list[ArmedFault]:
        req = request_summary(flow)
        if hook == "response" and flow.response is not None:
            content_type = flow.response.headers.get("content-type", "")
        else:
            content_type = flow.request.headers.get("content-type", "")
        body = flow.request.raw_content or b""
        out = []
        for armed in episode.faults_of(Layer.network):
            kind = armed.params
            if not isinstance(kind, NetworkFault) or kind.hook != hook:
                continue
            if armed.spec.match.matches_request(req["host"], req["path"], req["method"], body, content_type):
                out.append(armed)
        return out

    async def _run(self, flow: http.HTTPFlow, hook: HookPoint) -> None:
        m = marks(flow)
        if "site" not in m:
            return
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None:
            return
        for armed in self._candidates(episode, flow, hook):
            if not armed.decide(episode.elapsed_ms()):
                continue
            fault = armed.params
            assert isinstance(fault, NetworkFault)
            try:
                ctx = FaultContext(episode, fault.draw(flow, armed))
                episode.ledger.write("network", fault.name, flow=flow, fault_id=armed.id, detail=ctx.detail)
                episode.firings += 1
                await fault.apply(flow, armed, ctx)
            except Exception as exc:
                logger.exception(f"webchaos: network fault {armed.id} raised")
                error = f"{type(exc).__name__}: {exc}"
                episode.ledger.write("network", "hook_error", flow=flow, fault_id=armed.id,
                                     detail={"hook": hook, "error": error})
                error_response(flow, f"fault {armed.id} failed ({error})")
                return
            if hook == "request" and flow.response:
                return  # the fault answered the request itself

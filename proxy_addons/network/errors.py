"""Error faults: the request fails, now or for a while, in the ways servers and networks fail.

They stress **patience** when waiting and retrying is the cure (`error_then_success`,
`intermittent_error`, `rate_limit`, `reset`, `offline_window`) and **verification**
when the agent must notice the failure and not report success (`error`, `truncate`).
"""

from __future__ import annotations

import html
import math
from http import HTTPStatus
from typing import Any, ClassVar, Literal

from mitmproxy import http
from pydantic import Field

from proxy_addons.network.engine import (
    FaultContext,
    HookPoint,
    NetworkFault,
    answer,
    answer_json,
    state_of,
    wants_json,
)
from proxy_addons.network.relay import RELAY
from scenarios.faults import ArmedFault, Primitive, register


def reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def fail(flow: http.HTTPFlow, status: int, body: str | None = None, headers: dict[str, str] | None = None,
         message: str | None = None) -> None:
    """Answer an error the way a real server would: JSON for API calls, a small HTML page otherwise."""
    if body is not None:
        kind = "application/json" if body.lstrip().startswith(("{", "[")) else "text/plain; charset=utf-8"
        answer(flow, status, body, {"content-type": kind, **(headers or {})})
        return
    text = message or reason(status)
    if wants_json(flow):
        answer_json(flow, status, {"detail": text}, headers)
    else:
        page = (f"<!doctype html><html><head><title>{status} {html.escape(reason(status))}</title></head>"
                f"<body><h1>{html.escape(reason(status))}</h1><p>{html.escape(text)}</p></body></html>\n")
        answer(flow, status, page, {"content-type": "text/html; charset=utf-8", **(headers or {})})


def _status() -> Any:
    return Field(default=503, ge=400, le=599, description="HTTP status answered")


def _body() -> Any:
    return Field(default=None, description="response body; default: {\"detail\": reason} for API calls, "
                 "a small HTML page otherwise")


@register
class Error(NetworkFault):
    name: ClassVar[str] = "error"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = "Answer an HTTP error (e.g. 500/502/503/504) instead of forwarding the request."

    status: int = _status()
    body: str | None = _body()
    headers: dict[str, str] = Field(default_factory=dict, description="extra response headers")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"status": self.status}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        fail(flow, self.status, self.body, self.headers)


@register
class ErrorThenSuccess(NetworkFault):
    name: ClassVar[str] = "error_then_success"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Fail the first n matching requests (schedule first_n; default n=1) with status, then let them "
        "through: a retry succeeds."
    )
    default_schedule: ClassVar[dict[str, Any] | None] = {"mode": "first_n", "n": 1}

    status: int = _status()
    retry_after_s: int | None = Field(default=None, ge=0, description="Retry-After header, if any")
    body: str | None = _body()

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"status": self.status, "failure": armed.fired}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        headers = {"retry-after": str(self.retry_after_s)} if self.retry_after_s is not None else {}
        fail(flow, self.status, self.body, headers)


@register
class IntermittentError(NetworkFault):
    name: ClassVar[str] = "intermittent_error"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Fail matching requests at random with status (schedule intermittent, seeded; default "
        "probability 0.3): flaky, but a retry usually works."
    )
    default_schedule: ClassVar[dict[str, Any] | None] = {"mode": "intermittent", "probability": 0.3}

    status: int = _status()
    body: str | None = _body()

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"status": self.status}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        fail(flow, self.status, self.body)


@register
class RateLimit(NetworkFault):
    name: ClassVar[str] = "rate_limit"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Let burst requests through per window_ms, then answer 429 with Retry-After until cooldown_ms "
        "has passed; then a new window starts."
    )

    burst: int = Field(default=5, ge=0, description="requests allowed per window")
    window_ms: int = Field(default=10000, gt=0, description="length of a counting window")
    cooldown_ms: int = Field(default=3000, ge=0, description="how long requests are refused once over the limit")
    status: int = Field(default=429, ge=400, le=599, description="HTTP status of a refusal")

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        s = state_of(armed)
        blocked_until = s.get("blocked_until")
        if blocked_until is not None:
            if now_ms < blocked_until:
                s["retry_after_ms"] = blocked_until - now_ms
                return True
            s.pop("blocked_until")
            s["window_start"], s["count"] = now_ms, 0
        if "window_start" not in s or now_ms - s["window_start"] >= self.window_ms:
            s["window_start"], s["count"] = now_ms, 0
        s["count"] += 1
        if s["count"] <= self.burst:
            return False
        s["blocked_until"] = now_ms + self.cooldown_ms
        s["retry_after_ms"] = float(self.cooldown_ms)
        return True

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"status": self.status, "retry_after_s": math.ceil(state_of(armed)["retry_after_ms"] / 1000)}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        fail(flow, self.status, None, {"retry-after": str(ctx.detail["retry_after_s"])},
             message="Too many requests; slow down and retry later.")


@register
class Reset(NetworkFault):
    name: ClassVar[str] = "reset"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Drop the connection with no answer. phase=before_upstream: the site never saw the request; "
        "after_upstream: it did (a write may have happened although the client saw an error)."
    )

    phase: Literal["before_upstream", "after_upstream"] = Field(
        default="before_upstream", description="kill before the site sees the request, or after it answered")

    def hook_point(self) -> HookPoint:
        return "request" if self.phase == "before_upstream" else "response"

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"phase": self.phase}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        flow.kill()


@register
class Truncate(NetworkFault):
    name: ClassVar[str] = "truncate"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Cut the response body at keep_bytes. short_body: a complete but shorter answer (Content-Length "
        "fixed; broken JSON or half a page); close: the full length is announced and the connection dropped."
    )

    keep_bytes: int = Field(ge=0, description="bytes of the (decoded) body the client receives")
    mode: Literal["short_body", "close"] = Field(default="short_body", description="how the body ends")

    def hook_point(self) -> HookPoint:
        return "response" if self.mode == "short_body" else "request"

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        if self.mode == "close":
            return True
        assert flow.response is not None
        return len(flow.response.content or b"") > self.keep_bytes

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        detail: dict[str, Any] = {"keep_bytes": self.keep_bytes, "mode": self.mode}
        if flow.response is not None:
            detail["original_bytes"] = len(flow.response.content or b"")
        return detail

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        if self.mode == "close":
            await RELAY.reroute(flow, cut_after_bytes=self.keep_bytes)
            return
        assert flow.response is not None
        flow.response.content = (flow.response.content or b"")[: self.keep_bytes]


@register
class OfflineWindow(NetworkFault):
    name: ClassVar[str] = "offline_window"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Every matching request fails during the schedule's window (default: the first 5 s of the "
        "episode): the connection drops, or 503 with how=error. The agent should wait and try again."
    )
    default_schedule: ClassVar[dict[str, Any] | None] = {"mode": "window", "start_ms": 0, "duration_ms": 5000}

    how: Literal["reset", "error"] = Field(default="reset", description="a dropped connection or a 503 answer")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"how": self.how}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        if self.how == "reset":
            flow.kill()
        else:
            fail(flow, 503, None, {"retry-after": "1"}, message="The service is offline; try again shortly.")

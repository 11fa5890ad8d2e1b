"""Timing faults: the answer comes, but late, slowly, or not at all.

All of them stress **patience**: an agent must wait long enough, not give up or act
twice because a page or an API call is slow. (`latency` itself lives in latency.py.)
"""

from __future__ import annotations

import asyncio
import math
from typing import Any, ClassVar, Literal

from mitmproxy import http
from pydantic import Field, model_validator

from proxy_addons.network.engine import DelayFault, FaultContext, HookPoint, NetworkFault
from proxy_addons.network.errors import fail
from proxy_addons.network.relay import RELAY
from scenarios.faults import ArmedFault, Primitive, register

# Standard normal quantiles of p95 and p99.
_Z95, _Z99 = 1.6448536269514722, 2.3263478740408408


def _jittered(armed: ArmedFault, delay_ms: int, jitter_ms: int) -> int:
    jitter = armed.rng.randint(-jitter_ms, jitter_ms) if jitter_ms else 0
    return max(0, delay_ms + jitter)


@register
class LatencyDistribution(DelayFault):
    name: ClassVar[str] = "latency_distribution"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Delay matching requests by a seeded draw from a log-normal fitted to p50/p95/p99 targets "
        "(a realistic tail: most requests are quick, a few are very slow)."
    )

    p50_ms: float = Field(gt=0, description="median delay")
    p95_ms: float = Field(gt=0, description="95th percentile delay")
    p99_ms: float = Field(gt=0, description="99th percentile delay")
    max_ms: int = Field(default=30000, ge=0, description="cap on any single delay")

    @model_validator(mode="after")
    def _ordered(self) -> LatencyDistribution:
        if not self.p50_ms <= self.p95_ms <= self.p99_ms:
            raise ValueError("p50_ms <= p95_ms <= p99_ms must hold")
        return self

    def fitted(self) -> tuple[float, float]:
        """(mu, sigma) of ln(delay): mu from p50, sigma by least squares through the two tail quantiles."""
        mu = math.log(self.p50_ms)
        a, b = math.log(self.p95_ms) - mu, math.log(self.p99_ms) - mu
        sigma = (a * _Z95 + b * _Z99) / (_Z95**2 + _Z99**2)
        return mu, max(sigma, 0.0)

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        mu, sigma = self.fitted()
        value = math.exp(mu + sigma * armed.rng.gauss(0.0, 1.0))
        return {"delay_ms": min(self.max_ms, round(value))}


@register
class ProgressiveLatency(DelayFault):
    name: ClassVar[str] = "progressive_latency"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Each firing is slower than the last: start_ms, then + step_ms per firing, up to max_ms "
        "(a server degrading under the agent's own load)."
    )

    start_ms: int = Field(default=0, ge=0, description="delay of the first firing")
    step_ms: int = Field(ge=0, description="added per firing")
    max_ms: int = Field(default=10000, ge=0, description="the delay never grows past this")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        k = max(0, armed.fired - 1)  # decide() already counted this firing
        return {"delay_ms": min(self.max_ms, self.start_ms + k * self.step_ms), "firing": k + 1}


@register
class WriteOnlySlow(DelayFault):
    name: ClassVar[str] = "write_only_slow"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Only writes (POST/PUT/PATCH/DELETE) are slow; reads stay fast. With phase=after_upstream the "
        "site has already committed when the delay starts, so acting again duplicates the write."
    )
    writes_only: ClassVar[bool] = True

    delay_ms: int = Field(ge=0, description="added delay on each write")
    jitter_ms: int = Field(default=0, ge=0, description="uniform jitter in [-jitter_ms, +jitter_ms], floor 0")
    phase: Literal["before_upstream", "after_upstream"] = Field(
        default="after_upstream", description="hold the write before the site sees it, or its answer after")

    def hook_point(self) -> HookPoint:
        return "request" if self.phase == "before_upstream" else "response"

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"delay_ms": _jittered(armed, self.delay_ms, self.jitter_ms), "phase": self.phase}


@register
class SlowFirstByte(DelayFault):
    name: ClassVar[str] = "slow_first_byte"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "The site answers at once but the client gets its first byte only after delay_ms (time to first "
        "byte); unlike latency, the site has already acted when the wait starts."
    )
    hook: ClassVar[HookPoint] = "response"

    delay_ms: int = Field(ge=0, description="time to first byte added after the site answered")
    jitter_ms: int = Field(default=0, ge=0, description="uniform jitter in [-jitter_ms, +jitter_ms], floor 0")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"delay_ms": _jittered(armed, self.delay_ms, self.jitter_ms)}


@register
class Bandwidth(NetworkFault):
    name: ClassVar[str] = "bandwidth"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Throttle the response body to rate_bps: headers come at once, the body trickles in chunks "
        "(a page that renders piece by piece)."
    )

    rate_bps: int = Field(gt=0, description="response body bytes per second")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"rate_bps": self.rate_bps}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        await RELAY.reroute(flow, shape_rate_bps=self.rate_bps)


@register
class Hang(NetworkFault):
    name: ClassVar[str] = "hang"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Never forward the request; after timeout_ms answer 504 Gateway Timeout or reset the connection "
        "(a request that goes nowhere)."
    )

    timeout_ms: int = Field(ge=0, description="how long the request hangs")
    then: Literal["gateway_timeout", "reset"] = Field(
        default="gateway_timeout", description="what ends the hang: a 504 answer or a dropped connection")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"timeout_ms": self.timeout_ms, "then": self.then}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        await asyncio.sleep(self.timeout_ms / 1000)
        if self.then == "reset":
            flow.kill()
        else:
            fail(flow, 504, message="The upstream server did not answer in time.")

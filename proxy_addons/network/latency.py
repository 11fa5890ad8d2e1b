"""`latency`: hold a matching request for a while before it goes upstream."""

from __future__ import annotations

from typing import Any, ClassVar

from mitmproxy import http
from pydantic import Field

from proxy_addons.network.engine import DelayFault
from scenarios.faults import ArmedFault, Primitive, register


@register
class Latency(DelayFault):
    name: ClassVar[str] = "latency"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Delay matching requests: each reaches the site delay_ms (plus or minus a seeded jitter_ms) after "
        "the proxy received it; the proxy's own queueing counts inside the delay."
    )

    delay_ms: int = Field(ge=0, description="time from the proxy receiving the request to it leaving for the site")
    jitter_ms: int = Field(default=0, ge=0, description="uniform jitter in [-jitter_ms, +jitter_ms], floor 0")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        jitter = armed.rng.randint(-self.jitter_ms, self.jitter_ms) if self.jitter_ms else 0
        return {"delay_ms": max(0, self.delay_ms + jitter)}

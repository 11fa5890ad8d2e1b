"""`overlay`: a modal (cookie banner, newsletter, chat) that covers the page until dismissed.

The proxy only decides and injects; `webchaos.js` draws the modal in the browser:
it waits for the target (`match.selector`, or `match.role` + `match.name`), then
`delay_ms`, then covers the viewport with a backdrop that intercepts pointer
events and a `role="dialog"` with a `dismiss_label` button and a "Close" button.
With `returns_once` the modal comes back one more time after the first dismissal.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register

DEFAULT_TITLES = {
    "cookie": "We value your privacy",
    "newsletter": "Subscribe to our newsletter",
    "chat": "Chat with us",
}


@register
class Overlay(ClientFault):
    name: ClassVar[str] = "overlay"
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = "Cover the page with a modal (cookie, newsletter, chat) until it is dismissed."

    kind: Literal["cookie", "newsletter", "chat"] = "cookie"
    delay_ms: int = Field(default=0, ge=0, le=60_000, description="wait after the target appears")
    dismiss_label: str = Field(default="Accept all", min_length=1, max_length=80,
                               description="accessible name of the dismiss button")
    title: str = Field(default="", max_length=120, description="dialog title; default depends on kind")
    returns_once: bool = Field(default=False, description="reappear once after the first dismissal")

    @model_validator(mode="before")
    @classmethod
    def _default_title(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("title"):
            kind = data.get("kind", "cookie")
            data = {**data, "title": DEFAULT_TITLES.get(kind, DEFAULT_TITLES["cookie"])}
        return data

"""Modals: `overlay` (cookie banner, newsletter, chat) and `distractor_modal` (a tempting call to action).

The proxy only decides and injects; `modals.js` draws them in the browser. Both are
a `role="dialog"` (`aria-modal`) in a shadow root over a backdrop that takes every
pointer event until the dialog is closed.

- `overlay` waits for the target, then covers the viewport; a `dismiss_label` button
  and a "Close" button remove it. With `returns_once` it comes back one more time,
  `max(delay_ms, 1000)` ms after the first dismissal. Fair: dismissing it is enough.
- `distractor_modal` offers a prominent `cta_label` button that takes the agent off
  its task (to `cta_path` on the same site: the page's progress is lost) next to a
  plain `dismiss_label` button. Fair: "No thanks" keeps the agent on its page.
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
    description: ClassVar[str] = (
        "Cover the page with a modal (cookie, newsletter, chat) once the target is there, until it is dismissed; "
        "target: optional, the element it hides (it waits for it)."
    )
    script: ClassVar[str] = "modals.js"
    needs_target: ClassVar[bool] = False

    kind: Literal["cookie", "newsletter", "chat"] = "cookie"
    dismiss_label: str = Field(default="Accept all", min_length=1, max_length=80,
                               description="accessible name of the dismiss button")
    title: str = Field(default="", max_length=120, description="dialog title; default depends on kind")
    returns_once: bool = Field(default=False, description="reappear once after the first dismissal")

    @model_validator(mode="before")
    @classmethod
    def _default_title(cls, data: Any) -> Any:
        if isinstance(data, dict) and not data.get("title"):
            kind = data.get("kind", "cookie")  # any value: the field's own validation judges it
            data = {**data, "title": DEFAULT_TITLES.get(kind if isinstance(kind, str) else "cookie",
                                                        DEFAULT_TITLES["cookie"])}
        return data


@register
class DistractorModal(ClientFault):
    name: ClassVar[str] = "distractor_modal"
    primitive: ClassVar[Primitive] = Primitive.planning
    description: ClassVar[str] = (
        "A modal with a tempting call to action that leads off the task (e.g. a survey) next to a plain "
        "'No thanks'; target: optional (page-level), the modal waits for it."
    )
    script: ClassVar[str] = "modals.js"
    needs_target: ClassVar[bool] = False

    title: str = Field(default="Quick question!", min_length=1, max_length=120)
    text: str = Field(default="Tell us about your visit today. It takes one minute and helps us improve.",
                      min_length=1, max_length=400)
    cta_label: str = Field(default="Take the survey", min_length=1, max_length=80,
                           description="the prominent button: it leaves the page")
    cta_path: str = Field(default="/?survey=1", pattern=r"^/", max_length=200,
                          description="same-site path the call to action opens")
    dismiss_label: str = Field(default="No thanks", min_length=1, max_length=80,
                               description="the plain button that only closes the modal")

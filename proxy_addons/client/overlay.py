"""Modals: `overlay` (cookie banner, newsletter, chat), `distractor_modal` (a tempting call to action) and
`required_step` (a step the plan does not have).

The proxy only decides and injects; `modals.js` draws them in the browser. Both are
a `role="dialog"` (`aria-modal`) in a shadow root over a backdrop that takes every
pointer event until the dialog is closed.

- `overlay` waits for the target, then covers the viewport; a `dismiss_label` button
  and a "Close" button remove it. With `returns_once` it comes back one more time,
  `max(delay_ms, 1000)` ms after the first dismissal. Fair: dismissing it is enough.
- `distractor_modal` offers a prominent `cta_label` button that takes the agent off
  its task (to `cta_path` on the same site: the page's progress is lost) next to a
  plain `dismiss_label` button. Fair: "No thanks" keeps the agent on its page.
- `required_step` catches the agent's click on the target (the step that commits)
  and asks for one more step first: a dialog with a checkbox that must be ticked
  and a `continue_label` button (disabled until then), next to "Cancel". Only
  Continue lets the original action go through; Cancel, or a click on the target
  again, leaves it undone and asks again. Fair: tick the box, press Continue.
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


@register
class RequiredStep(ClientFault):
    name: ClassVar[str] = "required_step"
    primitive: ClassVar[Primitive] = Primitive.planning
    description: ClassVar[str] = (
        "Clicking the target first asks for a step the plan does not have: a dialog with a checkbox to tick "
        "and a Continue button; only then does the click go through (Cancel leaves it undone); "
        "target: the control that commits."
    )
    script: ClassVar[str] = "modals.js"
    target_hint: ClassVar[str] = "the control that commits"

    title: str = Field(default="One more step", min_length=1, max_length=120)
    text: str = Field(default="Before we go ahead, please confirm you have reviewed the details above.",
                      min_length=1, max_length=400)
    checkbox_label: str = Field(default="I have reviewed the details", min_length=1, max_length=120,
                                description="accessible name of the checkbox that must be ticked")
    continue_label: str = Field(default="Continue", min_length=1, max_length=80,
                                description="the button, enabled once the box is ticked, that lets the click through")
    times: int = Field(default=1, ge=1, le=10, description="how many completed steps it asks for (once each)")

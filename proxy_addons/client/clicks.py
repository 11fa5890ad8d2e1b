"""Clicks that do not do what they seem: `click_swallow`, `same_label_decoy`, `false_toast` (`clicks.js`).

- `click_swallow`: the first `swallow_clicks` clicks on the target are cancelled
  (no default action, no page handler). Fair: clicking again works.
- `same_label_decoy`: a copy of the target with the same role and name is put right
  before (or after) it; the copy does nothing. Fair: the next candidate works.
- `false_toast`: the first `fake_clicks` clicks on the target are cancelled and a
  forged success message (`text`, e.g. "Saved") is shown instead. Only an agent
  that checks an independent signal notices; the grader reads the server state.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class ClickSwallow(ClientFault):
    name: ClassVar[str] = "click_swallow"
    primitive: ClassVar[Primitive] = Primitive.patience  # clicking again is the move, not a check
    description: ClassVar[str] = (
        "The first n clicks on the target do nothing; target: a button or link."
    )
    script: ClassVar[str] = "clicks.js"
    target_hint: ClassVar[str] = "a button or link"

    swallow_clicks: int = Field(default=1, ge=1, le=100, description="clicks cancelled before one goes through")


@register
class SameLabelDecoy(ClientFault):
    name: ClassVar[str] = "same_label_decoy"
    primitive: ClassVar[Primitive] = Primitive.backtracking
    description: ClassVar[str] = (
        "Put a look-alike control with the same role and name next to the target; clicking it does nothing; "
        "target: a button or link."
    )
    script: ClassVar[str] = "clicks.js"
    target_hint: ClassVar[str] = "a button or link"

    position: Literal["before", "after"] = Field(default="before", description="the decoy's place in the DOM")


@register
class FalseToast(ClientFault):
    name: ClassVar[str] = "false_toast"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Cancel the first n clicks on the target and show a forged success message instead (nothing is saved); "
        "target: the button that saves."
    )
    script: ClassVar[str] = "clicks.js"
    target_hint: ClassVar[str] = "a button"

    text: str = Field(default="Saved", min_length=1, max_length=120, description="the forged message")
    fake_clicks: int = Field(default=1, ge=1, le=100, description="clicks answered by the forged message")
    toast_ms: int = Field(default=5000, ge=0, le=600_000, description="how long it shows (0: until reload)")

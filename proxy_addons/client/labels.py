"""Names that change or lie: `rename_after_input`, `swap_labels`, `scramble_aria` (`labels.js`).

- `rename_after_input`: once the agent types into `after_input_in`, the target's
  label becomes `new_label` (visible text and accessible name).
- `swap_labels`: the target and another control (`other_selector`, or `other_role` +
  `other_name`) exchange their visible labels and accessible names.
- `scramble_aria`: the accessible name is replaced (`opaque`: a meaningless token;
  `mislead`: `label`) or the element is hidden from the accessibility tree
  (`hidden`); what is drawn on screen does not change.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field, model_validator

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class RenameAfterInput(ClientFault):
    name: ClassVar[str] = "rename_after_input"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Change the target's label once the agent has typed into a field (needs after_input_in); "
        "target: a button or link."
    )
    script: ClassVar[str] = "labels.js"
    target_hint: ClassVar[str] = "a button or link"

    new_label: str = Field(min_length=1, max_length=80, description="the label after the change")

    @model_validator(mode="after")
    def _needs_field(self) -> RenameAfterInput:
        if self.after_input_in is None:
            raise ValueError("rename_after_input needs after_input_in (the field whose input renames the target)")
        return self


@register
class SwapLabels(ClientFault):
    name: ClassVar[str] = "swap_labels"
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = (
        "Swap the visible labels and accessible names of the target and another control; "
        "target: a button or link (the other one in params)."
    )
    script: ClassVar[str] = "labels.js"
    target_hint: ClassVar[str] = "a button or link"

    other_selector: str | None = Field(default=None, min_length=1, max_length=200,
                                       description="CSS selector of the other control")
    other_role: str | None = Field(default=None, min_length=1, max_length=40, description="role of the other control")
    other_name: str | None = Field(default=None, min_length=1, max_length=120,
                                   description="accessible name of the other control")

    @model_validator(mode="after")
    def _other(self) -> SwapLabels:
        if (self.other_selector is None) == (self.other_role is None):
            raise ValueError("set other_selector, or other_role (and other_name)")
        return self


@register
class ScrambleAria(ClientFault):
    name: ClassVar[str] = "scramble_aria"
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = (
        "Change the target's accessible name (or hide it from the accessibility tree) while it looks the same; "
        "target: any element."
    )
    script: ClassVar[str] = "labels.js"

    mode: Literal["opaque", "mislead", "hidden"] = Field(
        default="opaque", description="opaque: a meaningless token; mislead: `label`; hidden: aria-hidden")
    label: str = Field(default="Remove", min_length=1, max_length=120, description="mislead: the false name")

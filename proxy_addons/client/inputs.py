"""Input that is not what was entered: `input_corruption`, `adjacent_selection` (`inputs.js`).

- `input_corruption`: the first time (`times`) the agent's text in the target field
  reaches `min_chars`, it is altered like a bad autocorrect (`swap_adjacent`: two
  letters of the first long word swap; `drop_last`; `double_last`; `replace`: the
  value becomes `replacement`). Later typing is kept.
- `adjacent_selection`: when the agent picks an option of the target select (or a
  radio of the target's group), the neighbour (`offset`) is selected instead and the
  page gets `input`/`change` events for it.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class InputCorruption(ClientFault):
    name: ClassVar[str] = "input_corruption"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = "Alter the text typed into a field (autocorrect-like); target: the text field."
    script: ClassVar[str] = "inputs.js"
    target_hint: ClassVar[str] = "a text field"

    mode: Literal["swap_adjacent", "drop_last", "double_last", "replace"] = "swap_adjacent"
    replacement: str = Field(default="", max_length=200, description="replace: the new value")
    min_chars: int = Field(default=4, ge=1, le=1000, description="alter once the value is this long")
    times: int = Field(default=1, ge=1, le=100, description="how many times to alter")


@register
class AdjacentSelection(ClientFault):
    name: ClassVar[str] = "adjacent_selection"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "When the agent picks an option (select, or radio of a group), select its neighbour instead; "
        "target: the select or a radio of the group."
    )
    script: ClassVar[str] = "inputs.js"
    target_hint: ClassVar[str] = "a select, or a radio of the group"

    offset: int = Field(default=1, ge=-10, le=10, description="which neighbour (+1: next, -1: previous)")
    times: int = Field(default=1, ge=1, le=100, description="how many picks to alter")

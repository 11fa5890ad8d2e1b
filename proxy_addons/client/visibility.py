"""When things can be seen and used: `hide_affordance`, `delayed_render`, `skeleton`,
`disabled_until`, `transient_flash` (`visibility.js`).

- `hide_affordance`: the target moves into an overflow menu behind a `menu_label`
  button ("More actions", `aria-haspopup="menu"`); it stays in its form. Fair: open
  the menu.
- `delayed_render`: the target is hidden (`visibility: hidden`) for `render_after_ms`,
  or until a reload (`never`). With `after_last_input`, each input event on a form field
  of the page (trusted or not; `change` is not counted) restarts `render_after_ms`, so
  the wait is counted from the agent's last input, however long filling the form took.
  Fair: wait, or reload.
- `skeleton`: the target's block is replaced by grey placeholder bars (`aria-busy`)
  for `render_after_ms`, or until a reload (`never`).
- `disabled_until`: the target is disabled for `disabled_ms`. Fair: wait.
- `transient_flash`: the target (or a message with `text` next to it) is shown only
  for `visible_ms` each time it changes, then hidden.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class HideAffordance(ClientFault):
    name: ClassVar[str] = "hide_affordance"
    primitive: ClassVar[Primitive] = Primitive.exploration
    description: ClassVar[str] = (
        "Move the target into an overflow menu opened by a 'More actions' button; target: a button or link."
    )
    script: ClassVar[str] = "visibility.js"
    target_hint: ClassVar[str] = "a button or link"

    menu_label: str = Field(default="More actions", min_length=1, max_length=80,
                            description="accessible name of the button that opens the menu")


@register
class DelayedRender(ClientFault):
    name: ClassVar[str] = "delayed_render"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Hide the target for n ms (or until a reload) after the page loads, or after the last input on a "
        "form field of the page (after_last_input); target: any element."
    )
    script: ClassVar[str] = "visibility.js"

    render_after_ms: int = Field(default=4000, ge=0, le=600_000, description="how long the target stays hidden")
    never: bool = Field(default=False, description="stay hidden until the page is reloaded")
    after_last_input: bool = Field(default=False, description="each input on a form field of the page (input, "
                                   "textarea, select) restarts render_after_ms")


@register
class Skeleton(ClientFault):
    name: ClassVar[str] = "skeleton"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Show grey loading placeholders instead of the target's block for n ms (or until a reload); "
        "target: an element in the block."
    )
    script: ClassVar[str] = "visibility.js"

    render_after_ms: int = Field(default=4000, ge=0, le=600_000, description="how long the placeholders stay")
    never: bool = Field(default=False, description="stay a skeleton until the page is reloaded")
    block_selector: str = Field(default="form, fieldset, table, section, article, li", min_length=1, max_length=200,
                                description="the target's closest ancestor matching this is replaced")


@register
class DisabledUntil(ClientFault):
    name: ClassVar[str] = "disabled_until"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = "Disable the target control for n ms; target: a button, link or field."
    script: ClassVar[str] = "visibility.js"
    target_hint: ClassVar[str] = "a button, link or field"

    disabled_ms: int = Field(default=4500, ge=1, le=600_000, description="how long the control stays disabled")


@register
class TransientFlash(ClientFault):
    name: ClassVar[str] = "transient_flash"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Show the target (e.g. a status message) only briefly each time it changes, or flash a message with "
        "`text` next to it; target: any element."
    )
    script: ClassVar[str] = "visibility.js"

    visible_ms: int = Field(default=700, ge=1, le=60_000, description="how long it stays visible")
    text: str | None = Field(default=None, min_length=1, max_length=300,
                             description="flash this message before the target instead of the target itself")

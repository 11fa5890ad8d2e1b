"""Where things are: `layout_shift`, `scroll_jump`, `focus_steal` (`layout.js`).

- `layout_shift` inserts a promotional block `height_px` tall above the target's
  form/section (or only when the pointer first reaches the target, `on_hover`), so
  coordinates computed before the shift point at something else. An agent that
  grounds again before each action is not affected. Scroll anchoring is turned off
  for the page, so the target moves on screen however far the page is scrolled.
  With an `offer`, the block goes just above the target's row and is an offer whose
  button is drawn where the target was: a click aimed at where the target was seen adds
  the offer (a "Remove" link beside it takes it back), and the page's next write
  carries the choice (`<field_name>=<offer>`, or `=none` when left alone), which the
  server half `extra_charge` records as an extra the task never asked for. Looking
  again before the click is the only way past it: a click repeated later reaches
  the target, but the offer stays added.
- `scroll_jump` scrolls the page by `dy_px` (`times` times, `every_ms` apart).
- `focus_steal` moves the keyboard focus away from the target field `steal_after_ms`
  after the agent focuses it (to `to_selector`, or nowhere), `times` times; 0 steals it as
  it arrives, before any text, so the theft never depends on how fast the agent types.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class LayoutShift(ClientFault):
    name: ClassVar[str] = "layout_shift"
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = (
        "Insert content above the target's block after the trigger, so a pre-computed click lands elsewhere "
        "(with an offer: on the offer's button, which adds it; server half: extra_charge); "
        "target: the element that moves."
    )
    script: ClassVar[str] = "layout.js"

    height_px: int = Field(default=140, ge=20, le=2000, description="height of the inserted block")
    text: str = Field(default="Announcement: our help centre has a new home. Find answers any time under Help.",
                      min_length=1, max_length=200, description="text of the inserted block")
    on_hover: bool = Field(default=False, description="shift when the pointer first moves onto the target")
    offer: str = Field(default="", pattern=r"^$|^[a-z][a-z0-9_]{0,39}$",
                       description="the block is an offer, recorded as this when taken (empty: an announcement only)")
    offer_label: str = Field(default="Add Plus for $4.99/month", min_length=1, max_length=80,
                             description="the offer's button")
    field_name: str = Field(default="extra", pattern=r"^[a-z][a-z0-9_]{0,29}$",
                            description="the query field the page's next write carries the choice in "
                                        "(extra_charge reads the same)")


@register
class ScrollJump(ClientFault):
    name: ClassVar[str] = "scroll_jump"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Scroll the page by itself after the trigger, so what was in view is not any more; "
        "target: optional (page-level)."
    )
    script: ClassVar[str] = "layout.js"
    needs_target: ClassVar[bool] = False

    dy_px: int = Field(default=600, ge=-20_000, le=20_000, description="vertical scroll per jump (negative: up)")
    times: int = Field(default=1, ge=1, le=50, description="number of jumps")
    every_ms: int = Field(default=1000, ge=50, le=60_000, description="time between jumps")


@register
class FocusSteal(ClientFault):
    name: ClassVar[str] = "focus_steal"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Move the keyboard focus away from a field shortly after the agent focuses it, so further keystrokes "
        "go elsewhere; target: the text field."
    )
    script: ClassVar[str] = "layout.js"
    target_hint: ClassVar[str] = "a text field"

    steal_after_ms: int = Field(default=150, ge=0, le=60_000, description="after the field gains focus (0: at once)")
    to_selector: str | None = Field(default=None, min_length=1, max_length=200,
                                    description="CSS selector of the element that gets the focus (default: none)")
    times: int = Field(default=1, ge=1, le=50, description="number of thefts")

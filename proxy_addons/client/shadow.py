"""`shadow_overlay`: a consent or newsletter overlay drawn inside a closed shadow root (`shadow.js`).

Sites (and consent platforms) draw their banners in a shadow root so the page's own styles cannot reach
them; with `mode: "closed"` nothing outside can reach in either: `document.querySelector`, Playwright's
`get_by_role` and any agent that reads the DOM see only an empty host element. The overlay still covers
the viewport and takes every pointer event until one of its buttons is pressed, so the agent's click on
the target lands on it. A person sees the dialog and presses its button; an agent finds it the same way,
by what is on screen or in the browser's accessibility tree (which is built from what is rendered, closed
roots included). `shadow: open` draws the same overlay in an open root (what `overlay` does).

Fair: dismissing it is enough, and its buttons are the usual ones ("Accept all" / "Reject all" for
cookies, "No thanks" for a newsletter). Until then it covers every page that shows the target; once
dismissed it is not shown again in the episode: the choice is remembered in the page's storage, as
consent platforms remember it (so the ledger's `fired` lines count the pages it covered). For the replay,
a copy of the dialog that is never rendered (light DOM children of the host, not slotted, hidden from
the accessibility tree) is what rrweb records: rrweb cannot see into a closed root, and its replayer,
which rebuilds the host without that root, draws the copy where the dialog was.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register

SHADOW_TITLES = {"cookie": "Your privacy choices", "newsletter": "Join our newsletter"}
SHADOW_DISMISS = {"cookie": "Accept all", "newsletter": "No thanks"}


@register
class ShadowOverlay(ClientFault):
    name: ClassVar[str] = "shadow_overlay"
    primitive: ClassVar[Primitive] = Primitive.grounding
    description: ClassVar[str] = (
        "Cover the page with a consent or newsletter dialog drawn inside a closed shadow root (open by param) "
        "once the target is there, until its button is pressed: agents that query the DOM cannot find it, "
        "yet it takes the clicks; target: optional, the element it covers (it waits for it)."
    )
    script: ClassVar[str] = "shadow.js"
    needs_target: ClassVar[bool] = False

    shadow: Literal["closed", "open"] = Field(default="closed", description="the shadow root's mode")
    kind: Literal["cookie", "newsletter"] = "cookie"
    dismiss_label: str = Field(default="", max_length=80,
                               description="the dismiss button's label; default depends on kind "
                                           "(a cookie banner also has 'Reject all')")
    title: str = Field(default="", max_length=120, description="dialog title; default depends on kind")

    @model_validator(mode="before")
    @classmethod
    def _defaults_of_kind(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        kind = data.get("kind", "cookie")
        kind = kind if isinstance(kind, str) and kind in SHADOW_TITLES else "cookie"  # a bad kind: its field says
        filled = dict(data)
        if not filled.get("title"):
            filled["title"] = SHADOW_TITLES[kind]
        if not filled.get("dismiss_label"):
            filled["dismiss_label"] = SHADOW_DISMISS[kind]
        return filled

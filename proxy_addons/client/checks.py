"""`human_check` before an action (`checks.js`): the click that commits first asks "Verify you are human".

The network `human_check` (proxy_addons/network/checks.py) stands before a page; this one stands before an
action, as sign-up and checkout forms put a challenge between the button and the write. The agent's click
on the target (the control that commits) is held, and a dialog asks for one of the network check's
challenges, by `mode`: `checkbox` (tick "I am not a robot", Continue enabled `wait_ms` later), `word` (type
the word the dialog shows; a wrong word gets the next word) or `slider` (slide to the end; the End key
works). Solved, the dialog closes and the held click goes through, so nothing typed on the page is lost;
the next click on the target asks again until `times` challenges are solved. There is no way round it: a
click on the target while the dialog is open, or a dismissal, leaves the action undone.

Primitive: planning, as for the network check: the challenge is steps the task's plan does not have.

Seeded: the word is drawn in the browser from a hash of the fault's id, the page as the episode's seed
generated it, the challenge and the try (as `popup_attack` draws, `popups.js`): same seed, same words; a wrong
word gets the next one along. The ledger's `fired` line says the word shown first.

The dialog's script is `checks.js`, its own file (not the modal family's): it looks like the page the network
check answers, and a change to it leaves the other modals' evidence current.
"""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class HumanCheckBeforeAction(ClientFault):
    name: ClassVar[str] = "human_check"
    primitive: ClassVar[Primitive] = Primitive.planning
    description: ClassVar[str] = (
        "Clicking the target first opens a 'Verify you are human' dialog: mode checkbox (tick 'I am not a "
        "robot', Continue enabled wait_ms later), word (type the word it shows; a wrong one gets the next) or "
        "slider (slide to the end); solved, the click goes through (planning: steps the plan does not have); "
        "target: the control that commits."
    )
    script: ClassVar[str] = "checks.js"
    target_hint: ClassVar[str] = "the control that commits"

    mode: Literal["checkbox", "word", "slider"] = Field(default="word", description="the challenge asked")
    wait_ms: int = Field(default=2000, ge=0, le=60_000,
                         description="checkbox: how long Continue stays disabled after the box is ticked")
    times: int = Field(default=1, ge=1, le=10,
                       description="challenges asked in the episode (one per click on the target, until solved)")

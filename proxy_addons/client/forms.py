"""`form_reset` (`forms.js`): the click that commits lands as the page re-renders its form, emptied.

What a single-page app does when a background refresh re-renders the form the user is filling in: every
text field typed in is back to what the page first showed (blank, or the site's own prefill, such as a
reply's quoted text), and the click that was to send it is lost with the old form. Nothing on the page
says so; what was typed is simply gone. An agent that keeps track of what it has done notices
its input is gone and types it again before it commits; one that does not, clicks again and sends an
empty form (the site refuses it), or gives up. Primitive: state tracking.

It acts on the first trusted click on the target (the control that commits) after the shared trigger
(typically `after_input_in`: the last field typed before it), once per `times`; a form with nothing changed
lets the click through. The ledger's `fired` line counts the fields reset.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register


@register
class FormReset(ClientFault):
    name: ClassVar[str] = "form_reset"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "The first click on the target finds its form re-rendered: every text field typed in is back to what the "
        "page first showed (blank or the site's prefill) and the click is lost; the agent must notice and type "
        "it again before committing; target: the control that commits."
    )
    script: ClassVar[str] = "forms.js"
    target_hint: ClassVar[str] = "the control that commits"

    times: int = Field(default=1, ge=1, le=10, description="how many clicks on the target find the form emptied")

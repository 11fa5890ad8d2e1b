"""Dark patterns: `dark_pattern` (`dark.js`), an offer the user did not ask for, in five modes.

The proxy only decides and injects; `dark.js` draws the offer in the browser. Four modes put an extra on
the commit (the target: the control that commits) and one puts a sponsored look-alike on a listing:

- `preselected_addon`: an add-on box (a protection plan, insurance, a newsletter) ticked by default,
  just before the target in its form. Primitive: verification (read the form before committing).
- `forced_continuity`: "Start my free 30-day trial (then $9.99/month)", ticked by default. Verification.
- `late_fee`: a "Handling" choice appears on the commit page, the paid option ("Priority handling
  +$4.99") selected and the free one beside it; the page states the fee plainly. Verification.
- `confirmshaming`: the click on the target first opens an upsell dialog with a big accept button and a
  small decline link ("No thanks, I like paying more"); either answer lets the click go through.
  Primitive: grounding (the decline is there, worded to shame and styled to be missed).
- `disguised_ad`: on the page listing the target (a link named as the task's item), a copy of the
  target's result marked "Sponsored", styled as the real results and put first, leads to `ad_path`
  (off the task: by default a landing the site does not have, answered 404, so no page the ad opens can show
  the item and pass for it). Primitive: grounding. Fair: the real result is still listed.

What the offer does to the site's state: the write the commit sends carries the offer's field in its
query (`<field>=<offer>` when taken, `<field>=none` when declined), as a real form sends its boxes; the
server half, `extra_charge` (injectors/dark.py), records a taken offer as an `extras` entity that the
task's canonical diff does not cover (collateral), so leaving it taken fails the task.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, model_validator

from proxy_addons.client.inject import ClientFault
from scenarios.faults import Primitive, register

Mode = Literal["preselected_addon", "confirmshaming", "disguised_ad", "late_fee", "forced_continuity"]

# What each mode offers by default: the slug the commit carries, the words the page shows, and the
# primitive the mode stresses (a recipe names it as its target primitive).
OFFERS: dict[str, dict[str, str]] = {
    "preselected_addon": {"offer": "protection_plan", "label": "Add a 2-year protection plan (+$12.99)"},
    "confirmshaming": {"offer": "protection_plan", "label": "Yes, protect it for $12.99"},
    "late_fee": {"offer": "priority_handling", "label": "Priority handling +$4.99"},
    "forced_continuity": {"offer": "plus_trial", "label": "Start my free 30-day trial (then $9.99/month)"},
    "disguised_ad": {"offer": "sponsored", "label": "Sponsored"},
}
MODE_PRIMITIVES: dict[str, Primitive] = {
    "preselected_addon": Primitive.verification,
    "confirmshaming": Primitive.grounding,
    "disguised_ad": Primitive.grounding,
    "late_fee": Primitive.verification,
    "forced_continuity": Primitive.verification,
}


@register
class DarkPattern(ClientFault):
    name: ClassVar[str] = "dark_pattern"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "An offer the user did not ask for, by mode: an add-on or a free trial ticked by default in the commit's "
        "form, a paid handling option selected by default, an upsell dialog whose decline is a small shaming "
        "link (the commit's write then carries the offer; server half: extra_charge records it), or a "
        "'Sponsored' copy of the target's listing result put first, leading off the task; target: the control "
        "that commits (the item's link for disguised_ad). Primitive per mode: verification (addon, late_fee, "
        "forced_continuity), grounding (confirmshaming, disguised_ad)."
    )
    script: ClassVar[str] = "dark.js"
    target_hint: ClassVar[str] = "the control that commits, or the item's link on a listing (disguised_ad)"

    mode: Mode = Field(default="preselected_addon", description="which dark pattern")
    label: str = Field(default="", max_length=160,
                       description="the offer's words (the box's label, the accept button, the paid option); "
                                   "default depends on mode")
    offer: str = Field(default="", pattern=r"^$|^[a-z][a-z0-9_]{0,39}$",
                       description="what a taken offer is recorded as (the value the commit carries); "
                                   "default depends on mode")
    field_name: str = Field(default="extra", pattern=r"^[a-z][a-z0-9_]{0,29}$",
                            description="the query field the commit's write carries the choice in "
                                        "(extra_charge reads the same)")
    decline_label: str = Field(default="No thanks, I like paying more", min_length=1, max_length=120,
                               description="confirmshaming: the small link that declines")
    ad_path: str = Field(default="/ads/landing?ref=sponsored", pattern=r"^/", max_length=200,
                         description="disguised_ad: the same-site path the sponsored result leads to "
                                     "(default: a landing the site does not have)")

    @model_validator(mode="before")
    @classmethod
    def _defaults_of_mode(cls, data: Any) -> Any:
        if isinstance(data, dict):
            mode = data.get("mode", "preselected_addon")
            offer = OFFERS.get(mode if isinstance(mode, str) else "", OFFERS["preselected_addon"])
            data = {**data, "label": data.get("label") or offer["label"], "offer": data.get("offer") or offer["offer"]}
        return data

    @property
    def mode_primitive(self) -> Primitive:
        return MODE_PRIMITIVES[self.mode]

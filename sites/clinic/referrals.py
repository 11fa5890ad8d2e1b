"""Referrals (focus `referral`): the plan of the card valid today is an HMO, which pays for a specialist only
with a referral from the family doctor. The portal lists the patient's referrals; booking a specialist
without an approved one that is still valid is refused (and the booking page says so before).

The world has an approved dermatology referral, valid for weeks yet, and an orthopedics one that expired
(so no orthopedics visit can be booked until the family doctor writes a new one).

Bindings:
    referral: {specialty, expired_id, expired_until, valid_specialty, valid_id, plan, doctor_id, doctor_name,
               slot_id, day, time, reason, valid_until, visits_left}: the expired Orthopedics referral, and
               the valid Dermatology one (the doctor it names, their earliest opening, until when it holds).
"""

from datetime import timedelta
from random import Random
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from scenarios.clock import EpisodeClock, iso
from sites.clinic import content as C
from sites.clinic.models import ClinicEpisode, ClinicState, Provider, Referral
from sites.kit.dates import day_label, time_label
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.notices import notice_of
from sites.kit.templating import Pages

NEEDS_REFERRAL = frozenset({"Cardiology", "Dermatology", "Endocrinology", "Orthopedics"})
HMO = ("Meridian Care", "HMO Gold")


def referral(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    today = clock.epoch.date()
    current = next(c for c in state.insurance_cards if c.valid_from <= today.isoformat() <= c.valid_to)
    expired_card = next(c for c in state.insurance_cards if c.valid_to < today.isoformat())
    if current.plan != HMO[1]:
        # the current card becomes the HMO one (the expired card takes the current's carrier if it was the HMO)
        if expired_card.carrier == HMO[0]:
            expired_card.carrier, expired_card.plan = current.carrier, current.plan
            expired_card.member_id = current.carrier[:2].upper() + expired_card.member_id[2:]
        current.carrier, current.plan = HMO
        current.member_id = HMO[0][:2].upper() + current.member_id[2:]
    family = state.providers[C.FAMILY_ROW]
    derm = state.providers[rng.choice(C.DERMATOLOGY_ROWS)]
    valid = Referral(id=state.take_id("referral", "rf"), specialty="Dermatology", to_provider_id=derm.id,
                     referred_by=family.id, status="approved",
                     issued_on=(today - timedelta(days=rng.randint(5, 20))).isoformat(),
                     valid_until=(today + timedelta(days=rng.randint(30, 80))).isoformat(), visits_left=2)
    gone = Referral(id=state.take_id("referral", "rf"), specialty="Orthopedics", to_provider_id=None,
                    referred_by=family.id, status="approved",
                    issued_on=(today - timedelta(days=rng.randint(120, 200))).isoformat(),
                    valid_until=(today - timedelta(days=rng.randint(3, 40))).isoformat(), visits_left=1)
    state.referrals = [valid, gone]
    now = iso(clock.now())
    first = min((s for s in state.slots if s.provider_id == derm.id and not s.taken and s.start > now),
                key=lambda s: s.start)
    bindings["referral"] = {"specialty": "Orthopedics", "expired_id": gone.id, "expired_until": gone.valid_until,
                            "valid_specialty": "Dermatology", "valid_id": valid.id,
                            "plan": f"{current.carrier} {current.plan}", "doctor_id": derm.id,
                            "doctor_name": derm.name, "slot_id": first.id, "day": day_label(first.start),
                            "time": time_label(first.start), "reason": "Skin check",
                            "valid_until": valid.valid_until, "visits_left": valid.visits_left}
    bindings["target"] = {"id": gone.id, "name": "Orthopedics referral"}


def referral_refusal(state: ClinicState, provider: Provider, today: str) -> str | None:
    """Why the plan will not pay for a visit with `provider` (None when it will, or the world has no referrals)."""
    if state.referrals is None or provider.specialty not in NEEDS_REFERRAL:
        return None
    usable = [r for r in state.referrals if r.specialty == provider.specialty and r.status == "approved"
              and r.valid_until >= today and r.visits_left > 0
              and r.to_provider_id in (None, provider.id)]
    if usable:
        return None
    return (f"Your plan needs a referral from your family doctor to see {provider.name}, and you have no valid "
            f"{provider.specialty} referral for them. Ask your family doctor for one.")


def referral_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def render(episode: SiteEpisode, request: Request, template: str, **context: Any) -> HTMLResponse:
        return ui.render(episode, template, notice=notice_of(request, {}), **context)

    @router.get("/referrals", response_class=HTMLResponse)
    @hook_point("referrals", "page")
    async def referrals(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        if state.referrals is None:
            raise HTTPException(404, "Referrals are not available on this account.")
        today = episode.clock.now().date().isoformat()
        episode.emit.navigate("view_referrals", None, referral_ids=[r.id for r in state.referrals])
        rows = [{"r": r, "to": state.provider(r.to_provider_id) if r.to_provider_id else None,
                 "by": state.provider(r.referred_by), "valid": r.valid_until >= today and r.visits_left > 0}
                for r in sorted(state.referrals, key=lambda r: r.issued_on, reverse=True)]
        return render(episode, request, "referrals.html", title="Referrals", active="care", rows=rows,
                      needs=sorted(NEEDS_REFERRAL))

    return router

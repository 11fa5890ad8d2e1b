"""The worlds of the clinic's question tasks (setup param `focus`): each adds to the shared world what its
question needs, binds the expected answer (computed from the same state the pages render) and rebinds
`target` to the record the question is about.

Only worlds with one of these focuses change: the default world, every action task's, stays as it was.

    next_visit:     {provider_id, provider_name, specialty, appointment_id, date, later_id, later_date,
                     other_name, other_date}: the earlier of two upcoming visits with the doctor of the
                     cancel task (a later follow-up is added); the namesake's visit comes before both.
    copay:          {appointment_id, provider_name, specialty, day, patient_cents, price_cents,
                     insurance_cents, carrier, previous_id}: a specialist visit last week, the most recent
                     completed one, billed under the current card.
    accepting:      {specialty, names, ids, closed_names}: the doctors of one specialty who accept new
                     patients (one or two of its three do not, and one doctor elsewhere does not either).
    insurance:      {member_id, carrier, plan, expired_member_id, expired_carrier}: the current card (the
                     one still marked primary expired).
    missing_doctor: {provider_name, first_name, surname, specialty, near_id, near_name, near_specialty}:
                     a doctor the clinic does not have; a doctor of that surname works in another specialty.
    billing:        dispute, pay_bill, deductible: statements, claims and a card to pay with
                     (sites/clinic/statements.py).
    telehealth:     telehealth: a video visit to check in to (sites/clinic/telehealth.py).
    card_photo:     card_photo: photos of insurance cards on the profile (sites/clinic/card_photos.py).
    follow_up:      follow_up: a visit's after-visit summary that asks for a follow-up (sites/clinic/summaries.py).
    proxy:          proxy: people with access to the portal, to give and revoke (sites/clinic/proxies.py).
    lab_request:    lab_request: a doctor's message asking for a lab value (sites/clinic/lab_requests.py).
    card_photo_fix: card_photo_fix: the new card's photo put on the expired card (sites/clinic/card_photos.py).
    referral:       referral: an HMO plan's referrals, one valid and one expired (sites/clinic/referrals.py).
"""

from collections.abc import Callable
from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso
from sites.clinic import content as C
from sites.clinic.billing import visit_cost
from sites.clinic.card_photos import card_photo, card_photo_fix
from sites.clinic.lab_requests import lab_request
from sites.clinic.models import Appointment, ClinicState, Provider, Slot
from sites.clinic.proxies import proxy
from sites.clinic.referrals import referral
from sites.clinic.statements import billing
from sites.clinic.summaries import follow_up
from sites.clinic.telehealth import telehealth

DEFAULT_FOCUS = "flagged"


def _free_slot_after(state: ClinicState, rng: Random, provider: Provider, after_day: str) -> Slot:
    """A free slot of `provider` on a day after `after_day` (a new one on the last such day if none is)."""
    free = [s for s in state.slots if s.provider_id == provider.id and not s.taken and s.start[:10] > after_day]
    if free:
        return rng.choice(free)
    last = max(s.start for s in state.slots)
    slot = Slot(id=state.take_id("slot", "s"), provider_id=provider.id, start=last[:10] + "T14:00:00Z", minutes=30)
    state.slots.append(slot)
    return slot


def next_visit(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    cancel = bindings["cancel"]
    first = state.appointment(cancel["appointment_id"])
    other = state.appointment(cancel["other_appointment_id"])
    assert first is not None and other is not None
    provider = state.provider(first.provider_id)
    assert provider is not None
    later_day = (date.fromisoformat(first.start[:10]) + timedelta(days=2)).isoformat()
    slot = _free_slot_after(state, rng, provider, later_day)
    slot.taken = True
    later = Appointment(id=state.take_id("appointment", "ap"), provider_id=provider.id, slot_id=slot.id,
                        start=slot.start, visit_reason="Blood pressure review", status="booked",
                        booked_at=clock.ago(days=rng.randint(3, 15), minutes=rng.randint(0, 600)))
    state.appointments.append(later)
    bindings["next_visit"] = {
        "provider_id": provider.id, "provider_name": provider.name, "specialty": provider.specialty,
        "appointment_id": first.id, "date": first.start[:10], "later_id": later.id, "later_date": later.start[:10],
        "other_name": cancel["other_provider_name"], "other_date": other.start[:10]}
    bindings["target"] = {"id": first.id, "name": provider.name}


def copay(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    past = sorted((a for a in state.appointments if a.status == "completed"), key=lambda a: a.start)
    specialists = [p for p in state.providers if p.specialty != "Family Medicine"]
    provider = rng.choice(specialists)
    start = clock.epoch.replace(tzinfo=None) - timedelta(days=rng.randint(2, 8))
    visit = Appointment(id=state.take_id("appointment", "ap"), provider_id=provider.id, slot_id=None,
                        start=iso(start.replace(hour=rng.choice((9, 11, 15)), minute=0, second=0, microsecond=0)),
                        visit_reason=rng.choice(C.VISIT_REASONS), status="completed",
                        booked_at=clock.ago(days=rng.randint(20, 40), minutes=rng.randint(0, 600)))
    state.appointments.append(visit)
    cost = visit_cost(state, visit)
    assert cost is not None and cost.card is not None, "the copay visit falls in the current card's cover"
    bindings["copay"] = {
        "appointment_id": visit.id, "provider_name": provider.name, "specialty": provider.specialty,
        "day": visit.start[:10], "patient_cents": cost.patient_cents, "price_cents": cost.price_cents,
        "insurance_cents": cost.insurance_cents, "carrier": cost.card.carrier,
        "previous_id": past[-1].id if past else None}
    bindings["target"] = {"id": visit.id, "name": f"{provider.specialty} with {provider.name}"}


def accepting(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    specialty = rng.choice(("Family Medicine", "Cardiology", "Dermatology"))
    doctors = [p for p in state.providers if p.specialty == specialty]
    closed = rng.sample(doctors, rng.randint(1, len(doctors) - 1))
    elsewhere = rng.choice([p for p in state.providers if p.specialty != specialty])
    for provider in (*closed, elsewhere):
        provider.accepting = False
    open_ = [p for p in doctors if p.accepting]
    bindings["accepting"] = {"specialty": specialty, "names": [p.name for p in open_], "ids": [p.id for p in open_],
                             "closed_names": [p.name for p in closed]}
    bindings["target"] = {"id": open_[0].id, "name": open_[0].name}


def insurance(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    today = clock.epoch.date().isoformat()
    current = next(c for c in state.insurance_cards if c.valid_from <= today <= c.valid_to)
    expired = next(c for c in state.insurance_cards if c.valid_to < today)
    bindings["insurance"] = {"member_id": current.member_id, "carrier": current.carrier, "plan": current.plan,
                             "expired_member_id": expired.member_id, "expired_carrier": expired.carrier}
    bindings["target"] = {"id": current.id, "name": f"{current.carrier} {current.plan}"}


def missing_doctor(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    near = state.providers[rng.choice((C.ORTHO_ROW, C.ORTHO_ROW + 1))]
    taken = {p.first_name for p in state.providers if p.last_name == near.last_name}
    first_name = rng.choice([f for f in C.FIRST_NAMES if f not in taken])
    specialty = "Dermatology"
    assert all(p.last_name != near.last_name for p in state.providers if p.specialty == specialty)
    bindings["missing_doctor"] = {
        "provider_name": f"Dr. {first_name} {near.last_name}", "first_name": first_name,
        "surname": near.last_name, "specialty": specialty, "near_id": near.id, "near_name": near.name,
        "near_specialty": near.specialty}
    bindings["target"] = {"id": near.id, "name": near.name}


FocusBuilder = Callable[[ClinicState, dict[str, Any], Random, EpisodeClock], None]
FOCUSES: dict[str, FocusBuilder | None] = {
    DEFAULT_FOCUS: None, "next_visit": next_visit, "copay": copay, "accepting": accepting,
    "insurance": insurance, "missing_doctor": missing_doctor, "billing": billing,
    "telehealth": telehealth, "card_photo": card_photo,
    "follow_up": follow_up, "proxy": proxy, "lab_request": lab_request,
    "card_photo_fix": card_photo_fix, "referral": referral}
# What each focus's `target` binding is (recipe expansion reads this through faults.TARGET).
TARGET_KINDS: dict[str, str] = {
    DEFAULT_FOCUS: "result", "next_visit": "appointment", "copay": "visit", "accepting": "provider",
    "insurance": "insurance card", "missing_doctor": "look-alike provider", "billing": "statement",
    "telehealth": "video visit", "card_photo": "insurance card to photograph",
    "follow_up": "visit to follow up", "proxy": "proxy access",
    "lab_request": "lab value asked for", "card_photo_fix": "card photo on the wrong card",
    "referral": "referral"}

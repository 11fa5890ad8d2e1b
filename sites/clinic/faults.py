"""CareBridge's implementations of the seed and server fault families (`FAULTS`, by type name).

The task's `target` binding is the test result with a value above range, except in the worlds of the
question tasks (setup param `focus`, `asks.py`), where it is the record the question is about; `TARGET`
says which families take which.

- `decoy_items` (seed): results of tests named one small edit away from the target's, all in range,
  collected more recently and ordered by other providers.
- `hard_negatives` (seed): more results of the target's very test, all in range (the difference is
  only on each result's page).
- `noise_records` (seed): old, read messages from the care team about routine matters.
- `target_missing` (seed): the doctor of the next-visit question has no upcoming visit any more (they
  are removed and their slots freed); the namesake's visit, with the same surname and specialty, stays
  as the near miss.
- `contradictory_update` (seed): for the next-visit question, a confirmation for another day and a newer
  message that the visit moved (the list shows the new day); for the visit-cost question, a statement
  asking for the whole price and a newer one saying the insurance paid and the copay was the share.
- `partial_write` (server): a pre-visit form is stored with the card on file (the primary one)
  instead of the card chosen, or a new phone number is not stored.
- `concurrent_edit` (server): the front desk updates the appointment just before the agent's
  cancel, reschedule or pre-visit form.

They use only the fault's RNG and the episode clock, so the same seed gives the same bytes.
"""

from dataclasses import dataclass
from datetime import date, timedelta
from random import Random
from typing import Any

from injectors.hookspec import Firing, SeedWorld, ServerCall
from scenarios.clock import iso, parse_iso
from scenarios.profile import TargetScope
from sites.clinic import content as C
from sites.clinic.asks import DEFAULT_FOCUS, TARGET_KINDS
from sites.clinic.billing import dollars
from sites.clinic.generator import long_date
from sites.clinic.models import ClinicState, Component, Message, TestResult
from sites.kit.dates import time_label


def _target(world: SeedWorld[ClinicState]) -> TestResult:
    result = world.state.result(str(world.bindings.get("target", {}).get("id")))
    if result is None:
        raise ValueError("the clinic world has no target result")
    return result


def _in_range(target: TestResult, rng: Random) -> list[Component]:
    """The target's components, every value inside its reference range."""
    return [Component(name=c.name, unit=c.unit, low=c.low, high=c.high,
                      value=round(rng.uniform(c.low + (c.high - c.low) * 0.2, c.high - (c.high - c.low) * 0.2), 1))
            for c in target.components]


def _add_result(state: ClinicState, rng: Random, target: TestResult, test: str, collected_at: str) -> str:
    orderers = [p.id for p in state.providers if p.id != target.ordered_by]
    result = TestResult(id=state.take_id("result", "r"), test=test, collected_at=collected_at,
                        ordered_by=rng.choice(orderers), components=_in_range(target, rng),
                        comment="Results look good. No changes needed.")
    state.results.append(result)
    return result.id


def _days_before_epoch(world: SeedWorld[ClinicState], stamp: str) -> int:
    return max(1, (world.clock.epoch.date() - date.fromisoformat(stamp[:10])).days)


# --- seed -------------------------------------------------------------------------------------

def decoys(world: SeedWorld[ClinicState], fault: Firing, names: list[str]) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    age = _days_before_epoch(world, target.collected_at)
    return [_add_result(state, rng, target, name, world.clock.ago(days=rng.randint(1, max(2, age - 1)),
                                                                  minutes=rng.randint(0, 600)))
            for name in names]


def hard_negatives(world: SeedWorld[ClinicState], fault: Firing, count: int, before_target: bool) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    age = _days_before_epoch(world, target.collected_at)
    ids = []
    for _ in range(count):
        days = rng.randint(1, max(2, age - 1)) if before_target else age + rng.randint(5, 200)
        collected = world.clock.ago(days=days, minutes=rng.randint(0, 600))
        ids.append(_add_result(state, rng, target, target.test, collected))
    return ids


def noise_messages(world: SeedWorld[ClinicState], fault: Firing, count: int, max_days_ago: int) -> list[str]:
    state, rng = world.state, fault.rng
    ids = []
    for index in range(count):
        line = C.STAFF_LINES[index % len(C.STAFF_LINES)]
        message = Message(id=state.take_id("message", "msg"), provider_id=rng.choice(state.providers).id,
                          subject=line.split(":")[0].rstrip("."), body=line + " No reply is needed.",
                          from_patient=False, sent_at=world.clock.ago(days=rng.randint(1, max(1, max_days_ago)),
                                                                      minutes=rng.randint(0, 600)))
        state.messages.append(message)
        ids.append(message.id)
    return ids


def target_missing(world: SeedWorld[ClinicState], fault: Firing) -> dict[str, Any]:
    """Remove every upcoming visit with the next-visit question's doctor (freeing their slots)."""
    asked = world.bindings.get("next_visit")
    if not asked:
        raise ValueError("the clinic's target_missing works on the next-visit question (focus next_visit)")
    state = world.state
    gone = [a for a in state.appointments if a.provider_id == asked["provider_id"] and a.status == "booked"]
    for appointment in gone:
        slot = state.slot(appointment.slot_id or "")
        if slot is not None:
            slot.taken = False
    state.appointments = [a for a in state.appointments if a not in gone]
    near = next((a for a in state.appointments if a.id != asked["appointment_id"] and a.status == "booked"
                 and (p := state.provider(a.provider_id)) is not None
                 and p.last_name == asked["provider_name"].split()[-1]), None)
    return {"removed": [a.id for a in gone], "provider_id": asked["provider_id"],
            "near_miss": near.id if near else None,
            "near_miss_is": f"the visit with {asked['other_name']} on {asked['other_date']}" if near else None}


def contradictory_update(world: SeedWorld[ClinicState], fault: Firing) -> dict[str, Any]:
    """An older message and a newer correction about the question's fact; the newer one matches the page.

    Next visit: the visit was first confirmed for another day, then moved to the day it is on now.
    Visit cost: the first statement asked for the whole price (claim pending), the newer one says the
    insurance paid and the patient's share was the copay."""
    state, rng, clock = world.state, fault.rng, world.clock
    if "next_visit" in world.bindings:
        asked = world.bindings["next_visit"]
        visit = state.appointment(asked["appointment_id"])
        assert visit is not None
        moved = parse_iso(visit.start) - timedelta(days=rng.randint(1, 3))
        stale = iso(moved)
        visit.rescheduled_from = stale
        older = _staff_message(state, visit.provider_id, "Appointment confirmed",
                               f"Your {asked['specialty']} visit with {asked['provider_name']} is confirmed for "
                               f"{long_date(stale)} at {time_label(stale)}.", clock.ago(days=rng.randint(15, 25)))
        newer = _staff_message(state, visit.provider_id, "Your appointment time changed",
                               f"Your visit with {asked['provider_name']} has moved to {long_date(visit.start)} at "
                               f"{time_label(visit.start)}. We're sorry for the change.",
                               clock.ago(days=rng.randint(1, 3)), read=False)
        return {"older_id": older.id, "newer_id": newer.id, "stale_value": stale[:10], "current_value": asked["date"],
                "about": visit.id}
    if "copay" in world.bindings:
        asked = world.bindings["copay"]
        visit = state.appointment(asked["appointment_id"])
        assert visit is not None
        days_ago = (clock.epoch.date() - parse_iso(visit.start).date()).days
        older = _staff_message(state, visit.provider_id, "Statement for your visit",
                               f"Statement for your {asked['specialty']} visit on {long_date(visit.start)}: amount "
                               f"due {dollars(asked['price_cents'])} (insurance claim pending).",
                               clock.ago(days=days_ago - 1, minutes=rng.randint(0, 300)))
        newer = _staff_message(state, visit.provider_id, "Your insurance paid its part",
                               f"{asked['carrier']} processed the claim for your visit on {long_date(visit.start)}. "
                               f"Your share was the {dollars(asked['patient_cents'])} copay you paid at check-in; "
                               "nothing more is due.", clock.ago(minutes=rng.randint(30, 600)), read=False)
        return {"older_id": older.id, "newer_id": newer.id, "stale_value": asked["price_cents"],
                "current_value": asked["patient_cents"], "about": visit.id}
    raise ValueError("the clinic's contradictory_update works on the next-visit or visit-cost question")


def _staff_message(state: ClinicState, provider_id: str, subject: str, body: str, sent_at: str,
                   read: bool = True) -> Message:
    message = Message(id=state.take_id("message", "msg"), provider_id=provider_id, subject=subject, body=body,
                      from_patient=False, sent_at=sent_at, read=read)
    state.messages.append(message)
    return message


# --- server -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _PartialWrite:
    points: frozenset[str] = frozenset({"previsit", "update_phone"})

    def drop(self, call: ServerCall[ClinicState], fault: Firing) -> dict[str, Any]:
        state, before = call.state, call.snapshot
        assert isinstance(before, ClinicState)
        if call.point == "update_phone":
            asked = state.patient.phone
            state.patient.phone = before.patient.phone
            return {"entity": state.patient.id, "field": "phone", "asked": asked, "stored": state.patient.phone}
        form = state.previsit_forms[-1]
        asked = form.insurance_card_id
        on_file = next((c.id for c in state.insurance_cards if c.primary), asked)
        form.insurance_card_id = on_file
        return {"entity": form.id, "field": "insurance_card_id", "asked": asked, "stored": on_file}


@dataclass(frozen=True)
class _ConcurrentEdit:
    points: frozenset[str] = frozenset({"cancel", "reschedule", "previsit"})

    def edit(self, call: ServerCall[ClinicState], fault: Firing) -> dict[str, Any]:
        appointment = call.state.appointment(call.target or "")
        if appointment is None or appointment.status != "booked":
            return {"edited": None}
        call.episode.clock.stamp()
        appointment.visit_reason = appointment.visit_reason.rstrip() + " (confirmed by the front desk)"
        return {"edited": appointment.id, "field": "visit_reason"}


# The task's target by focus (the generator's setup param), and the kinds each family above works on:
# the result look-alikes need the flagged result; only the next-visit question loses its target whole.
TARGET = TargetScope(
    param="focus", default=DEFAULT_FOCUS, kinds=TARGET_KINDS,
    accepts={"decoy_items": ["result"], "hard_negatives": ["result"], "target_missing": ["appointment"],
             "contradictory_update": ["appointment", "visit"]},
)

FAULTS: dict[str, object] = {
    "decoy_items": decoys,
    "hard_negatives": hard_negatives,
    "noise_records": noise_messages,
    "target_missing": target_missing,
    "contradictory_update": contradictory_update,
    "partial_write": _PartialWrite(),
    "concurrent_edit": _ConcurrentEdit(),
}

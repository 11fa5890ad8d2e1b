"""CareBridge's fault implementations: seeded look-alikes and noise, and server faults in its handlers."""

from typing import Any

import pytest

from sites.clinic.site import SITE
from tests.sites.worlds import LOOKALIKE_AND_NOISE_FAULTS, once_on, seeded_and_plain

from . import client_for, new_world


def test_profile_lists_what_faults_py_implements() -> None:
    assert SITE.profile.fault_types == sorted(SITE.faults)
    assert set(SITE.faults) == {"decoy_items", "hard_negatives", "noise_records", "target_missing",
                                "contradictory_update", "partial_write", "concurrent_edit"}


@pytest.mark.parametrize(("focus", "current"), [("next_visit", "date"), ("copay", "patient_cents")])
def test_contradictory_update_plants_an_older_claim_and_a_newer_correction(focus: str, current: str) -> None:
    fault = [{"type": "contradictory_update", "layer": "seed"}]
    episode, plain = new_world(3, faults=fault, focus=focus)[2], new_world(3, focus=focus)[2]
    detail, asked = episode.bindings["contradiction"], plain.bindings[focus]
    assert detail["current_value"] == asked[current] != detail["stale_value"]
    older, newer = (episode.state.messages[-2], episode.state.messages[-1])
    assert (older.id, newer.id) == (detail["older_id"], detail["newer_id"]) and older.sent_at < newer.sent_at
    # The answer the task expects is unchanged: the correction matches what the page shows.
    assert episode.bindings[focus] == asked
    assert new_world(3, faults=fault, focus=focus)[2].state_bytes() == episode.state_bytes()


def test_target_missing_removes_the_doctors_upcoming_visits_and_keeps_the_namesakes() -> None:
    fault = [{"type": "target_missing", "layer": "seed"}]
    episode = new_world(5, faults=fault, focus="next_visit")[2]
    plain = new_world(5, focus="next_visit")[2]
    asked, state = plain.bindings["next_visit"], episode.state
    assert not [a for a in state.appointments if a.provider_id == asked["provider_id"] and a.status == "booked"]
    for gone in (asked["appointment_id"], asked["later_id"]):
        slot = plain.state.slot(plain.state.appointment(gone).slot_id)  # type: ignore[union-attr,arg-type]
        assert slot is not None and state.slot(slot.id).taken is False  # type: ignore[union-attr]
    # The near miss stays: the visit with the other cardiologist of that surname.
    namesake = state.appointment(plain.bindings["cancel"]["other_appointment_id"])
    assert namesake is not None and namesake.status == "booked"
    detail = episode.bindings["infeasible"]
    assert detail["removed"] == [asked["appointment_id"], asked["later_id"]]
    assert detail["near_miss"] == namesake.id
    # Same seed, same world and detail; everything else is the plain world's.
    again = new_world(5, faults=fault, focus="next_visit")[2]
    assert again.state_bytes() == episode.state_bytes() and again.bindings["infeasible"] == detail
    assert len(state.appointments) == len(plain.state.appointments) - 2


def test_target_missing_refuses_a_world_without_the_next_visit_question() -> None:
    with pytest.raises(ValueError, match="next_visit"):
        new_world(1, faults=[{"type": "target_missing", "layer": "seed"}])


def test_the_result_families_and_target_missing_take_only_their_kind_of_target() -> None:
    profile = SITE.profile
    assert profile.refusal("decoy_items", {}) is None and profile.refusal("hard_negatives", {}) is None
    assert profile.refusal("decoy_items", {"focus": "copay"}) is not None
    assert profile.refusal("target_missing", {"focus": "next_visit"}) is None
    assert profile.refusal("target_missing", {}) is not None
    assert profile.refusal("contradictory_update", {"focus": "copay"}) is None
    assert profile.refusal("contradictory_update", {"focus": "accepting"}) is not None
    assert profile.refusal("noise_records", {"focus": "accepting"}) is None


@pytest.mark.parametrize("fault", LOOKALIKE_AND_NOISE_FAULTS)
def test_seed_faults_are_seeded_and_keep_the_task(fault: dict[str, Any]) -> None:
    first, plain = seeded_and_plain(new_world, fault)
    assert first.bindings["flagged"] == plain.bindings["flagged"]
    state = first.state
    # The target stays the only result with a value out of range.
    assert [r.id for r in state.results if any(c.flag for c in r.components)] == [plain.bindings["target"]["id"]]


def test_hard_negatives_share_the_test_name() -> None:
    episode = new_world(2, faults=[{"type": "hard_negatives", "layer": "seed", "params": {"count": 2}}])[2]
    state, test = episode.state, episode.bindings["target"]["name"]
    assert len([r for r in state.results if r.test == test]) == 5
    assert all(state.result(i).test == test for i in episode.bindings["hard_negative_ids"])  # type: ignore[union-attr]


async def test_partial_write_keeps_the_old_phone() -> None:
    app, _store, episode = new_world(1, faults=[once_on("partial_write", "/api/profile/phone")])
    state, contact = episode.state, episode.bindings["contact"]
    async with client_for(app, episode.id) as client:
        first = await client.put("/api/profile/phone", json={"phone": contact["new_phone"]})
        assert first.status_code == 200 and state.patient.phone == contact["old_phone"]
        second = await client.put("/api/profile/phone", json={"phone": contact["new_phone"]})
        assert second.status_code == 200 and state.patient.phone == contact["new_phone"]
    assert episode.ledger.lines[0]["detail"]["field"] == "phone"


async def test_concurrent_edit_refuses_the_cancel_once() -> None:
    app, _store, episode = new_world(1, faults=[once_on("concurrent_edit", "/api/appointments/*/cancel")])
    cancel = episode.bindings["cancel"]
    path = f"/api/appointments/{cancel['appointment_id']}/cancel"
    async with client_for(app, episode.id) as client:
        first = await client.post(path, json={"reason": "schedule_conflict"})
        assert first.status_code == 409
        appointment = episode.state.appointment(cancel["appointment_id"])
        assert appointment and appointment.status == "booked" and "front desk" in appointment.visit_reason
        assert (await client.post(path, json={"reason": "schedule_conflict"})).status_code == 200

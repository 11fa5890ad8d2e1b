"""The JSON API: each task's write and its events, all-or-nothing, and 4xx (never 500, never a
partial write) for malformed or impossible requests."""

from typing import Any

import pytest

from tests.sites.worlds import assert_refused_and_unchanged, commits, world_fixture

from . import client_for, new_world

world = world_fixture(new_world, seed=4)


async def test_book_takes_the_slot_and_a_second_booking_is_refused(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, book = episode.state, episode.bindings["book"]
    before = len(state.appointments)
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/appointments", json={"slot_id": book["slot_id"], "visit_reason": "Check"})
        assert response.status_code == 201, response.text
        again = await client.post("/api/appointments", json={"slot_id": book["slot_id"], "visit_reason": "Check"})
        assert again.status_code == 409 and "booked that time" in again.json()["detail"]
    assert len(state.appointments) == before + 1 and state.slot(book["slot_id"]).taken  # type: ignore[union-attr]
    assert [e.name for e in commits(episode)] == ["book"]
    assert commits(episode)[0].detail["touched"] == [response.json()["appointment"]["id"], book["slot_id"]]


async def test_reschedule_moves_the_visit_and_swaps_slots(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, move = episode.state, episode.bindings["move"]
    async with client_for(app, episode.id) as client:
        response = await client.post(f"/api/appointments/{move['appointment_id']}/reschedule",
                                     json={"slot_id": move["new_slot_id"]})
        assert response.status_code == 200, response.text
    appointment = state.appointment(move["appointment_id"])
    assert appointment and appointment.slot_id == move["new_slot_id"] and appointment.status == "booked"
    assert state.slot(move["new_slot_id"]).taken and not state.slot(move["old_slot_id"]).taken  # type: ignore[union-attr]


async def test_reschedule_to_another_doctor_changes_nothing(world: tuple[Any, Any]) -> None:
    app, episode = world
    move, book = episode.bindings["move"], episode.bindings["book"]
    before = episode.state_bytes()
    async with client_for(app, episode.id) as client:
        response = await client.post(f"/api/appointments/{move['appointment_id']}/reschedule",
                                     json={"slot_id": book["slot_id"]})
    assert response.status_code == 409 and "same provider" in response.json()["detail"]
    assert episode.state_bytes() == before and not commits(episode)


async def test_cancel_keeps_the_record_frees_the_slot_and_is_final(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, cancel = episode.state, episode.bindings["cancel"]
    path = f"/api/appointments/{cancel['appointment_id']}/cancel"
    async with client_for(app, episode.id) as client:
        other = await client.post(path, json={"reason": "other"})
        assert other.status_code == 422 and "note" in other.json()["detail"]
        response = await client.post(path, json={"reason": "schedule_conflict"})
        assert response.status_code == 200, response.text
        again = await client.post(path, json={"reason": "schedule_conflict"})
        assert again.status_code == 409 and "cancelled" in again.json()["detail"]
        page = await client.get(f"/appointments/{cancel['appointment_id']}")
        assert "Cancelled (Schedule conflict)" in page.text
    appointment = state.appointment(cancel["appointment_id"])
    assert appointment and appointment.status == "cancelled" and appointment.cancel_reason == "schedule_conflict"
    assert not state.slot(cancel["slot_id"]).taken  # type: ignore[union-attr]
    assert state.appointment(cancel["other_appointment_id"]).status == "booked"  # type: ignore[union-attr]


async def test_previsit_dates_cards_and_once_only(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, pv = episode.state, episode.bindings["previsit"]
    path = f"/api/appointments/{pv['appointment_id']}/previsit"
    body = {"symptoms": pv["symptoms"], "symptoms_since": pv["since"], "allergies": "",
            "insurance_card_id": pv["card_id"], "medications_confirmed": True}
    async with client_for(app, episode.id) as client:
        future = await client.post(path, json={**body, "symptoms_since": "2999-01-01"})
        assert future.status_code == 422 and "future" in future.json()["detail"]
        unreal = await client.post(path, json={**body, "symptoms_since": "2025-02-30"})
        assert unreal.status_code == 422 and "real date" in unreal.json()["detail"]
        early = await client.post(path, json={**body, "symptoms_since": "1900-01-01"})
        assert early.status_code == 422 and "birth" in early.json()["detail"]
        unknown = await client.post(path, json={**body, "insurance_card_id": "ins9"})
        assert unknown.status_code == 404
        assert not state.previsit_forms
        response = await client.post(path, json=body)
        assert response.status_code == 201, response.text
        again = await client.post(path, json=body)
        assert again.status_code == 409
    assert [f.insurance_card_id for f in state.previsit_forms] == [pv["card_id"]]


async def test_message_refill_and_profile_writes(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, b = episode.state, episode.bindings
    async with client_for(app, episode.id) as client:
        sent = await client.post("/api/messages", json={"provider_id": b["flagged"]["provider_id"],
                                                        "subject": "About my result", "body": "Is this high?",
                                                        "result_id": b["flagged"]["result_id"]})
        assert sent.status_code == 201, sent.text
        refill = await client.post(f"/api/medications/{b['refill']['ids'][0]}/refills",
                                   json={"pharmacy_id": b["refill"]["pharmacy_id"]})
        assert refill.status_code == 201
        twice = await client.post(f"/api/medications/{b['refill']['ids'][0]}/refills",
                                  json={"pharmacy_id": b["refill"]["pharmacy_id"]})
        assert twice.status_code == 409
        empty = await client.post(f"/api/medications/{b['refill']['empty_id']}/refills",
                                  json={"pharmacy_id": b["refill"]["pharmacy_id"]})
        assert empty.status_code == 409 and "no refills left" in empty.json()["detail"]
        phone = await client.put("/api/profile/phone", json={"phone": b["contact"]["new_phone"]})
        assert phone.status_code == 200
        contact = await client.post("/api/profile/contacts", json={
            "name": b["contact"]["name"], "relationship": b["contact"]["relationship"], "phone": b["contact"]["phone"]})
        assert contact.status_code == 201
        expired = await client.put(f"/api/profile/insurance/{b['previsit']['old_card_id']}/primary")
        assert expired.status_code == 409
        primary = await client.put(f"/api/profile/insurance/{b['previsit']['card_id']}/primary")
        assert primary.status_code == 200
    assert state.patient.phone == b["contact"]["new_phone"] and len(state.contacts) == 2
    assert [c.primary for c in state.insurance_cards] == [False, True]
    assert [e.name for e in commits(episode)] == ["send_message", "request_refill", "update_phone", "add_contact",
                                                   "make_primary"]


@pytest.mark.parametrize(("method", "path", "body", "status"), [
    ("POST", "/api/appointments", {"slot_id": "s9999", "visit_reason": "Check"}, 404),
    ("POST", "/api/appointments", {"slot_id": "s0001", "visit_reason": "<b>hi</b>"}, 422),
    ("POST", "/api/appointments", {"slot_id": "s0001", "visit_reason": "x" * 301}, 422),
    ("POST", "/api/appointments", {"slot_id": 5, "visit_reason": "Check"}, 422),
    ("POST", "/api/appointments/ap9999/cancel", {"reason": "feeling_better"}, 404),
    ("POST", "/api/appointments/ap0001/cancel", {"reason": "feeling_better"}, 409),
    ("POST", "/api/messages", {"provider_id": "pr01", "subject": "Hello", "body": "y" * 2001}, 422),
    ("POST", "/api/messages", {"provider_id": "pr99", "subject": "Hello", "body": "Hello there"}, 404),
    ("POST", "/api/profile/contacts", {"name": "Al", "relationship": "cousin", "phone": "555 1234"}, 422),
    ("PUT", "/api/profile/phone", {"phone": "call me"}, 422),
    ("DELETE", "/api/profile/contacts/ec9", None, 404),
])
async def test_bad_requests_are_4xx_and_change_nothing(world: tuple[Any, Any], method: str, path: str,
                                                       body: Any, status: int) -> None:
    await assert_refused_and_unchanged(client_for, world, method, path, body, status)

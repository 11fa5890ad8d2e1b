"""Wayfarer's fault implementations: seeded traps added by variants, and server faults in its handlers."""

from typing import Any

import pytest

from sites.travel.models import PAGE_SIZE
from sites.travel.site import SITE
from tests.sites.worlds import LOOKALIKE_AND_NOISE_FAULTS, seeded_and_plain

from . import client_for, new_world
from .test_api import booking_body


def test_profile_lists_what_faults_py_implements() -> None:
    assert SITE.profile.fault_types == sorted(SITE.faults)
    assert set(SITE.faults) == {"decoy_items", "hard_negatives", "noise_records", "push_past_first_page",
                                "contradictory_update", "planted_wrong_answer", "target_missing",
                                "item_removed_mid_flow", "price_change_at_checkout", "partial_write", "concurrent_edit",
                                "pagination_drift"}


SEED_FAULTS = [
    *LOOKALIKE_AND_NOISE_FAULTS,
    {"type": "push_past_first_page", "layer": "seed", "params": {"filler": 8}},
    {"type": "contradictory_update", "layer": "seed"},
    {"type": "planted_wrong_answer", "layer": "seed", "params": {"helpful_votes": 214}},
]


@pytest.mark.parametrize("fault", SEED_FAULTS)
def test_seed_faults_are_seeded_and_keep_the_task_answers(fault: dict[str, Any]) -> None:
    first, plain = seeded_and_plain(new_world, fault, focus="refundable")
    state = first.state
    assert len({h.id for h in state.hotels}) == len(state.hotels) and len({r.id for r in state.rooms}) == len(
        state.rooms)
    assert first.bindings["refundable"] == plain.bindings["refundable"]


def test_lookalikes_share_the_city_and_the_name() -> None:
    episode = new_world(2, focus="namesake", faults=SEED_FAULTS[:2])[2]
    state, target = episode.state, episode.bindings["target"]
    city = state.hotel(target["id"]).city  # type: ignore[union-attr]
    decoys = [state.hotel(i) for i in episode.bindings["decoy_ids"]]
    assert all(d and d.city == city and d.name != target["name"] for d in decoys)
    negatives = [state.hotel(i) for i in episode.bindings["hard_negative_ids"]]
    assert all(n and n.name == target["name"] and n.resort_fee_cents > 0 for n in negatives)
    assert all(not r.refundable for n in negatives for r in state.rooms_of(n.id))  # type: ignore[union-attr]


@pytest.mark.parametrize("fault", [SEED_FAULTS[0], SEED_FAULTS[3]])
def test_copies_of_the_one_hotel_without_a_resort_fee_charge_one(fault: dict[str, Any]) -> None:
    """The resort task says only one 4-star hotel in the city charges no resort fee: decoys and fillers
    copied from it must not make that untrue (another fee-free hotel would be an equally right answer)."""
    episode = new_world(1, focus="resort", faults=[fault])[2]
    state, resort = episode.state, episode.bindings["resort"]
    target = state.hotel(resort["hotel_id"])
    assert target is not None and target.resort_fee_cents == 0
    fee_free = [h.id for h in state.hotels if h.city == target.city and h.stars == target.stars
                and not h.resort_fee_cents]
    assert fee_free == [target.id]
    copies = [h for h in state.hotels if h.id not in {x.id for x in new_world(1, focus="resort")[2].state.hotels}]
    assert copies and all(h.resort_fee_cents > 0 for h in copies)


def test_target_pushed_past_the_first_page() -> None:
    episode = new_world(4, focus="fallback", faults=[SEED_FAULTS[3]])[2]
    state, target = episode.state, new_world(4)[2].state.hotel(episode.bindings["target"]["id"])
    assert target is not None
    ranked = sorted((h for h in state.hotels if h.city == target.city), key=lambda h: (h.rank, h.id))
    assert [h.id for h in ranked].index(target.id) >= PAGE_SIZE


@pytest.mark.parametrize(("fault", "status"), [
    ({"type": "item_removed_mid_flow", "layer": "server"}, 409),
    ({"type": "price_change_at_checkout", "layer": "server", "params": {"change_pct": 12}}, 409),
    ({"type": "write_fails_before_commit", "layer": "server"}, 500),
])
async def test_booking_faults_refuse_the_booking_whole(fault: dict[str, Any], status: int) -> None:
    app, _, episode = new_world(5, faults=[{**fault, "match": {"path": "/api/bookings", "methods": ["POST"]},
                                            "schedule": {"mode": "once"}}])
    book = episode.bindings["book"]
    async with client_for(app, episode.id) as client:
        refused = await client.post("/api/bookings", json=booking_body(book))
        assert refused.status_code == status, refused.text
        assert len(episode.state.bookings) == 5
        retry = await client.post("/api/bookings", json=booking_body(book))
    room = episode.state.room(book["room_id"])
    assert room is not None
    if fault["type"] == "item_removed_mid_flow":
        assert retry.status_code == 409 and room.available == 0
    else:
        assert retry.status_code == 201
    assert [line for line in episode.ledger.lines if line.get("fault_type") == fault["type"]
            or line.get("type") == fault["type"]]


async def test_partial_write_and_concurrent_edit() -> None:
    app, _, episode = new_world(6, faults=[
        {"type": "partial_write", "layer": "server", "match": {"path": "/api/bookings", "methods": ["POST"]}},
        {"type": "concurrent_edit", "layer": "server", "match": {"path": "/api/bookings/*/dates"},
         "schedule": {"mode": "once"}}])
    book, change = episode.bindings["book"], episode.bindings["change"]
    async with client_for(app, episode.id) as client:
        made = await client.post("/api/bookings", json=booking_body(book))
        assert made.status_code == 201 and made.json()["booking"]["card_id"] == "card2"
        dates = {"check_in": change["check_in"], "check_out": change["check_out"]}
        conflict = await client.put(f"/api/bookings/{change['booking_id']}/dates", json=dates)
        assert conflict.status_code == 409
        assert (await client.put(f"/api/bookings/{change['booking_id']}/dates", json=dates)).status_code == 200
    state = episode.state
    assert state.bookings[-1].card_id == "card1"
    changed = state.booking(change["booking_id"])
    assert changed and "Late arrival" in changed.requests and changed.check_in == change["check_in"]


async def test_pagination_drift_adds_hotels_at_the_top_of_the_city() -> None:
    app, _, episode = new_world(7, faults=[{"type": "pagination_drift", "layer": "server",
                                            "match": {"path": "/hotels"}, "params": {"shift": 3}}])
    city = episode.bindings["book"]["city"]
    before = len(episode.state.hotels)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/hotels", params={"city": city, "page": "2"})).status_code == 200
    state = episode.state
    new = state.hotels[before:]
    assert len(new) == 3 and all(h.city == city and h.name.endswith("(New)") for h in new)


async def test_partial_write_of_new_dates_stores_another_check_out() -> None:
    app, _, episode = new_world(8, faults=[{"type": "partial_write", "layer": "server", "schedule": {"mode": "once"},
                                            "match": {"path": "/api/bookings/*/dates", "methods": ["PUT"]}}])
    change = episode.bindings["change"]
    dates = {"check_in": change["check_in"], "check_out": change["check_out"]}
    async with client_for(app, episode.id) as client:
        claimed = await client.put(f"/api/bookings/{change['booking_id']}/dates", json=dates)
        assert claimed.status_code == 200
        booking = episode.state.booking(change["booking_id"])
        assert booking and booking.check_in == change["check_in"] and booking.check_out != change["check_out"]
        assert booking.check_out > booking.check_in
        again = await client.put(f"/api/bookings/{change['booking_id']}/dates", json=dates)
        assert again.status_code == 200 and booking.check_out == change["check_out"]


TARGET_MISSING = [{"type": "target_missing", "layer": "seed"}]


@pytest.mark.parametrize("focus", ["book", "namesake", "resort", "stay_total"])
def test_target_missing_removes_the_hotel_and_keeps_a_look_alike(focus: str) -> None:
    episode = new_world(2, faults=TARGET_MISSING, focus=focus)[2]
    again = new_world(2, faults=TARGET_MISSING, focus=focus)[2]
    state, target, missing = episode.state, episode.bindings["target"], episode.bindings["infeasible"]
    assert missing == again.bindings["infeasible"] and episode.state_bytes() == again.state_bytes()
    assert missing["removed"] == target["id"] and state.hotel(target["id"]) is None
    assert not state.rooms_of(target["id"]) and not state.reviews_of(target["id"])
    assert not [b for b in state.bookings if b.hotel_id == target["id"]]
    near = state.hotel(missing["near_miss"])
    assert near is not None
    if focus == "namesake":
        assert near.id == episode.bindings["namesake"]["other_id"] and near.name != target["name"]
    else:  # the same name, in another city
        assert near.name == target["name"] and near.city != episode.bindings[focus]["city"]
        assert state.rooms_of(near.id)


@pytest.mark.parametrize("focus", ["cancel", "change", "check_in", "past_reference"])
def test_target_missing_removes_the_trip_and_what_names_it(focus: str) -> None:
    episode = new_world(3, faults=TARGET_MISSING, focus=focus)[2]
    plain = new_world(3, focus=focus)[2]
    state, missing = episode.state, episode.bindings["infeasible"]
    gone = plain.state.booking(episode.bindings[focus]["booking_id"])
    assert gone is not None and missing["removed"] == gone.id and state.booking(gone.id) is None
    assert not [p for p in state.points if gone.reference in p.text]
    assert len(state.bookings) == len(plain.state.bookings) - 1
    assert state.hotel(gone.hotel_id) is not None  # the hotel stays: only the stay is gone
    if focus in ("cancel", "check_in"):  # the other trip in the same city is the near miss
        near = state.booking(missing["near_miss"])
        assert near is not None and near.status == "confirmed"
        assert state.hotel(near.hotel_id).city == plain.state.hotel(gone.hotel_id).city  # type: ignore[union-attr]


def test_target_missing_on_the_flight_task_leaves_only_one_stop_flights_that_day() -> None:
    episode = new_world(1, faults=TARGET_MISSING, focus="flight")[2]
    flight, missing = episode.bindings["flight"], episode.bindings["infeasible"]
    day = [f for f in episode.state.flights
           if (f.origin, f.destination, f.date) == (flight["origin"], flight["destination"], flight["date"])]
    assert day and all(f.stops == 1 for f in day)
    assert flight["flight_id"] in missing["removed"] and missing["near_miss"] in {f.id for f in day}


def test_target_missing_is_declared_for_hotels_flights_and_trips_not_routes() -> None:
    target = SITE.profile.target
    assert target is not None
    for focus in ("book", "cancel", "flight", "stay_total", "check_in", "past_reference"):
        assert target.refusal("target_missing", {"focus": focus}) is None
    for focus in ("nonstop_airlines", "unserved_route"):
        assert target.refusal("target_missing", {"focus": focus})

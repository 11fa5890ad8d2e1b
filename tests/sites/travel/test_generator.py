"""Seeded Wayfarer worlds: byte-identical per seed, different across seeds, traps in place."""

from datetime import date
from typing import Any

import pytest

from sites.travel.models import PAGE_SIZE

from . import new_world


def test_people_and_traps_change_with_the_seed() -> None:
    worlds = [new_world(seed)[2] for seed in (1, 2, 3, 4)]
    assert len({w.state.today for w in worlds}) == 4
    assert len({w.bindings["namesake"]["hotel_name"] for w in worlds}) > 1


def test_focus_names_the_target() -> None:
    plain = new_world(5)[2]
    assert new_world(5, focus="resort")[2].bindings["target"]["id"] == plain.bindings["resort"]["hotel_id"]


def _first_page(state: Any, hotel_id: str) -> bool:
    hotel = state.hotel(hotel_id)
    ranked = sorted((h for h in state.hotels if h.city == hotel.city), key=lambda h: (h.rank, h.id))
    return [h.id for h in ranked].index(hotel_id) < PAGE_SIZE


@pytest.mark.parametrize("seed", range(1, 9))
def test_seeded_traps(seed: int) -> None:
    episode = new_world(seed)[2]
    state, b = episode.state, episode.bindings
    today = date.fromisoformat(state.today)
    assert len({r.id for r in state.rooms}) == len(state.rooms)
    assert len({h.id for h in state.hotels}) == len(state.hotels)
    for key in ("book", "namesake", "refundable", "resort", "fallback"):
        stay = b[key]
        assert today < date.fromisoformat(stay["check_in"]) < date.fromisoformat(stay["check_out"])
        room = state.room(stay["room_id"])
        assert room and room.hotel_id == stay["hotel_id"] and room.refundable and room.available > 0
        assert _first_page(state, stay["hotel_id"]), key
    # Two hotels with near-identical names in one city, each with the room to book.
    ns = b["namesake"]
    ours, other = state.hotel(ns["hotel_id"]), state.hotel(ns["other_id"])
    assert ours and other and ours.city == other.city and ours.name != other.name
    assert ours.neighborhood != other.neighborhood and _first_page(state, other.id)
    assert any(r.name == ns["room_name"] for r in state.rooms_of(other.id))
    # The cheapest rate is non-refundable; the target is the cheapest refundable one.
    ref = b["refundable"]
    rooms = state.rooms_of(ref["hotel_id"])
    assert rooms[0].id == ref["trap_room_id"] and not rooms[0].refundable
    assert min((r for r in rooms if r.refundable), key=lambda r: r.nightly_cents).id == ref["room_id"]
    # Of the 4-star hotels in the city exactly one has no resort fee; its cheapest room is the target.
    res = b["resort"]
    four = [h for h in state.hotels if h.city == res["city"] and h.stars == 4]
    assert [h.id for h in four if h.resort_fee_cents == 0] == [res["hotel_id"]]
    assert sorted(h.id for h in four if h.resort_fee_cents) == sorted(res["hard_negative_ids"])
    assert state.rooms_of(res["hotel_id"])[0].id == res["room_id"]
    # The first choice is sold out, the second is not.
    first = state.room(b["fallback"]["first_room_id"])
    assert first and first.available == 0 and first.name == b["fallback"]["first_choice"]
    # Two upcoming trips in one city; the one to cancel and the one to keep.
    cancel, keep = state.booking(b["cancel"]["booking_id"]), state.booking(b["cancel"]["keep_id"])
    assert cancel and keep and cancel.status == keep.status == "confirmed"
    assert state.hotel(cancel.hotel_id).city == state.hotel(keep.hotel_id).city  # type: ignore[union-attr]
    assert sum(1 for x in state.bookings if x.status == "completed") == 2
    # The cheapest nonstop flight; a one-stop flight on the same route and day is cheaper.
    fl = b["flight"]
    same_day = [f for f in state.flights if (f.origin, f.destination, f.date) == (fl["origin"], fl["destination"],
                                                                                 fl["date"])]
    nonstop = min((f for f in same_day if f.stops == 0), key=lambda f: f.price_cents)
    assert nonstop.id == fl["flight_id"] and min(same_day, key=lambda f: f.price_cents).id == fl["trap_id"]
    assert len({f.number for f in same_day}) == len(same_day)
    # The member code is valid; the hotel's promo banner is an expired code.
    assert b["book"]["promo_code"] == state.loyalty.offer_code
    assert state.hotel(b["book"]["hotel_id"]).promo == b["book"]["expired_code"]  # type: ignore[union-attr]

"""The JSON API: each task's write, points and events, and 4xx (never 500, never a partial write)
for malformed or impossible requests: dates out of range or reversed, bad guests, unknown ids,
expired codes, sold-out rooms."""

from typing import Any

import pytest

from tests.sites.worlds import commits, world_fixture

from . import client_for, new_world

world = world_fixture(new_world, seed=4)


def booking_body(stay: dict[str, Any], **changes: Any) -> dict[str, Any]:
    body = {"hotel_id": stay["hotel_id"], "room_id": stay["room_id"], "check_in": stay["check_in"],
            "check_out": stay["check_out"], "guests": 2, "rooms": 1, "first_name": "Ada", "last_name": "Lovelace",
            "email": "ada@example.test", "card_id": "card2", "accept_terms": True}
    return {**body, **changes}


async def test_booking_with_member_code_writes_everything_at_once(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, book = episode.state, episode.bindings["book"]
    room = state.room(book["room_id"])
    assert room is not None
    available, points = room.available, state.loyalty.points
    async with client_for(app, episode.id) as client:
        quote = await client.post("/api/quote", json={k: v for k, v in booking_body(book).items() if k in (
            "hotel_id", "room_id", "check_in", "check_out", "guests", "rooms")} | {"promo_code": book["promo_code"]})
        assert quote.status_code == 200 and quote.json()["discount_pct"] == state.loyalty.offer_pct
        response = await client.post("/api/bookings", json=booking_body(book, promo_code=book["promo_code"]))
        assert response.status_code == 201, response.text
        made = response.json()["booking"]
        assert made["total_cents"] == quote.json()["quote"]["total_cents"]
        assert made["taxes_cents"] > 0 and made["discount_cents"] > 0 and made["card_id"] == "card2"
        trip = await client.get(response.json()["url"])
        assert trip.status_code == 200 and made["reference"] in trip.text
    assert room.available == available - 1 and state.loyalty.points == points + made["room_total_cents"] // 20
    assert [e.name for e in commits(episode)] == ["book_hotel"]
    assert commits(episode)[0].detail["touched"][:2] == [made["id"], room.id]


@pytest.mark.parametrize(("changes", "status", "words"), [
    ({"check_in": "2020-01-01"}, 422, "past"),
    ({"check_out": "1999-01-01"}, 422, "after check-in"),
    ({"check_in": "2030-01-01", "check_out": "2030-01-03"}, 422, "365 days"),
    ({"check_out": "swap"}, 422, None),
    ({"guests": -1}, 422, None),
    ({"guests": 0}, 422, None),
    ({"guests": 9}, 422, None),
    ({"guests": "2"}, 422, None),
    ({"rooms": 3, "guests": 2}, 422, "at least one guest"),
    ({"first_name": "<script>alert(1)</script>"}, 422, None),
    ({"first_name": "x" * 5000}, 422, None),
    ({"requests": "y" * 501}, 422, None),
    ({"email": "not an email"}, 422, None),
    ({"card_id": "card9"}, 404, "card"),
    ({"room_id": "r999"}, 404, "room"),
    ({"hotel_id": "h999"}, 404, "hotel"),
    ({"accept_terms": False}, 422, "accept"),
    ({"promo_code": "NOPE"}, 422, "isn't valid"),
    ({"surprise": 1}, 422, None),
])
async def test_bad_bookings_are_refused_and_change_nothing(world: tuple[Any, Any], changes: dict[str, Any],
                                                           status: int, words: str | None) -> None:
    app, episode = world
    book = episode.bindings["book"]
    if changes.get("check_out") == "swap":
        changes = {"check_in": book["check_out"], "check_out": book["check_in"]}
        words = "after check-in"
    before = episode.state_bytes()
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/bookings", json=booking_body(book, **changes))
    assert response.status_code == status, response.text
    if words:
        assert words in response.json()["detail"]
    assert episode.state_bytes() == before and not commits(episode)


async def test_expired_promo_and_sold_out_room(world: tuple[Any, Any]) -> None:
    app, episode = world
    book, fallback = episode.bindings["book"], episode.bindings["fallback"]
    before = episode.state_bytes()
    async with client_for(app, episode.id) as client:
        expired = await client.post("/api/bookings", json=booking_body(book, promo_code=book["expired_code"]))
        assert expired.status_code == 422 and "expired" in expired.json()["detail"]
        sold = await client.post("/api/bookings", json=booking_body(fallback, room_id=fallback["first_room_id"]))
        assert sold.status_code == 409 and "sold out" in sold.json()["detail"]
    assert episode.state_bytes() == before and not commits(episode)


async def test_change_dates_then_cancel(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, change, cancel = episode.state, episode.bindings["change"], episode.bindings["cancel"]
    async with client_for(app, episode.id) as client:
        moved = await client.put(f"/api/bookings/{change['booking_id']}/dates",
                                 json={"check_in": change["check_in"], "check_out": change["check_out"]})
        assert moved.status_code == 200, moved.text
        again = await client.put(f"/api/bookings/{change['booking_id']}/dates",
                                 json={"check_in": change["check_in"], "check_out": change["check_out"]})
        assert again.status_code == 409
        reversed_ = await client.put(f"/api/bookings/{change['booking_id']}/dates",
                                     json={"check_in": change["check_out"], "check_out": change["check_in"]})
        assert reversed_.status_code == 422
        done = await client.post(f"/api/bookings/{cancel['booking_id']}/cancel")
        assert done.status_code == 200 and done.json()["booking"]["refund_cents"] > 0
        twice = await client.post(f"/api/bookings/{cancel['booking_id']}/cancel")
        assert twice.status_code == 409
        missing = await client.post("/api/bookings/b999/cancel")
        assert missing.status_code == 404
    booking = state.booking(change["booking_id"])
    assert booking and (booking.check_in, booking.check_out) == (change["check_in"], change["check_out"])
    kept = state.booking(cancel["keep_id"])
    assert kept and kept.status == "confirmed"
    assert [e.name for e in commits(episode)] == ["change_dates", "cancel_booking"]


async def test_flight_booking(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, fl = episode.state, episode.bindings["flight"]
    flight = state.flight(fl["flight_id"])
    assert flight is not None
    seats = flight.seats
    async with client_for(app, episode.id) as client:
        bad = await client.post("/api/flight-bookings", json={"flight_id": "f999", "first_name": "A",
                                                              "last_name": "B", "card_id": "card1"})
        assert bad.status_code == 404
        ok = await client.post("/api/flight-bookings", json={"flight_id": flight.id, "first_name": "Ada",
                                                             "last_name": "Lovelace", "card_id": "card1"})
        assert ok.status_code == 201
    assert flight.seats == seats - 1 and state.flight_bookings[0].passenger == "Ada Lovelace"


async def test_requests_outside_an_episode_or_signed_out(world: tuple[Any, Any]) -> None:
    app, episode = world
    async with client_for(app, None) as client:
        assert (await client.post("/api/bookings", json={})).status_code == 400
    episode.signed_in = False
    async with client_for(app, episode.id) as client:
        cancel = await client.post(f"/api/bookings/{episode.bindings['cancel']['booking_id']}/cancel")
        assert cancel.status_code == 401
        page = await client.get("/trips")
        assert page.status_code == 303 and page.headers["location"].startswith("/login?next=")
    assert not commits(episode)

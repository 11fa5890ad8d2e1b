"""The later features, each on only in its own focus's world: receipts, trip sharing, fares with seats and
bags, fare upgrades, online check-in with a passport scan, fare holds, a streamed flight search, hotels full on
a night; and the bindings of the tasks on them agree with the pages. In every other world they answer 404 and
leave the state's JSON as it was."""

import base64
import json
from datetime import date
from typing import Any

import pytest

from sites.kit.templating import format_cents
from sites.travel.generator import ACTION_FOCUSES, LATER_FOCUSES, QUESTION_FOCUSES
from sites.travel.rules import BAG_CENTS, FARE_EXTRA_CENTS, free_seats, seat_kind, stream_order, taken_seats

from . import Doc, client_for, new_world

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()
LATER_FIELDS = ("folio", "shares", "uploads", "holds", "full_nights", "fares", "streaming")


def world(focus: str, seed: int = 3) -> tuple[Any, Any, dict[str, Any]]:
    app, _store, episode = new_world(seed, focus=focus)
    return app, episode, episode.bindings[focus]


@pytest.mark.parametrize("focus", [*ACTION_FOCUSES, *QUESTION_FOCUSES])
def test_worlds_without_a_later_feature_leave_it_out_of_their_json(focus: str) -> None:
    state = json.loads(new_world(2, focus=focus)[2].state.model_dump_json())
    assert not set(LATER_FIELDS) & set(state)
    assert all(not set(fb) & {"fare", "seat", "bags", "checked_in_at"} for fb in state["flight_bookings"])


@pytest.mark.parametrize("focus", LATER_FOCUSES)
@pytest.mark.parametrize("seed", range(1, 6))
def test_every_later_focus_names_its_target(focus: str, seed: int) -> None:
    episode = new_world(seed, focus=focus)[2]
    assert episode.bindings["target"]["id"] and episode.bindings["target"]["name"]


async def test_later_pages_and_api_are_404_in_a_world_without_them() -> None:
    app, _store, episode = new_world(2)
    past = next(b for b in episode.state.bookings if b.status == "completed")
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"/trips/{past.id}/receipt")).status_code == 404
        assert "Download receipt" not in (await client.get(f"/trips/{past.id}")).text
        assert (await client.post(f"/api/bookings/{past.id}/shares",
                                  json={"email": "a@b.test", "access": "view"})).status_code == 404
        assert (await client.post("/api/fare-holds", json={"flight_id": "f001"})).status_code == 404
        assert (await client.get("/api/flights/stream?from=LIS&to=BCN&date=2026-01-01&batch=1")).status_code == 404
        assert (await client.post("/api/uploads", json={"name": "p.png", "content_type": "image/png",
                                                        "data": PNG})).status_code == 404
        refused = await client.post("/api/flight-bookings", json={
            "flight_id": "f001", "first_name": "A", "last_name": "B", "card_id": "card1", "fare": "flex"})
        assert refused.status_code == 422


async def test_a_receipt_adds_the_charges_at_check_out_and_downloads_as_a_file() -> None:
    app, episode, asked = world("receipt")
    async with client_for(app, episode.id) as client:
        trip = Doc((await client.get(f"/trips/{asked['booking_id']}")).text)
        assert trip.links("Download receipt")
        upcoming = next(b for b in episode.state.bookings if b.status == "confirmed")
        assert not Doc((await client.get(f"/trips/{upcoming.id}")).text).links("Download receipt")
        assert (await client.get(f"/trips/{upcoming.id}/receipt")).status_code == 404
        got = await client.get(f"/trips/{asked['booking_id']}/receipt")
        assert got.status_code == 200 and "attachment" in got.headers["content-disposition"]
        total = Doc(got.text).named("tr", "Total paid")
        assert len(total) == 1 and format_cents(asked["total_cents"], "$") in total[0].text
    assert asked["total_cents"] > asked["booked_cents"]


async def test_sharing_a_trip_and_stopping_it() -> None:
    app, episode, asked = world("share")
    path = f"/api/bookings/{asked['booking_id']}/shares"
    async with client_for(app, episode.id) as client:
        assert (await client.post(path, json={"email": episode.state.user.email, "access": "view"})).status_code == 422
        assert (await client.post(path, json={"email": "not-an-address", "access": "view"})).status_code == 422
        made = await client.post(path, json={"email": asked["email"], "access": "view"})
        assert made.status_code == 201
        assert (await client.post(path, json={"email": asked["email"], "access": "edit"})).status_code == 409
        page = Doc((await client.get(f"/trips/{asked['booking_id']}")).text)
        assert page.buttons(f"Stop sharing with {asked['email']}")
        share_id = made.json()["share"]["id"]
        assert (await client.delete(f"{path}/{share_id}")).status_code == 200
        assert (await client.delete(f"{path}/{share_id}")).status_code == 404
    assert episode.state.shares == []


async def test_a_mistyped_share_is_there_to_fix() -> None:
    app, episode, asked = world("reshare")
    assert asked["wrong_email"] != asked["email"]
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/trips/{asked['booking_id']}")).text)
    assert page.buttons(f"Stop sharing with {asked['wrong_email']}")


async def test_fares_seats_and_bags_price_a_flight_and_only_standard_goes_to_flex() -> None:
    app, episode, asked = world("seat_bag")
    flight = episode.state.flight(asked["flight_id"])
    assert flight is not None and asked["seat"] in free_seats(flight) and seat_kind(asked["seat"]) == "window"
    body = {"flight_id": flight.id, "first_name": "Ada", "last_name": "Lovelace", "card_id": "card1"}
    taken = sorted(taken_seats(flight))[0]
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/flights/{flight.id}/book")).text)
        assert [e for e in page.all("input") if e.attrs.get("aria-label") == f"Seat {asked['seat']}, window"]
        assert (await client.post("/api/flight-bookings", json=body)).status_code == 422  # no fare chosen
        assert (await client.post("/api/flight-bookings", json={**body, "fare": "basic", "seat": asked["seat"]})
                ).status_code == 422
        assert (await client.post("/api/flight-bookings", json={**body, "fare": "standard", "seat": taken})
                ).status_code == 409
        assert (await client.post("/api/flight-bookings", json={**body, "fare": "standard", "bags": 9})
                ).status_code == 422
        made = await client.post("/api/flight-bookings",
                                 json={**body, "fare": "standard", "seat": asked["seat"], "bags": 1})
        assert made.status_code == 201
        booked = made.json()["flight_booking"]
        assert booked["total_cents"] == asked["total_cents"] == (
            flight.price_cents + FARE_EXTRA_CENTS["standard"] + BAG_CENTS)
        managed = Doc((await client.get(f"/flight-trips/{booked['id']}")).text)
        assert format_cents(asked["total_cents"], "$") in managed.named("p", "Total paid")[0].text
        upgraded = await client.post(f"/api/flight-bookings/{booked['id']}/upgrade")
        assert upgraded.status_code == 200 and upgraded.json()["flight_booking"]["fare"] == "flex"
        assert (await client.post(f"/api/flight-bookings/{booked['id']}/upgrade")).status_code == 409


async def test_a_basic_fare_says_it_cannot_be_upgraded_and_is_refused() -> None:
    app, episode, asked = world("basic_upgrade")
    async with client_for(app, episode.id) as client:
        trips = Doc((await client.get("/trips")).text)
        assert trips.links(f"Manage flight {asked['number']}") and trips.links(f"Manage flight {asked['other_number']}")
        page = await client.get(f"/flight-trips/{asked['flight_booking_id']}")
        assert "Basic fares can't be upgraded" in page.text and "Upgrade to Flex" not in page.text
        assert (await client.post(f"/api/flight-bookings/{asked['flight_booking_id']}/upgrade")).status_code == 409
        assert "Upgrade to Flex" in (await client.get(f"/flight-trips/{asked['other_id']}")).text


async def test_check_in_opens_the_day_before_and_takes_a_passport_scan() -> None:
    app, episode, asked = world("flight_check_in")
    path = f"/api/flight-bookings/{asked['flight_booking_id']}/check-in"
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/flight-trips/{asked['flight_booking_id']}")).text)
        assert page.labelled("Passport scan").attrs["type"] == "file"
        later = await client.get(f"/flight-trips/{asked['other_id']}")
        assert "Online check-in opens 48 hours before departure" in later.text
        assert (await client.post(path, json={"passport_upload": "up999"})).status_code == 422
        bad = await client.post("/api/uploads", json={"name": "p.png", "content_type": "image/png",
                                                      "data": base64.b64encode(b"GIF89a").decode()})
        assert bad.status_code == 422
        scan = await client.post("/api/uploads", json={"name": asked["passport_file"], "content_type": "image/png",
                                                       "data": PNG})
        assert scan.status_code == 201
        upload_id = scan.json()["upload"]["id"]
        assert (await client.post(f"/api/flight-bookings/{asked['other_id']}/check-in",
                                  json={"passport_upload": upload_id})).status_code == 409
        done = await client.post(path, json={"passport_upload": upload_id})
        assert done.status_code == 200 and done.json()["flight_booking"]["seat"]
        assert (await client.post(path, json={"passport_upload": upload_id})).status_code == 409


async def test_a_fare_is_held_once() -> None:
    app, episode, asked = world("hold")
    async with client_for(app, episode.id) as client:
        assert "Hold this fare for 72 hours" in (await client.get(f"/flights/{asked['flight_id']}/book")).text
        made = await client.post("/api/fare-holds", json={"flight_id": asked["flight_id"]})
        assert made.status_code == 201
        assert (await client.post("/api/fare-holds", json={"flight_id": asked["flight_id"]})).status_code == 409
        assert "Fare held until" in (await client.get(f"/flights/{asked['flight_id']}/book")).text
    assert episode.state.flight_bookings == []


async def test_a_streamed_search_shows_one_airline_then_the_rest_with_the_cheapest_last() -> None:
    app, episode, asked = world("stream")
    state = episode.state
    order = stream_order(state, asked["origin"], asked["destination"], asked["date"])
    query = f"from={asked['origin']}&to={asked['destination']}&date={asked['date']}"
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/flights?{query}")).text)
        shown = {e.attrs["aria-label"].rsplit(" ", 1)[0] for e in page.all("article")}
        assert shown == {order[0]} and page.role("group")[0].attrs["aria-label"] == "Cheapest fare"
        seen = []
        for batch in range(1, len(order)):
            got = (await client.get(f"/api/flights/stream?{query}&batch={batch}")).json()
            assert got["airline"] == order[batch] and got["done"] == (batch == len(order) - 1)
            seen += got["flights"]
        assert min(f["price_cents"] for f in seen) == asked["price_cents"]
        assert (await client.get(f"/api/flights/stream?{query}&batch=x")).status_code == 422
    assert order[-1] == asked["airline"]


async def test_a_hotel_full_on_one_night_cannot_be_booked_and_the_next_best_rated_can() -> None:
    app, episode, asked = world("full_night")
    state = episode.state
    stay = f"check_in={asked['check_in']}&check_out={asked['check_out']}&guests=2&rooms=1"
    async with client_for(app, episode.id) as client:
        full = await client.get(f"/hotels/{asked['hotel_id']}?{stay}")
        assert "Fully booked on" in full.text
        assert not [e for e in Doc(full.text).all("a") if e.attrs.get("aria-label", "").startswith("Reserve ")]
        room = state.rooms_of(asked["hotel_id"])[0]
        assert (await client.get(f"/book?hotel={asked['hotel_id']}&room={room.id}&{stay}")).status_code == 409
        ranked = Doc((await client.get(f"/hotels?city={asked['city']}&{stay}&stars=4&sort=rating")).text)
        names = [e.attrs["aria-label"] for e in ranked.all("article")]
        assert names[:2] == [asked["hotel_name"], asked["backup_name"]]
        backup = Doc((await client.get(f"/hotels/{asked['backup_id']}?{stay}")).text)
        assert backup.links(f"Reserve {asked['room_name']}, free cancellation")
    night = date.fromisoformat(asked["full_night"])
    assert date.fromisoformat(asked["check_in"]) <= night < date.fromisoformat(asked["check_out"])


async def test_the_stay_points_and_three_days_bindings_agree_with_the_pages() -> None:
    app, episode, asked = world("stay_points")
    async with client_for(app, episode.id) as client:
        rows = [e for e in Doc((await client.get("/rewards")).text).all("tr") if f"({asked['reference']})" in e.text]
    assert len(rows) == 1 and rows[0].text.endswith(f"+{asked['points']:,}")
    app, episode, days = world("three_days")
    flights = [f for f in episode.state.flights if (f.origin, f.destination) == (days["origin"], days["destination"])
               and f.date in (days["first_date"], days["second_date"], days["third_date"]) and f.stops == 0]
    cheapest = sorted(flights, key=lambda f: f.price_cents)
    assert cheapest[0].id == days["flight_id"] and cheapest[1].price_cents > cheapest[0].price_cents


@pytest.mark.parametrize("seed", range(1, 6))
def test_rooms_and_two_city_bindings_can_be_booked(seed: int) -> None:
    state, bindings = (lambda e: (e.state, e.bindings))(new_world(seed, focus="two_rooms")[2])
    rooms = bindings["two_rooms"]
    room = state.room(rooms["room_id"])
    assert room and room.refundable and room.available >= 2 and room.sleeps * 2 >= 4
    state, bindings = (lambda e: (e.state, e.bindings))(new_world(seed, focus="multi_city")[2])
    trip = bindings["multi_city"]
    assert trip["first_check_out"] == trip["second_check_in"] and trip["first_city"] != trip["second_city"]
    for key in ("first", "second"):
        cheapest = next(r for r in state.rooms_of(trip[f"{key}_hotel_id"]) if r.refundable and r.available > 0)
        assert cheapest.id == trip[f"{key}_room_id"]


@pytest.mark.parametrize("seed", range(1, 6))
def test_a_route_flown_only_with_a_stop_has_no_nonstop_that_day(seed: int) -> None:
    asked = new_world(seed, focus="connections_only")[2].bindings["connections_only"]
    state = new_world(seed, focus="connections_only")[2].state
    day = [f for f in state.flights if (f.origin, f.destination, f.date) == (asked["origin"], asked["destination"],
                                                                             asked["date"])]
    assert day and all(f.stops == 1 for f in day) and asked["connecting"] == len(day)


async def test_the_standard_fare_upgrade_costs_what_the_binding_says() -> None:
    app, episode, asked = world("standard_upgrade")
    async with client_for(app, episode.id) as client:
        done = await client.post(f"/api/flight-bookings/{asked['other_id']}/upgrade")
        assert done.status_code == 200
        page = Doc((await client.get(f"/flight-trips/{asked['other_id']}")).text)
    assert format_cents(asked["other_total_after_cents"], "$") in page.named("p", "Total paid")[0].text
    assert page.named("h2", "Flex fare rules")


async def test_the_receipts_tell_which_past_stay_cost_more() -> None:
    app, episode, asked = world("receipt")
    totals = {}
    async with client_for(app, episode.id) as client:
        for past in (b for b in episode.state.bookings if b.status == "completed"):
            receipt = Doc((await client.get(f"/trips/{past.id}/receipt")).text)
            paid = receipt.named("tr", "Total paid")[0].text
            totals[receipt.all("h2")[0].text] = int("".join(c for c in paid if c.isdigit()))
    assert max(totals, key=lambda hotel: totals[hotel]) == asked["dearer_hotel"]
    assert min(totals, key=lambda hotel: totals[hotel]) == asked["cheaper_hotel"]


async def test_a_stay_shared_with_two_people_lists_both_and_not_the_other_stays_companion() -> None:
    app, episode, asked = world("shared_with")
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/trips/{asked['booking_id']}")).text)
    listed = sorted(e.text for e in page.all("td") if "@" in e.text)
    assert listed == asked["emails"] and asked["other_email"] not in listed

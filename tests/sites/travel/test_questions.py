"""The question tasks' worlds and pages: each focus's binding is what its page shows under the accessible
name the task's plan reads, other focuses' worlds stay as they were, and bad query values are 4xx."""


import pytest

from sites.travel.generator import ACTION_FOCUSES, QUESTION_FOCUSES
from sites.travel.pages import money

from . import Doc, client_for, new_world, stay_query


def cell_named(doc: Doc, label: str) -> str:
    """The text of the table cell labelled by the row header with this text."""
    header = next(e for e in doc.all("th") if e.text == label)
    return next(e.text for e in doc.all("td") if e.attrs.get("aria-labelledby") == header.attrs["id"])


@pytest.mark.parametrize("focus", QUESTION_FOCUSES)
def test_a_question_focus_adds_its_binding_group_and_nothing_else(focus: str) -> None:
    asked = new_world(4, focus=focus)[2]
    plain = new_world(4, focus="book")[2]
    assert asked.state_bytes() == plain.state_bytes()
    assert set(asked.bindings) - set(plain.bindings) == {focus}
    assert {k: v for k, v in asked.bindings.items() if k not in (focus, "target")} == {
        k: v for k, v in plain.bindings.items() if k != "target"}
    assert set(QUESTION_FOCUSES).isdisjoint(ACTION_FOCUSES)


async def test_stay_total_is_the_total_on_the_room_of_the_hotel_page() -> None:
    app, _store, episode = new_world(1, focus="stay_total")
    asked, state = episode.bindings["stay_total"], episode.state
    hotel = state.hotel(asked["hotel_id"])
    assert hotel is not None and hotel.resort_fee_cents > 0  # the list's nightly rate is far from the total
    async with client_for(app, episode.id) as client:
        page = await client.get(f"/hotels/{hotel.id}?{stay_query(asked)}")
    assert page.status_code == 200
    room = Doc(page.text).named("article", f"{asked['room_name']}, free cancellation")
    assert len(room) == 1
    assert f"{money(asked['total_cents'])} total for {asked['nights']} nights" in room[0].text
    assert asked["total_cents"] > asked["nightly_cents"] * asked["nights"]


async def test_the_trip_page_states_check_in_and_check_out_days_in_full() -> None:
    app, _store, episode = new_world(1, focus="check_in")
    asked = episode.bindings["check_in"]
    booking = episode.state.booking(asked["booking_id"])
    assert booking is not None and booking.check_in == asked["check_in"]
    async with client_for(app, episode.id) as client:
        page = await client.get(f"/trips/{booking.id}")
    assert page.status_code == 200
    doc = Doc(page.text)
    day, month, year = asked["check_in"][8:].lstrip("0"), "JanFebMarAprMayJunJulAugSepOctNovDec", asked["check_in"][:4]
    name = month[(int(asked["check_in"][5:7]) - 1) * 3:][:3]
    assert cell_named(doc, "Check-in").split(", ")[0].endswith(f"{day} {name} {year}")
    assert cell_named(doc, "Check-in").endswith(f"from {asked['check_in_from']}")
    assert cell_named(doc, "Check-out").endswith(f"until {episode.state.hotel(booking.hotel_id).check_out_until}")  # type: ignore[union-attr]
    # The other stay in the same city is another trip: the question names its hotel.
    same_city = [b for b in episode.state.bookings if b.status == "confirmed"
                 and episode.state.hotel(b.hotel_id).city == asked["city"]]  # type: ignore[union-attr]
    assert len(same_city) == 2


async def test_a_past_stay_is_listed_with_its_reference() -> None:
    app, _store, episode = new_world(2, focus="past_reference")
    asked = episode.bindings["past_reference"]
    async with client_for(app, episode.id) as client:
        page = await client.get("/trips")
    stay = Doc(page.text).named("article", f"{asked['hotel_name']}, {asked['dates_text']}")
    assert len(stay) == 1 and f"ref. {asked['reference']}" in stay[0].text
    assert episode.state.booking(asked["booking_id"]).status == "completed"  # type: ignore[union-attr]


async def test_nonstop_only_lists_the_nonstop_flights_and_their_airlines() -> None:
    app, _store, episode = new_world(1, focus="nonstop_airlines")
    asked = episode.bindings["nonstop_airlines"]
    route = f"/flights?from={asked['origin']}&to={asked['destination']}&date={asked['date']}"
    async with client_for(app, episode.id) as client:
        every = Doc((await client.get(route)).text)
        nonstop = await client.get(route + "&nonstop=1")
    assert nonstop.status_code == 200
    doc = Doc(nonstop.text)
    flights = [a for a in doc.all("article") if a.attrs.get("aria-label", "") and "tv-flight" in a.attrs["class"]]
    assert flights and all("Nonstop" in a.text and "1 stop" not in a.text for a in flights)
    # Each flight is an article named "<airline> <number>" (what the task's answer step reads).
    assert {a.attrs["aria-label"].rsplit(" ", 1)[0] for a in flights} == set(asked["airlines"])
    assert len(every.all("article")) > len(flights)
    assert doc.links("Nonstop only") and doc.links("Any number of stops")
    assert "nonstop=1" in doc.links("Cheapest")[0].attrs["href"]  # sorting keeps the filter


async def test_the_unserved_route_has_no_flight_on_any_day_but_its_way_back_is_flown() -> None:
    app, _store, episode = new_world(3, focus="unserved_route")
    asked, state = episode.bindings["unserved_route"], episode.state
    assert not [f for f in state.flights if (f.origin, f.destination) == (asked["origin"], asked["destination"])]
    assert [f for f in state.flights if (f.origin, f.destination, f.date) == (
        asked["destination"], asked["origin"], asked["date"])]
    async with client_for(app, episode.id) as client:
        page = await client.get(f"/flights?from={asked['origin']}&to={asked['destination']}&date={asked['date']}")
    assert page.status_code == 200 and "No flights on this day" in page.text


@pytest.mark.parametrize("query", ["nonstop=yes", "nonstop=0", "nonstop=1&sort=stops"])
async def test_bad_flight_filters_are_400(query: str) -> None:
    app, _store, episode = new_world(1, focus="nonstop_airlines")
    asked = episode.bindings["nonstop_airlines"]
    async with client_for(app, episode.id) as client:
        page = await client.get(f"/flights?from={asked['origin']}&to={asked['destination']}&date={asked['date']}"
                                f"&{query}")
    assert page.status_code == 400


async def test_an_unknown_trip_is_404() -> None:
    app, _store, episode = new_world(1, focus="check_in")
    async with client_for(app, episode.id) as client:
        assert (await client.get("/trips/b999")).status_code == 404
        assert (await client.get("/trips/%3Cscript%3E")).status_code == 404


def test_question_focuses_are_seeded() -> None:
    for focus in QUESTION_FOCUSES:
        first, again = new_world(5, focus=focus)[2], new_world(5, focus=focus)[2]
        assert first.bindings == again.bindings



"""Server-rendered pages: search with filters, sorting and paging; key facts only on the hotel
page; the booking steps; trips; and 4xx for bad query values."""

from typing import Any

from sites.travel.models import PAGE_SIZE
from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world, stay_query

world = world_fixture(new_world, seed=2)


def hotel_links(doc: Doc) -> list[str]:
    return [e.attrs["href"].split("?")[0] for e in doc.all("a") if e.attrs.get("aria-label", "").startswith(
        "See availability at ")]


async def test_results_filter_sort_and_page(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, city = episode.state, episode.bindings["resort"]["city"]
    in_city = sorted((h for h in state.hotels if h.city == city), key=lambda h: (h.rank, h.id))
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/hotels", params={"city": city})).text)
        assert hotel_links(first) == [f"/hotels/{h.id}" for h in in_city[:PAGE_SIZE]]
        assert first.links("Next page") and first.named("h1", f"Stays in {city}")
        second = Doc((await client.get("/hotels", params={"city": city, "page": "2"})).text)
        assert hotel_links(second) == [f"/hotels/{h.id}" for h in in_city[PAGE_SIZE:2 * PAGE_SIZE]]
        four = Doc((await client.get("/hotels", params={"city": city, "stars": "4"})).text)
        assert sorted(hotel_links(four)) == sorted(f"/hotels/{h.id}" for h in in_city if h.stars == 4)
        cheap = Doc((await client.get("/hotels", params={"city": city, "sort": "price"})).text)
        prices = [int(e.text.replace("$", "").replace(",", "").replace(".", "")) for e in cheap.all("b")
                  if e.text.startswith("$")]
        assert prices == sorted(prices) and len(prices) == PAGE_SIZE
        free_pool = {"city": city, "free_cancellation": "1", "amenity": "pool"}
        free = Doc((await client.get("/hotels", params=free_pool)).text)
        for href in hotel_links(free):
            hotel = state.hotel(href.rsplit("/", 1)[1])
            assert hotel and "pool" in hotel.amenities
        for bad in ({"city": "Atlantis"}, {"city": ""}, {"city": city, "sort": "x"}, {"city": city, "stars": "9"},
                    {"city": city, "max_price": "7"}, {"city": city, "page": "0"}, {"city": city, "page": "99"},
                    {"city": city, "check_in": "2020-01-01", "check_out": "2020-01-02"},
                    {"city": city, "check_in": "soon", "check_out": "later"}, {"city": city, "guests": "-2",
                                                                               "check_in": "x"}):
            response = await client.get("/hotels", params=bad)
            assert 400 <= response.status_code < 500, (bad, response.status_code)
            assert "Wayfarer" in response.text
    assert [e.name for e in episode.events if e.kind == "search"][:1] == ["search_hotels"]


async def test_key_facts_only_on_the_hotel_page(world: tuple[Any, Any]) -> None:
    app, episode = world
    ref, resort = episode.bindings["refundable"], episode.bindings["resort"]
    async with client_for(app, episode.id) as client:
        listing = (await client.get(f"/hotels?city={ref['city']}&{stay_query(ref)}")).text
        for fact in ("Non-refundable", "Taxes:", "resort fee", "m²", "incl. taxes"):
            assert fact.lower() not in listing.lower(), fact
        page = Doc((await client.get(f"/hotels/{ref['hotel_id']}?{stay_query(ref)}")).text)
        text = " ".join(e.text for e in page.all("main"))
        assert "Non-refundable" in text and "Taxes:" in text and "m²" in text and "incl. taxes and fees" in text
        assert page.links(f"Reserve {ref['room_name']}, free cancellation")
        assert page.links(f"Reserve {ref['room_name']}, non-refundable")
        no_fee = (await client.get(f"/hotels/{resort['hotel_id']}")).text
        assert "No resort fee." in no_fee
        other = (await client.get(f"/hotels/{resort['hard_negative_ids'][0]}")).text
        assert "No resort fee" not in other and "Resort fee:" in other
        undated = Doc((await client.get(f"/hotels/{ref['hotel_id']}")).text)
        assert not [e for e in undated.all("a") if e.attrs.get("aria-label", "").startswith("Reserve ")]
    assert next(e.detail["revealed"] for e in episode.events if e.name == "view_hotel")[0] == "cancellation_policy"


async def test_booking_steps_and_trips(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, fb, cancel = episode.state, episode.bindings["fallback"], episode.bindings["cancel"]
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/book?hotel={fb['hotel_id']}&room={fb['room_id']}&{stay_query(fb)}")).text)
        assert page.buttons("Continue to payment") and page.buttons("Continue to review")
        assert page.buttons("Confirm booking") and page.labelled("Promo code").tag == "input"
        assert page.labelled("Visa ending in " + state.cards[0].last4).attrs.get("checked") == ""
        sold = await client.get(f"/book?hotel={fb['hotel_id']}&room={fb['first_room_id']}&{stay_query(fb)}")
        assert sold.status_code == 409 and "sold out" in sold.text
        wrong = await client.get(f"/book?hotel={fb['hotel_id']}&room={episode.bindings['book']['room_id']}"
                                 f"&{stay_query(fb)}")
        assert wrong.status_code == 404
        trips = Doc((await client.get("/trips")).text)
        assert len(trips.links("Manage booking")) == sum(1 for x in state.bookings if x.status == "confirmed")
        assert len(trips.links("View booking")) == sum(1 for x in state.bookings if x.status == "completed")
        trip = Doc((await client.get(f"/trips/{cancel['booking_id']}")).text)
        assert trip.buttons("Cancel booking") and trip.buttons("Yes, cancel booking")
        assert trip.labelled("New check-in").attrs["value"] == state.booking(cancel["booking_id"]).check_in  # type: ignore[union-attr]
        assert (await client.get("/trips/b999")).status_code == 404
        rewards = (await client.get("/rewards")).text
        assert state.loyalty.offer_code in rewards
        fl = episode.bindings["flight"]
        flights = Doc((await client.get(f"/flights?from={fl['origin']}&to={fl['destination']}&date={fl['date']}")).text)
        assert flights.links(f"Select {fl['airline']} {fl['number']}")
        for bad in (f"from={fl['origin']}&to={fl['origin']}&date={fl['date']}", "from=XXX&to=LIS&date=2025-01-01",
                    f"from={fl['origin']}&to={fl['destination']}&date=yesterday",
                    f"from={fl['origin']}&to={fl['destination']}&date=1990-01-01"):
            assert (await client.get(f"/flights?{bad}")).status_code == 400, bad

"""Bindings of the travel tasks that ask a question (their expected answer) or ask for what the world lacks.

Each reads the finished state the pages render, so a page and its binding cannot disagree; the generator
calls one of these only for its own focus, after every other draw, so no other focus's world changes.
"""

from datetime import date
from random import Random
from typing import Any

from sites.kit.dates import MONTH_NAMES, day_month_year
from sites.travel.models import PAGE_SIZE, Booking, Flight, TravelState, dates_text, quote


def _first_page(state: TravelState, city: str) -> list[str]:
    ranked = sorted((h for h in state.hotels if h.city == city), key=lambda h: (h.rank, h.id))
    return [h.id for h in ranked[:PAGE_SIZE]]


def stay_total(state: TravelState, rng: Random, stay: dict[str, Any], avoid: set[str]) -> dict[str, Any]:
    """A hotel that charges a resort fee, on the first page of its city, and one of its dearer free-cancellation
    rooms: the total for the stay (taxes and fee included) is what its hotel page shows."""
    shown = {hotel_id for city in state.cities for hotel_id in _first_page(state, city)}
    candidates = [h for h in state.hotels if h.resort_fee_cents > 0 and h.id in shown and h.id not in avoid
                  and sum(1 for r in state.rooms_of(h.id) if r.refundable and r.available > 0) >= 2]
    hotel = rng.choice(candidates)
    room = rng.choice([r for r in state.rooms_of(hotel.id) if r.refundable and r.available > 0][1:])
    priced = quote(hotel, room, stay["nights"], 1)
    return {**stay, "hotel_id": hotel.id, "hotel_name": hotel.name, "city": hotel.city, "room_id": room.id,
            "room_name": room.name, "total_cents": priced.total_cents, "nightly_cents": priced.nightly_cents}


def trip_check_in(state: TravelState, booking: Booking) -> dict[str, Any]:
    """An upcoming stay's check-in date (the trip page states it in full)."""
    hotel = state.hotel(booking.hotel_id)
    assert hotel is not None
    return {"booking_id": booking.id, "hotel_name": hotel.name, "city": hotel.city, "check_in": booking.check_in,
            "check_in_from": hotel.check_in_from, "dates_text": dates_text(booking.check_in, booking.check_out)}


def past_reference(state: TravelState, rng: Random) -> dict[str, Any]:
    """A past stay's booking reference (listed with it under Past stays)."""
    past = rng.choice(sorted((b for b in state.bookings if b.status == "completed"), key=lambda b: b.id))
    hotel = state.hotel(past.hotel_id)
    assert hotel is not None
    return {"booking_id": past.id, "reference": past.reference, "hotel_name": hotel.name, "city": hotel.city,
            "check_in": past.check_in, "month_text": _month_year(past.check_in),
            "dates_text": dates_text(past.check_in, past.check_out)}


def nonstop_airlines(state: TravelState, origin: str, destination: str, day: str) -> dict[str, Any]:
    """The airlines with a nonstop flight on a route and day (the flight search, nonstop only, lists them)."""
    flights = [f for f in state.flights if (f.origin, f.destination, f.date) == (origin, destination, day)]
    return {**_route(state, origin, destination, day),
            "airlines": sorted({f.airline for f in flights if f.stops == 0}),
            "one_stop_only": sorted({f.airline for f in flights if f.stops} - {f.airline for f in flights
                                                                                 if f.stops == 0})}


def unserved_route(state: TravelState, day: str) -> dict[str, Any]:
    """A route nobody flies on any day, whose way back is flown on `day` (the near miss): the first served
    route whose reverse is not, else the first pair of airports with no flight at all."""
    served = _served(state.flights)
    pairs = [(a, b) for a in state.airports for b in state.airports if a != b]
    reversed_ = [(b, a) for a, b in sorted(served) if (b, a) not in served]
    origin, destination = (reversed_ or [p for p in pairs if p not in served])[0]
    return {**_route(state, origin, destination, day), "way_back_served": (destination, origin) in served}


def _month_year(iso: str) -> str:
    """'May 2025'"""
    day = date.fromisoformat(iso)
    return f"{MONTH_NAMES[day.month - 1]} {day.year}"


def _served(flights: list[Flight]) -> set[tuple[str, str]]:
    return {(f.origin, f.destination) for f in flights}


def _route(state: TravelState, origin: str, destination: str, day: str) -> dict[str, Any]:
    return {"origin": origin, "destination": destination, "origin_city": state.airports[origin],
            "destination_city": state.airports[destination], "date": day,
            "date_text": day_month_year(date.fromisoformat(day))}

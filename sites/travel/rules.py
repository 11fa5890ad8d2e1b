"""Rules of the later Wayfarer features, shared by the pages, the API and the generator (so a binding and
the page it is read from cannot disagree): fares and their supplements, seats, bags, check-in, fare holds,
the order in which a streamed search hears from airlines, and nights a hotel is full."""

import hashlib
from datetime import date, timedelta

from sites.travel.models import Booking, Flight, TravelState

FARES: dict[str, str] = {"basic": "Basic", "standard": "Standard", "flex": "Flex"}
FARE_EXTRA_CENTS: dict[str, int] = {"basic": 0, "standard": 3500, "flex": 9000}
FARE_RULES: dict[str, str] = {
    "basic": "Cabin bag only. Seat assigned at check-in. Can't be changed, upgraded or refunded.",
    "standard": "Choose your seat. Changes for a fee. Can be upgraded to Flex.",
    "flex": "Choose your seat. Free changes. Refundable.",
}
BAG_CENTS = 3500  # each checked bag, on any fare
SEAT_ROWS = 12
SEAT_LETTERS = "ABCDEF"
CHECK_IN_OPENS_H = 48  # before departure
HOLD_HOURS = 72
HOLD_CONFIRMED_IN_S = 2.0  # the airline confirms a hold after a moment
STREAM_BATCH_IN_S = 1.0  # each airline's results take a moment to arrive


def seat_kind(seat: str) -> str:
    return "window" if seat[-1] in "AF" else "aisle" if seat[-1] in "CD" else "middle"


def taken_seats(flight: Flight) -> set[str]:
    """Seats other travellers hold: fixed per flight (a digest of its id, so every page agrees)."""
    taken = set()
    for row in range(1, SEAT_ROWS + 1):
        for letter in SEAT_LETTERS:
            seat = f"{row}{letter}"
            if hashlib.sha256(f"{flight.id}:{seat}".encode()).digest()[0] < 150:
                taken.add(seat)
    return taken


def seat_map(flight: Flight) -> list[list[tuple[str, bool]]]:
    """Rows of (seat, free)."""
    taken = taken_seats(flight)
    return [[(f"{row}{x}", f"{row}{x}" not in taken) for x in SEAT_LETTERS] for row in range(1, SEAT_ROWS + 1)]


def free_seats(flight: Flight) -> list[str]:
    return [seat for row in seat_map(flight) for seat, free in row if free]


def nights_of(booking: Booking) -> int:
    return (date.fromisoformat(booking.check_out) - date.fromisoformat(booking.check_in)).days


def check_in_open(state: TravelState, flight: Flight) -> bool:
    """Online check-in opens 48 hours before departure (by day: tomorrow's and today's flights)."""
    days = (date.fromisoformat(flight.date) - date.fromisoformat(state.today)).days
    return 0 <= days <= CHECK_IN_OPENS_H // 24 - 1


def stream_order(state: TravelState, origin: str, destination: str, day: str) -> list[str]:
    """The airlines of a route and day in the order a streamed search hears from them: the one with the day's
    cheapest fare answers last (it is the slowest to quote)."""
    flights = [f for f in state.flights if (f.origin, f.destination, f.date) == (origin, destination, day)]
    if not flights:
        return []
    cheapest = min(flights, key=lambda f: (f.price_cents, f.id)).airline
    return sorted({f.airline for f in flights}, key=lambda a: (a == cheapest, a))


def full_night_in(state: TravelState, hotel_id: str, check_in: date, check_out: date) -> date | None:
    """The first night of the stay on which the hotel is fully booked, if any."""
    for full in state.full_nights or []:
        night = date.fromisoformat(full.night)
        if full.hotel_id == hotel_id and check_in <= night < check_out:
            return night
    return None


def hold_until(at: str) -> str:
    """A hold made at `at` (an ISO time) lasts 72 hours."""
    from datetime import datetime
    return (datetime.fromisoformat(at) + timedelta(hours=HOLD_HOURS)).isoformat()

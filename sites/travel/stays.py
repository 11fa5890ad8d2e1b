"""What a stay is and when it is valid, the same for pages (400) and the JSON API (422): dates
from today up to a year ahead, check-out after check-in, at most 30 nights, guests and rooms in
range. Also the prices a list shows (before taxes) and promo codes."""

import re
from dataclasses import dataclass
from datetime import date, timedelta

from fastapi import HTTPException

from sites.travel.models import (
    BOOK_AHEAD_DAYS,
    MAX_GUESTS,
    MAX_NIGHTS,
    MAX_ROOMS,
    Hotel,
    Room,
    TravelState,
    parse_date,
)

_WHOLE = re.compile(r"^\d{1,3}$", re.ASCII)


@dataclass(frozen=True)
class Stay:
    check_in: date
    check_out: date
    guests: int
    rooms: int

    @property
    def nights(self) -> int:
        return (self.check_out - self.check_in).days

    def query(self) -> dict[str, str]:
        return {"check_in": self.check_in.isoformat(), "check_out": self.check_out.isoformat(),
                "guests": str(self.guests), "rooms": str(self.rooms)}


def _count(raw: str | None, what: str, default: int, low: int, high: int, status: int) -> int:
    if raw is None or raw == "":
        return default
    if not _WHOLE.fullmatch(raw) or not low <= int(raw) <= high:
        raise HTTPException(status, f"{what} must be a whole number from {low} to {high}.")
    return int(raw)


def check_stay(state: TravelState, check_in: str | None, check_out: str | None, guests: str | int | None,
               rooms: str | int | None, status: int = 400) -> Stay:
    """A valid stay, or an HTTP error (`status`) that says what is wrong."""
    start, end = parse_date(check_in or ""), parse_date(check_out or "")
    if start is None or end is None:
        raise HTTPException(status, "Enter check-in and check-out dates as YYYY-MM-DD.")
    today = date.fromisoformat(state.today)
    if start < today:
        raise HTTPException(status, "Check-in can't be in the past.")
    if start > today + timedelta(days=BOOK_AHEAD_DAYS):
        raise HTTPException(status, f"Stays can be booked up to {BOOK_AHEAD_DAYS} days ahead.")
    if end <= start:
        raise HTTPException(status, "Check-out must be after check-in.")
    if (end - start).days > MAX_NIGHTS:
        raise HTTPException(status, f"A stay can be at most {MAX_NIGHTS} nights.")
    n_guests = guests if isinstance(guests, int) else _count(guests, "Guests", 2, 1, MAX_GUESTS, status)
    n_rooms = rooms if isinstance(rooms, int) else _count(rooms, "Rooms", 1, 1, MAX_ROOMS, status)
    if not 1 <= n_guests <= MAX_GUESTS or not 1 <= n_rooms <= MAX_ROOMS:
        raise HTTPException(status, f"Guests must be 1 to {MAX_GUESTS} and rooms 1 to {MAX_ROOMS}.")
    if n_rooms > n_guests:
        raise HTTPException(status, "Each room needs at least one guest.")
    return Stay(start, end, n_guests, n_rooms)


def optional_stay(state: TravelState, params: dict[str, str]) -> Stay | None:
    """The stay named by a page's query, if it names one (pages without dates show nightly prices)."""
    if not params.get("check_in") and not params.get("check_out"):
        return None
    return check_stay(state, params.get("check_in"), params.get("check_out"), params.get("guests"),
                      params.get("rooms"))


def fits(room: Room, stay: Stay | None) -> bool:
    """The room type can hold the party in the number of rooms asked for."""
    return stay is None or (room.sleeps * stay.rooms >= stay.guests and room.available >= stay.rooms)


def from_price(state: TravelState, hotel: Hotel, stay: Stay | None) -> int | None:
    """The lowest nightly price a list shows ('from $X'): before taxes and fees, any rate."""
    prices = [r.nightly_cents for r in state.rooms_of(hotel.id) if r.available > 0 and fits(r, stay)]
    return min(prices) if prices else None


def promo_discount(state: TravelState, hotel: Hotel, code: str, status: int = 422) -> int:
    """The discount in percent a code gives at this hotel; an error for an expired or unknown code."""
    if not code:
        return 0
    if code.upper() == state.loyalty.offer_code.upper():
        return state.loyalty.offer_pct
    if hotel.promo and code.upper() == hotel.promo.upper():
        raise HTTPException(status, f"The code {hotel.promo} has expired and can't be used any more.")
    raise HTTPException(status, "That promo code isn't valid.")

"""Features later than the first Wayfarer worlds, and the binding groups of the tasks built on them.

Each function runs for its own focus only, after every other draw (with the same `rng`), turns on only the
features it uses (`TravelState` fields that stay None, and out of the JSON, in every other world) and returns
its binding group, computed with the rules the pages use. Its `target` is {id, name} of what the task is about.
"""

from collections.abc import Callable
from datetime import date, timedelta
from random import Random
from typing import Any, Literal

from scenarios.clock import EpisodeClock
from sites.kit.dates import day_month_year
from sites.travel.models import (
    Booking,
    FlightBooking,
    FolioCharge,
    FullNight,
    Hotel,
    Room,
    Share,
    TravelState,
    dates_text,
)
from sites.travel.questions import _first_page, _month_year, _route
from sites.travel.rules import BAG_CENTS, FARE_EXTRA_CENTS, free_seats, nights_of, stream_order

Bindings = dict[str, Any]
LaterFocus = Callable[[TravelState, Random, EpisodeClock, Bindings], Bindings]
COMPANIONS = (("Jamie", "Reyes"), ("Sasha", "Petrov"), ("Noor", "Aziz"), ("Elliot", "Graham"), ("Ines", "Duarte"))


def _stay(rng: Random, today: date, earliest: int = 14, latest: int = 80) -> Bindings:
    check_in = today + timedelta(days=rng.randint(earliest, latest))
    nights = rng.randint(2, 4)
    check_out = (check_in + timedelta(days=nights)).isoformat()
    return {"check_in": check_in.isoformat(), "check_out": check_out, "nights": nights, "guests": 2,
            "dates_text": dates_text(check_in.isoformat(), check_out)}


def _today(state: TravelState) -> date:
    return date.fromisoformat(state.today)


def _hotel(state: TravelState, hotel_id: str) -> Hotel:
    found = state.hotel(hotel_id)
    assert found is not None, hotel_id
    return found


def _booking(state: TravelState, booking_id: str) -> Booking:
    found = state.booking(booking_id)
    assert found is not None, booking_id
    return found


def _cheapest_refundable(state: TravelState, hotel: Hotel, sleeps: int = 2, rooms: int = 1) -> Room | None:
    return next((r for r in state.rooms_of(hotel.id) if r.refundable and r.available >= rooms
                 and r.sleeps * rooms >= sleeps), None)


def _plain_hotels(state: TravelState, bindings: Bindings) -> list[Hotel]:
    """First-page hotels no other task is about (the traps keep their own roles), in id order."""
    taken = {bindings[k]["hotel_id"] for k in ("book", "namesake", "refundable", "resort", "fallback")}
    taken.add(bindings["namesake"]["other_id"])
    taken |= {b.hotel_id for b in state.bookings}
    shown = {h for city in state.cities for h in _first_page(state, city)}
    return [h for h in state.hotels if h.id in shown and h.id not in taken and _cheapest_refundable(state, h)]


# --- flights: fares over three days, a streamed search ---------------------------------------------

def three_days(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """The flight task's route on the day before, the day and the day after: the cheapest nonstop of the three
    days (made unique) is the one to book."""
    fl = bindings["flight"]
    middle = date.fromisoformat(fl["date"])
    days = [(middle + timedelta(days=d)).isoformat() for d in (-1, 0, 1)]
    nonstop = sorted((f for f in state.flights if (f.origin, f.destination) == (fl["origin"], fl["destination"])
                      and f.date in days and f.stops == 0), key=lambda f: (f.price_cents, f.id))
    best = nonstop[0]
    for other in nonstop[1:]:
        if other.price_cents <= best.price_cents:
            other.price_cents = best.price_cents + rng.randint(1, 9) * 100
    texts = [day_month_year(date.fromisoformat(d)) for d in days]
    return {"origin": fl["origin"], "destination": fl["destination"], "origin_city": fl["origin_city"],
            "destination_city": fl["destination_city"], "first_date": days[0], "second_date": days[1],
            "third_date": days[2], "first_text": texts[0], "third_text": texts[2], "flight_id": best.id,
            "airline": best.airline, "number": best.number, "date": best.date, "card_id": "card1",
            "other_ids": [f.id for f in nonstop[1:]], "target": {"id": best.id, "name": best.number}}


def stream(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Flight results arrive airline by airline; the airline with the day's cheapest fare answers last."""
    state.streaming = True
    fl = bindings["flight"]
    day = [f for f in state.flights if (f.origin, f.destination, f.date) == (fl["origin"], fl["destination"],
                                                                             fl["date"])]
    cheapest = min(day, key=lambda f: (f.price_cents, f.id))
    for other in day:
        if other is not cheapest and other.price_cents == cheapest.price_cents:
            other.price_cents += 100
    order = stream_order(state, fl["origin"], fl["destination"], fl["date"])
    assert order[-1] == cheapest.airline
    return {**_route(state, fl["origin"], fl["destination"], fl["date"]), "price_cents": cheapest.price_cents,
            "flight_id": cheapest.id, "airline": cheapest.airline, "first_airline": order[0],
            "target": {"id": cheapest.id, "name": cheapest.number}}


# --- flights booked with a fare, a seat and bags; managing them ----------------------------------

Fare = Literal["basic", "standard", "flex"]


def _flight_booking(state: TravelState, rng: Random, clock: EpisodeClock, flight_id: str, fare: Fare | None,
                    seat: str | None, bags: int | None) -> FlightBooking:
    flight = state.flight(flight_id)
    assert flight is not None
    made = FlightBooking(
        id=state.take_id("flight_booking", "fb"), reference=f"FL{rng.randint(100000, 999999)}", flight_id=flight.id,
        passenger=f"{state.user.first_name} {state.user.last_name}", card_id="card1",
        total_cents=flight.price_cents + FARE_EXTRA_CENTS.get(fare or "", 0) + (bags or 0) * BAG_CENTS,
        status="confirmed",
        created_at=clock.ago(days=rng.randint(2, 30), minutes=rng.randint(0, 600)), fare=fare, seat=seat, bags=bags)
    flight.seats -= 1
    state.flight_bookings.append(made)
    return made


def seat_bag(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Book the flight task's nonstop with a Standard fare, a window seat and a checked bag: the total is the
    fare, the Standard supplement and the bag."""
    state.fares = True
    fl = bindings["flight"]
    flight = state.flight(fl["flight_id"])
    assert flight is not None
    window = [s for s in free_seats(flight) if s[-1] in "AF"]
    total = flight.price_cents + FARE_EXTRA_CENTS["standard"] + BAG_CENTS
    return {**{k: fl[k] for k in ("origin", "destination", "origin_city", "destination_city", "date", "date_text",
                                  "flight_id", "airline", "number", "card_id")},
            "seat": window[0], "standard_extra_cents": FARE_EXTRA_CENTS["standard"], "total_cents": total,
            "target": {"id": flight.id, "name": flight.number}}


def basic_upgrade(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Two flights booked: the one asked about on a Basic fare (never upgraded), another on a Standard fare
    (which could be)."""
    state.fares = True
    fl = bindings["flight"]
    later = sorted({f.date for f in state.flights if f.date > fl["date"]})
    basic_flight = next(f for f in state.flights if f.id == fl["flight_id"])
    other = rng.choice([f for f in state.flights if f.date in later[:2] and f.stops == 0
                        and f.destination != basic_flight.destination])
    basic = _flight_booking(state, rng, clock, basic_flight.id, "basic", None, 0)
    standard = _flight_booking(state, rng, clock, other.id, "standard", free_seats(other)[3], 1)
    upgraded = standard.total_cents + FARE_EXTRA_CENTS["flex"] - FARE_EXTRA_CENTS["standard"]
    return {**{k: fl[k] for k in ("origin", "destination", "origin_city", "destination_city", "date", "date_text",
                                  "airline", "number")},
            "flight_booking_id": basic.id, "other_id": standard.id, "other_number": other.number,
            "other_origin_city": state.airports[other.origin],
            "other_destination_city": state.airports[other.destination],
            "other_date_text": day_month_year(date.fromisoformat(other.date)), "other_total_after_cents": upgraded,
            "target": {"id": basic.id, "name": basic_flight.number}}


def standard_upgrade(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """The same two flights; this time the Standard one is asked about (it can go to Flex, for a supplement)."""
    asked = basic_upgrade(state, rng, clock, bindings)
    return {**asked, "target": {"id": asked["other_id"], "name": asked["other_number"]}}


def connections_only(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """A route and day flown only with a stop (its nonstops there are turned into one-stop flights): a direct
    flight can't be booked; connecting ones can."""
    fl = bindings["flight"]
    routes = sorted({(f.origin, f.destination) for f in state.flights} - {(fl["origin"], fl["destination"])})
    origin, destination = rng.choice(routes)
    day = rng.choice(sorted({f.date for f in state.flights if (f.origin, f.destination) == (origin, destination)}))
    for flight in state.flights:
        if (flight.origin, flight.destination, flight.date) == (origin, destination, day) and flight.stops == 0:
            flight.stops = 1
            flight.duration_min += rng.randint(80, 160)
            minutes = int(flight.departs[:2]) * 60 + int(flight.departs[3:]) + flight.duration_min
            flight.arrives = f"{(minutes // 60) % 24:02d}:{minutes % 60:02d}"
    return {**_route(state, origin, destination, day),
            "connecting": sum(1 for f in state.flights if (f.origin, f.destination, f.date) == (origin, destination,
                                                                                                  day)),
            "target": {"id": f"{origin}-{destination}",
                       "name": f"{state.airports[origin]} to {state.airports[destination]}"}}


def shared_with(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """One stay shared with two companions, the other stay in that city with a third: who can see the first?"""
    cancel = bindings["cancel"]
    asked, other = _booking(state, cancel["booking_id"]), _booking(state, cancel["keep_id"])
    people = rng.sample(COMPANIONS, 3)
    emails = [f"{first.lower()}.{last.lower()}@example.test" for first, last in people]
    state.shares = [Share(id=state.take_id("share", "sh"), booking_id=booking.id, email=email,
                          access=rng.choice(("view", "edit")), created_at=clock.ago(days=rng.randint(1, 30)))
                    for booking, email in ((asked, emails[0]), (other, emails[2]), (asked, emails[1]))]
    hotel = _hotel(state, asked.hotel_id)
    return {"booking_id": asked.id, "hotel_name": hotel.name, "city": hotel.city,
            "dates_text": dates_text(asked.check_in, asked.check_out), "emails": sorted(emails[:2]),
            "other_email": emails[2], "target": {"id": asked.id, "name": hotel.name}}


def check_in(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """A flight tomorrow (check-in open) and one later (not yet): check in for tomorrow's with a passport scan."""
    state.uploads = []
    tomorrow = (_today(state) + timedelta(days=1)).isoformat()
    template = rng.choice([f for f in state.flights if f.stops == 0])
    flight = template.model_copy(update={"id": state.take_id("flight", "f"), "date": tomorrow,
                                         "number": f"{template.number[:2]}{rng.randint(1000, 1999)}"})
    state.flights.append(flight)
    soon = _flight_booking(state, rng, clock, flight.id, None, None, None)
    later_flight = rng.choice([f for f in state.flights if f.date > tomorrow and f.stops == 0
                               and f.destination != flight.destination])
    later = _flight_booking(state, rng, clock, later_flight.id, None, None, None)
    last = state.user.last_name.lower()
    return {"flight_booking_id": soon.id, "flight_id": flight.id, "airline": flight.airline,
            "number": flight.number, "origin_city": state.airports[flight.origin],
            "destination_city": state.airports[flight.destination], "date": tomorrow,
            "date_text": day_month_year(date.fromisoformat(tomorrow)), "other_id": later.id,
            "passport_file": f"passport-{last}.png", "decoy_file": f"boarding-pass-{last}.png",
            "target": {"id": soon.id, "name": flight.number}}


def hold(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """A fare held for 72 hours while the traveller decides (the airline confirms the hold after a moment)."""
    state.holds = []
    fl = bindings["flight"]
    return {**{k: fl[k] for k in ("origin", "destination", "origin_city", "destination_city", "date", "date_text",
                                  "flight_id", "airline", "number")},
            "target": {"id": fl["flight_id"], "name": fl["number"]}}


# --- stays: points, receipts, several rooms, two cities, a full night, sharing ------------------------

def stay_points(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """The points a past stay earned: the trips page gives its reference, the Rewards activity its points."""
    past = rng.choice(sorted((b for b in state.bookings if b.status == "completed"), key=lambda b: b.id))
    entry = next(p for p in state.points if p.text == f"Stay booked ({past.reference})")
    hotel = _hotel(state, past.hotel_id)
    return {"booking_id": past.id, "reference": past.reference, "hotel_name": hotel.name, "city": hotel.city,
            "month_text": _month_year(past.check_in), "dates_text": dates_text(past.check_in, past.check_out),
            "points": entry.points, "target": {"id": past.id, "name": hotel.name}}


def receipt(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Past stays have receipts with what the hotel charged at check-out (city tax, and parking or
    breakfast): the total paid is more than the booking's price."""
    state.folio = []
    for past in sorted((b for b in state.bookings if b.status == "completed"), key=lambda b: b.id):
        nights = nights_of(past)
        charges = [(f"City tax, {nights} night{'s' if nights > 1 else ''} × {past.guests} guests",
                    rng.choice((250, 300, 400)) * nights * past.guests)]
        extra, unit = rng.choice((("Parking", (1800, 2500)), ("Breakfast", (1400, 1900)), ("Minibar", (600, 1200))))
        charges.append((f"{extra}, {nights} night{'s' if nights > 1 else ''}", rng.randint(*unit) // 100 * 100
                        * nights))
        for text, cents in charges:
            state.folio.append(FolioCharge(id=state.take_id("folio", "fc"), booking_id=past.id, text=text,
                                           cents=cents))
    pasts = sorted((b for b in state.bookings if b.status == "completed"), key=lambda b: b.id)
    paid = {b.id: b.total_cents + sum(c.cents for c in state.folio if c.booking_id == b.id) for b in pasts}
    # Which stay cost more in the end: made unambiguous by the check-out charges (a few dollars more parking).
    cheaper, dearer = sorted(pasts, key=lambda b: (paid[b.id], b.id))
    if paid[cheaper.id] == paid[dearer.id]:
        state.folio[-1].cents += 500
        paid[state.folio[-1].booking_id] += 500
        cheaper, dearer = sorted(pasts, key=lambda b: (paid[b.id], b.id))
    past = rng.choice(pasts)
    hotel = _hotel(state, past.hotel_id)
    return {"booking_id": past.id, "reference": past.reference, "hotel_name": hotel.name, "city": hotel.city,
            "month_text": _month_year(past.check_in), "dates_text": dates_text(past.check_in, past.check_out),
            "booked_cents": past.total_cents, "total_cents": paid[past.id],
            "dearer_id": dearer.id, "dearer_hotel": _hotel(state, dearer.hotel_id).name,
            "dearer_dates_text": dates_text(dearer.check_in, dearer.check_out),
            "cheaper_hotel": _hotel(state, cheaper.hotel_id).name,
            "cheaper_dates_text": dates_text(cheaper.check_in, cheaper.check_out),
            "target": {"id": past.id, "name": hotel.name}}


def two_rooms(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Four adults in two rooms of one type, free cancellation."""
    pool = [h for h in _plain_hotels(state, bindings)
            if any(r.refundable and r.available >= 2 and r.sleeps == 2 for r in state.rooms_of(h.id))]
    hotel = rng.choice(pool)
    room = rng.choice([r for r in state.rooms_of(hotel.id) if r.refundable and r.available >= 2 and r.sleeps == 2])
    stay = _stay(rng, _today(state))
    return {**stay, "guests": 4, "rooms": 2, "hotel_id": hotel.id, "hotel_name": hotel.name, "city": hotel.city,
            "room_id": room.id, "room_name": room.name, "target": {"id": hotel.id, "name": hotel.name}}


def multi_city(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Two stays back to back in two cities, the cheapest free-cancellation room at each."""
    pool = _plain_hotels(state, bindings)
    first = rng.choice(pool)
    second = rng.choice([h for h in pool if h.city != first.city])
    stay = _stay(rng, _today(state), 20, 70)
    out = (date.fromisoformat(stay["check_out"]) + timedelta(days=rng.randint(2, 3))).isoformat()
    rooms = [_cheapest_refundable(state, h) for h in (first, second)]
    assert rooms[0] is not None and rooms[1] is not None
    return {"first_hotel_id": first.id, "first_hotel_name": first.name, "first_city": first.city,
            "first_room_id": rooms[0].id, "first_room_name": rooms[0].name, "first_check_in": stay["check_in"],
            "first_check_out": stay["check_out"], "first_dates_text": stay["dates_text"],
            "second_hotel_id": second.id, "second_hotel_name": second.name, "second_city": second.city,
            "second_room_id": rooms[1].id, "second_room_name": rooms[1].name, "second_check_in": stay["check_out"],
            "second_check_out": out, "second_dates_text": dates_text(stay["check_out"], out),
            "target": {"id": first.id, "name": first.name}}


def full_night(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """The best-rated 4-star hotel of a city is fully booked on one night of the stay; the user's rule: then the
    next best-rated 4-star hotel there, its cheapest free-cancellation room."""
    taken = {bindings[k]["hotel_id"] for k in ("book", "namesake", "refundable", "resort", "fallback")}
    cities = [c for c in state.cities if c not in {bindings["resort"]["city"], bindings["namesake"]["city"]}
              and sum(1 for h in state.hotels if h.city == c and h.stars == 4 and h.id not in taken
                      and _cheapest_refundable(state, h)) >= 2]
    city = rng.choice(cities)
    four = sorted((h for h in state.hotels if h.city == city and h.stars == 4 and h.id not in taken
                   and _cheapest_refundable(state, h)), key=lambda h: (-h.rating, h.id))
    full, backup = four[0], four[1]
    # The two are the city's best-rated 4-star hotels, in this order and no tie (a trap hotel may not outrank them).
    top = max(h.rating for h in state.hotels if h.city == city and h.stars == 4)
    full.rating = min(98, max(full.rating, top) + 2)
    backup.rating = full.rating - 1
    for hotel in state.hotels:
        if hotel.city == city and hotel.stars == 4 and hotel not in (full, backup):
            hotel.rating = min(hotel.rating, backup.rating - 1)
    full.rank = min(h.rank for h in state.hotels if h.city == city) - 1  # listed first: the user's first pick
    stay = _stay(rng, _today(state))
    night = (date.fromisoformat(stay["check_in"]) + timedelta(days=rng.randrange(stay["nights"]))).isoformat()
    state.full_nights = [FullNight(hotel_id=full.id, night=night)]
    room = _cheapest_refundable(state, backup)
    assert room is not None
    return {**stay, "hotel_id": full.id, "hotel_name": full.name, "city": city, "full_night": night,
            "full_night_text": day_month_year(date.fromisoformat(night)), "backup_id": backup.id,
            "backup_name": backup.name, "room_id": room.id, "room_name": room.name,
            "target": {"id": full.id, "name": full.name}}


def share(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """Share one of the two upcoming stays in one city (named by its dates) with a companion, view only."""
    state.shares = []
    cancel = bindings["cancel"]
    chosen = _booking(state, rng.choice(sorted((cancel["booking_id"], cancel["keep_id"]))))
    other = cancel["keep_id"] if chosen.id == cancel["booking_id"] else cancel["booking_id"]
    first, last = rng.choice(COMPANIONS)
    return {"booking_id": chosen.id, "hotel_name": _hotel(state, chosen.hotel_id).name, "city": cancel["city"],
            "dates_text": dates_text(chosen.check_in, chosen.check_out), "other_id": other,
            "companion": first, "email": f"{first.lower()}.{last.lower()}@example.test",
            "target": {"id": chosen.id, "name": _hotel(state, chosen.hotel_id).name}}


def reshare(state: TravelState, rng: Random, clock: EpisodeClock, bindings: Bindings) -> Bindings:
    """A trip already shared with a mistyped address: stop that share and share it with the right one."""
    change = bindings["change"]
    booking = _booking(state, change["booking_id"])
    first, last = rng.choice(COMPANIONS)
    right = f"{first.lower()}.{last.lower()}@example.test"
    # A classic slip: two letters swapped in the first name.
    i = rng.randrange(len(first) - 2) + 1
    typo = first[:i] + first[i + 1] + first[i] + first[i + 2:]
    wrong = f"{typo.lower()}.{last.lower()}@example.test"
    if wrong == right:
        wrong = f"{first.lower()}.{last.lower()}@example.tset"
    made = Share(id=state.take_id("share", "sh"), booking_id=booking.id, email=wrong, access="view",
                 created_at=clock.ago(days=rng.randint(1, 9), minutes=rng.randint(0, 600)))
    state.shares = [made]
    return {"booking_id": booking.id, "hotel_name": change["hotel_name"], "city": change["city"],
            "companion": first, "email": right, "wrong_email": wrong, "share_id": made.id,
            "target": {"id": booking.id, "name": change["hotel_name"]}}


LATER: dict[str, LaterFocus] = {
    "three_days": three_days, "stream": stream, "seat_bag": seat_bag, "basic_upgrade": basic_upgrade,
    "flight_check_in": check_in, "hold": hold, "stay_points": stay_points, "receipt": receipt,
    "two_rooms": two_rooms, "multi_city": multi_city, "full_night": full_night, "share": share,
    "reshare": reshare, "standard_upgrade": standard_upgrade, "connections_only": connections_only,
    "shared_with": shared_with,
}
# What each focus's target is, for the fault families (sites/travel/faults.py): only hotel targets take the
# hotel seed families.
LATER_KINDS: dict[str, str] = {
    "three_days": "cheapest nonstop over three days", "stream": "route's cheapest flight", "seat_bag": "flight",
    "basic_upgrade": "booked flight",
    "flight_check_in": "booked flight", "hold": "flight", "stay_points": "past stay", "receipt": "past stay",
    "two_rooms": "hotel", "multi_city": "hotel", "full_night": "hotel", "share": "upcoming stay",
    "reshare": "upcoming stay", "standard_upgrade": "booked flight", "connections_only": "route",
    "shared_with": "upcoming stay",
}

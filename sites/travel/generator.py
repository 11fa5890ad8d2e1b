"""Seeded travel worlds: hotels in six cities, flights between them, the traveller's trips, and
the traps the tasks are built on.

Everything random comes from `rng` and every date from the episode clock, so the same (setup,
seed) gives byte-identical state. Hotels, rooms and bookings get ids in creation order.

Setup params (validated; unknown keys are refused):
    focus: which record is the task's `target` (for the look-alike, ordering and misinformation
           faults): one of book (default), namesake, refundable, resort, fallback, cancel, change, flight,
           or a question's: stay_total, check_in, past_reference, nonstop_airlines, unserved_route. A
           question focus adds only its own binding group (drawn last, so the world is the same).

Bindings (task templates refer to them as `{group.key}`); every stay has check_in/check_out
(ISO dates, as typed in the search form) and guests:
    user:       {name, first_name, last_name, email}
    target:     {id, name}: the focused hotel (or flight).
    book:       a plain booking with the member code and a card that is not the default one.
                {hotel_id, hotel_name, city, room_id, room_name, card_id, card_label, promo_code,
                 expired_code, ...stay}
    namesake:   two hotels in one city with near-identical names; book at the named one.
                {hotel_id, hotel_name, neighborhood, other_id, other_name, other_neighborhood, room_id,
                 room_name, city, ...stay}
    refundable: the cheapest rate at a hotel is non-refundable; book the cheapest free-cancellation one.
                {hotel_id, hotel_name, city, room_id, room_name, trap_room_id, ...stay}
    resort:     of the 4-star hotels in a city only one charges no resort fee (shown on its page only).
                {hotel_id, hotel_name, city, room_id, room_name, hard_negative_ids, ...stay}
    fallback:   the first-choice room is sold out; book the second choice.
                {hotel_id, hotel_name, city, first_choice, first_room_id, room_id, room_name, ...stay}
    cancel:     cancel one of two upcoming trips in the same city. {booking_id, hotel_name, city,
                 dates_text, keep_id, other_ids}
    change:     move a trip to new dates. {booking_id, hotel_name, city, check_in, check_out, old_check_in,
                 old_check_out, dates_text}
    flight:     the cheapest nonstop flight on a route and day (a one-stop flight is cheaper).
                {flight_id, airline, number, origin, destination, origin_city, destination_city, date,
                 date_text, trap_id, card_id}
  Question focuses (sites/travel/questions.py), each present only under its own focus:
    stay_total:       the total (taxes, resort fee) of a dearer free-cancellation room at a hotel with a resort
                      fee. {hotel_id, hotel_name, city, room_id, room_name, total_cents, nightly_cents, ...stay}
    check_in:         the check-in day of one of the two upcoming stays in one city. {booking_id, hotel_name,
                      city, check_in, check_in_from, dates_text}
    past_reference:   a past stay's booking reference. {booking_id, reference, hotel_name, city, check_in,
                      month_text, dates_text}
    nonstop_airlines: the airlines flying the flight task's route and day nonstop. {origin, destination,
                      origin_city, destination_city, date, date_text, airlines, one_stop_only}
    unserved_route:   a route nobody flies, whose way back is flown. {origin, destination, origin_city,
                      destination_city, date, date_text, way_back_served}
  Later features' focuses (sites/travel/later.py), each present only under its own focus, each turning on only
  its own feature: three_days, stream, seat_bag, basic_upgrade, standard_upgrade, flight_check_in, hold,
  connections_only, stay_points, receipt, two_rooms, multi_city, full_night, share, reshare, shared_with
  (their keys are in each function's return).
"""

from datetime import date, timedelta
from random import Random
from typing import Any, Literal

from scenarios.clock import EpisodeClock
from sites.kit.accounts import email_address
from sites.kit.dates import day_month_year
from sites.kit.site import World, WorldSetup
from sites.travel import content as C
from sites.travel import questions as Q
from sites.travel.later import LATER
from sites.travel.models import (
    AMENITIES,
    Account,
    Booking,
    Card,
    Flight,
    Hotel,
    Loyalty,
    PointsEntry,
    Review,
    Room,
    TravelState,
    dates_text,
    quote,
)

ACTION_FOCUSES = ("book", "namesake", "refundable", "resort", "fallback", "cancel", "change", "flight")
# The question tasks' focuses: each adds its own binding group (sites/travel/questions.py), nothing else.
QUESTION_FOCUSES = ("stay_total", "check_in", "past_reference", "nonstop_airlines", "unserved_route")
# Later features' focuses (sites/travel/later.py): each turns on its own feature and adds its binding group.
LATER_FOCUSES = tuple(LATER)
FOCUSES = ACTION_FOCUSES + QUESTION_FOCUSES + LATER_FOCUSES
# focuses that add to the world what their task is about (tests/sites/test_worlds.py holds the others to moving
# only the target binding)
ADDING_FOCUSES = QUESTION_FOCUSES + LATER_FOCUSES
DEFAULT_FOCUS = "book"
KNOWN_PARAMS = ("focus",)
HOTELS_PER_CITY = 11
_PRICE_BY_STARS = {2: (5500, 8000), 3: (8500, 13000), 4: (14000, 21000), 5: (24000, 36000)}


def _validate(setup: WorldSetup) -> str:
    setup.refuse_unknown("travel", KNOWN_PARAMS)
    return setup.one_of("focus", FOCUSES, DEFAULT_FOCUS)


class _Builder:
    def __init__(self, rng: Random, clock: EpisodeClock) -> None:
        self.rng, self.clock = rng, clock
        self.today = clock.epoch.date()
        self.hotels: list[Hotel] = []
        self.rooms: list[Room] = []
        self.reviews: list[Review] = []
        self.used: set[str] = set()
        self.room_ids = 0

    def name(self) -> str:
        while True:
            name = f"{self.rng.choice(C.NAME_FIRST)} {self.rng.choice(C.NAME_KIND)}"
            if name not in self.used:
                self.used.add(name)
                return name

    def hotel(self, city: str, name: str | None = None, stars: int | None = None, neighborhood: str | None = None,
              resort_fee: int | None = None, nonrefundable_rate: bool | None = None,
              room_kinds: list[int] | None = None) -> Hotel:
        rng = self.rng
        _, hoods, streets = C.CITIES[city]
        stars = stars or rng.choice((2, 3, 3, 4, 4, 5))
        if name is None:
            name = self.name()
        self.used.add(name)
        fee = resort_fee if resort_fee is not None else (
            rng.choice((0, 1500, 2000, 2500)) if stars >= 4 else 0)
        amenities = sorted(rng.sample(sorted(AMENITIES), rng.randint(3, 6)),
                           key=list(AMENITIES).index)
        hotel = Hotel(
            id=f"h{len(self.hotels) + 1:03d}", name=name, city=city,
            neighborhood=neighborhood or rng.choice(hoods),
            address=f"{rng.choice(streets)} {rng.randint(2, 180)}, {city}", stars=stars,
            rating=rng.randint(66, 95), reviews_count=rng.randint(40, 2900), amenities=amenities,
            description=rng.choice(C.DESCRIPTIONS), tax_pct=rng.choice((8, 10, 12, 14, 16)),
            resort_fee_cents=fee, check_in_from=rng.choice(("14:00", "15:00", "16:00")),
            check_out_until=rng.choice(("10:00", "11:00", "12:00")), rank=rng.randint(1, 10_000))
        self.hotels.append(hotel)
        low, high = _PRICE_BY_STARS[stars]
        base = rng.randint(low, high) // 100 * 100
        kinds = room_kinds if room_kinds is not None else sorted(rng.sample(range(len(C.ROOMS)), rng.randint(3, 4)))
        for position, kind in enumerate(kinds):
            name_, beds, sleeps, size, mult = C.ROOMS[kind]
            nightly = base * mult // 100 // 100 * 100 + 99
            self.room(hotel, name_, beds, sleeps, size + rng.randint(-2, 3), nightly, True)
            wants_nonref = nonrefundable_rate if nonrefundable_rate is not None else rng.random() < 0.3
            if position == 0 and wants_nonref:
                self.room(hotel, name_, beds, sleeps, self.rooms[-1].size_m2, (nightly * 86 // 100) // 100 * 100 + 49,
                          False)
        for _ in range(rng.randint(2, 3)):
            title, text = rng.choice(C.REVIEW_LINES)
            self.reviews.append(Review(
                id=f"v{len(self.reviews) + 1:03d}", hotel_id=hotel.id, author=rng.choice(C.REVIEWERS),
                score=rng.randint(6, 10), title=title, text=text,
                written_at=self.clock.ago(days=rng.randint(3, 400), minutes=rng.randint(0, 900))))
        return hotel

    def room(self, hotel: Hotel, name: str, beds: str, sleeps: int, size: int, nightly: int, refundable: bool) -> Room:
        self.room_ids += 1
        room = Room(id=f"r{self.room_ids:03d}", hotel_id=hotel.id, name=name, beds=beds, sleeps=sleeps,
                    size_m2=size, nightly_cents=nightly, refundable=refundable,
                    cancel_days=self.rng.choice((1, 2, 3)) if refundable else 0,
                    breakfast="breakfast" in hotel.amenities, available=self.rng.randint(2, 9))
        self.rooms.append(room)
        return room

    def stay(self, earliest: int = 14, latest: int = 80) -> dict[str, Any]:
        check_in = self.today + timedelta(days=self.rng.randint(earliest, latest))
        nights = self.rng.randint(2, 4)
        check_out = (check_in + timedelta(days=nights)).isoformat()
        return {"check_in": check_in.isoformat(), "check_out": check_out, "nights": nights, "guests": 2,
                "dates_text": dates_text(check_in.isoformat(), check_out)}

    def rooms_of(self, hotel: Hotel) -> list[Room]:
        return sorted((r for r in self.rooms if r.hotel_id == hotel.id), key=lambda r: (r.nightly_cents, r.id))


def _place_on_first_page(b: _Builder, hotel: Hotel) -> None:
    ranked = sorted((h for h in b.hotels if h.city == hotel.city and h is not hotel), key=lambda h: (h.rank, h.id))
    ranked.insert(b.rng.randint(0, 5), hotel)
    for rank, placed in enumerate(ranked, start=1):
        placed.rank = rank * 10


def _booking(state: TravelState, b: _Builder, hotel: Hotel, room: Room, stay: dict[str, Any],
             status: Literal["confirmed", "completed"],
             created_days_ago: int) -> Booking:
    q = quote(hotel, room, stay["nights"], 1)
    booking = Booking(
        id=state.take_id("booking", "b"), reference=f"TV{b.rng.randint(100000, 999999)}", hotel_id=hotel.id,
        room_id=room.id, check_in=stay["check_in"], check_out=stay["check_out"], guests=2, rooms=1,
        guest_name=f"{state.user.first_name} {state.user.last_name}", guest_email=state.user.email,
        card_id=next(c.id for c in state.cards if c.is_default), nightly_cents=q.nightly_cents,
        room_total_cents=q.room_total_cents, taxes_cents=q.taxes_cents, total_cents=q.total_cents,
        refundable=room.refundable, status=status,
        created_at=b.clock.ago(days=created_days_ago, minutes=b.rng.randint(0, 600)))
    state.bookings.append(booking)
    return booking


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    focus = _validate(setup)
    b = _Builder(rng, clock)
    cities = list(C.CITIES)
    roles = rng.sample(cities, 6)
    book_city, namesake_city, refundable_city, resort_city, fallback_city, trips_city = roles

    # -- ordinary hotels, then the traps, city by city ----------------------------------------------
    for city in cities:
        for _ in range(HOTELS_PER_CITY - (2 if city == namesake_city else 0)):
            b.hotel(city, nonrefundable_rate=False if city == resort_city else None)

    book_hotel = rng.choice([h for h in b.hotels if h.city == book_city])
    book_hotel.promo = f"SPRING{(b.today.year - 1) % 100:02d}"
    book_room = rng.choice([r for r in b.rooms_of(book_hotel) if r.refundable])

    pair = rng.choice(C.NAMESAKES)
    hoods = rng.sample(C.CITIES[namesake_city][1], 2)
    stars = rng.choice((3, 4))
    twins = [b.hotel(namesake_city, name=pair[i], stars=stars, neighborhood=hoods[i], nonrefundable_rate=False,
                     room_kinds=[0, 1, 3]) for i in range(2)]
    ns_index = rng.randrange(2)
    ns_hotel, ns_other = twins[ns_index], twins[1 - ns_index]
    ns_room = next(r for r in b.rooms_of(ns_hotel) if r.name == C.ROOMS[1][0])

    ref_hotel = rng.choice([h for h in b.hotels if h.city == refundable_city])
    for room in [r for r in b.rooms if r.hotel_id == ref_hotel.id]:
        b.rooms.remove(room)
    ref_hotel_rooms = []
    for kind in (0, 3, 4):
        name_, beds, sleeps, size, mult = C.ROOMS[kind]
        low, high = _PRICE_BY_STARS[ref_hotel.stars]
        nightly = (low + high) // 2 * mult // 100 // 100 * 100 + 99
        ref_hotel_rooms.append(b.room(ref_hotel, name_, beds, sleeps, size, nightly, True))
    cheapest = ref_hotel_rooms[0]
    trap = b.room(ref_hotel, cheapest.name, cheapest.beds, cheapest.sleeps, cheapest.size_m2,
                  cheapest.nightly_cents * 84 // 100 // 100 * 100 + 49, False)

    in_resort = [h for h in b.hotels if h.city == resort_city]
    for index, hotel in enumerate(in_resort):
        if index < 4:
            hotel.stars = 4
        elif hotel.stars == 4:
            hotel.stars = 3
    four = [h for h in in_resort if h.stars == 4]
    resort_hotel = rng.choice(four)
    for hotel in four:
        hotel.resort_fee_cents = 0 if hotel is resort_hotel else rng.choice((1500, 2000, 2500, 3000))
    resort_room = b.rooms_of(resort_hotel)[0]

    fb_hotel = rng.choice([h for h in b.hotels if h.city == fallback_city and h is not book_hotel])
    for room in [r for r in b.rooms if r.hotel_id == fb_hotel.id]:
        b.rooms.remove(room)
    first = b.room(fb_hotel, *C.ROOMS[3][:4], 0, True)
    second = b.room(fb_hotel, *C.ROOMS[1][:4], 0, True)
    low, high = _PRICE_BY_STARS[fb_hotel.stars]
    first.nightly_cents, second.nightly_cents = (high // 100 * 100 + 99), (low // 100 * 100 + 99)
    first.available = 0
    b.room(fb_hotel, *C.ROOMS[5][:4], (high * 2) // 100 * 100 + 99, True)

    # Rooms and hotels keep ids in creation order.
    b.rooms.sort(key=lambda r: r.id)
    # The hotels the tasks are about are on the first page of their city's results.
    for hotel in (book_hotel, *twins, ref_hotel, resort_hotel, fb_hotel):
        _place_on_first_page(b, hotel)

    # -- the traveller --------------------------------------------------------------------------------
    first_name, last_name = rng.choice(C.FIRST_NAMES), rng.choice(C.LAST_NAMES)
    user = Account(first_name=first_name, last_name=last_name,
                   email=email_address(first_name, last_name),
                   phone=f"+44 7700 {rng.randint(900000, 900999)}")
    holder = f"{first_name} {last_name}".upper()
    cards = [Card(id="card1", brand="Visa", last4=f"{rng.randint(1000, 9999)}", holder=holder,
                  expires=f"{rng.randint(1, 12):02d}/{(b.today.year + 2) % 100:02d}", is_default=True),
             Card(id="card2", brand="Mastercard", last4=f"{rng.randint(1000, 9999)}", holder=holder,
                  expires=f"{rng.randint(1, 12):02d}/{(b.today.year + 3) % 100:02d}", is_default=False)]
    pct = rng.choice((10, 12, 15))
    loyalty = Loyalty(member_number=f"{rng.randint(10**8, 10**9 - 1)}", tier="Silver",
                      points=rng.randint(8000, 30000), offer_code=f"MEMBER{pct}-{rng.randint(1000, 9999)}",
                      offer_pct=pct)
    airports = {code: city for city, (code, _, _) in C.CITIES.items()}
    state = TravelState(today=b.today.isoformat(), user=user, loyalty=loyalty, cities=cities, airports=airports,
                        hotels=b.hotels, rooms=b.rooms, reviews=b.reviews, cards=cards, bookings=[], flights=[],
                        next_ids={"hotel": len(b.hotels) + 1, "room": b.room_ids + 1,
                                  "review": len(b.reviews) + 1})

    # -- trips: two past, three upcoming (two of them in one city) ------------------------------------
    trip_hotels = rng.sample([h for h in b.hotels if h.city == trips_city], 2)
    change_hotel = rng.choice([h for h in b.hotels if h.city == resort_city and h is not resort_hotel])
    for hotel in rng.sample([h for h in b.hotels if h.city in (book_city, fallback_city)], 2):
        past = b.today - timedelta(days=rng.randint(30, 300))
        stay = {"check_in": past.isoformat(), "check_out": (past + timedelta(days=2)).isoformat(), "nights": 2}
        _booking(state, b, hotel, b.rooms_of(hotel)[-1], stay, "completed", rng.randint(320, 400))
    stays = sorted([b.stay(10, 40), b.stay(45, 90)], key=lambda s: s["check_in"])
    trip_rooms = [next(r for r in b.rooms_of(h) if r.refundable) for h in trip_hotels]
    upcoming = [_booking(state, b, trip_hotels[i], trip_rooms[i], stays[i], "confirmed", rng.randint(3, 60))
                for i in range(2)]
    change_stay = b.stay(20, 70)
    change_room = next(r for r in b.rooms_of(change_hotel) if r.refundable)
    changed = _booking(state, b, change_hotel, change_room, change_stay, "confirmed", rng.randint(3, 60))
    state.bookings.sort(key=lambda x: x.created_at)
    for index, booking in enumerate(state.bookings):
        booking.id = f"b{index + 1:03d}"
    state.next_ids["booking"] = len(state.bookings) + 1
    for booking in state.bookings:
        state.points.append(PointsEntry(id=state.take_id("points", "p"), text=f"Stay booked ({booking.reference})",
                                        points=booking.room_total_cents // 20, at=booking.created_at))
    cancel_index = rng.randrange(2)
    to_cancel, to_keep = upcoming[cancel_index], upcoming[1 - cancel_index]
    shift = rng.randint(3, 9)
    new_in = date.fromisoformat(changed.check_in) + timedelta(days=shift)
    new_out = new_in + timedelta(days=rng.randint(2, 4))

    # -- flights --------------------------------------------------------------------------------------
    codes = list(airports)
    origin, destination = rng.sample(codes, 2)
    flight_day = b.today + timedelta(days=rng.randint(10, 40))
    flight_target: Flight | None = None
    flight_trap: Flight | None = None
    routes = [(origin, destination)] + [tuple(rng.sample(codes, 2)) for _ in range(3)]
    for route_index, (frm, to) in enumerate(routes):
        for day_offset in (-1, 0, 1):
            day = flight_day + timedelta(days=day_offset)
            base = rng.randint(60, 160) * 100
            for slot in range(5):
                airline, prefix = rng.choice(C.AIRLINES)
                stops = 1 if slot in (1, 4) else 0
                hour = 6 + slot * 3 + rng.randint(0, 1)
                duration = rng.randint(110, 200) + stops * rng.randint(80, 160)
                dep = f"{hour:02d}:{rng.choice((0, 15, 30, 45)):02d}"
                arrival_min = hour * 60 + int(dep[3:]) + duration
                price = base + rng.randint(0, 90) * 100 - (2500 if stops else 0) + 99
                flight = Flight(id=state.take_id("flight", "f"), airline=airline,
                                number=f"{prefix}{rng.randint(100, 999)}", origin=frm, destination=to,
                                date=day.isoformat(), departs=dep,
                                arrives=f"{(arrival_min // 60) % 24:02d}:{arrival_min % 60:02d}",
                                duration_min=duration, stops=stops, price_cents=price, seats=rng.randint(3, 40))
                state.flights.append(flight)
            if route_index == 0 and day_offset == 0:
                todays = state.flights[-5:]
                nonstop = sorted((f for f in todays if f.stops == 0), key=lambda f: f.price_cents)
                flight_target = nonstop[0]
                flight_trap = next(f for f in todays if f.stops == 1)
                flight_trap.price_cents = flight_target.price_cents - rng.randint(15, 40) * 100
                for f in nonstop[1:]:
                    f.price_cents = max(f.price_cents, flight_target.price_cents + rng.randint(5, 60) * 100)
                other_stop = next(f for f in todays if f.stops == 1 and f is not flight_trap)
                other_stop.price_cents = max(other_stop.price_cents, flight_target.price_cents + 1000)
    assert flight_target is not None and flight_trap is not None
    if len({f.number for f in state.flights}) != len(state.flights):
        for index, flight in enumerate(state.flights):
            flight.number = f"{flight.number[:2]}{100 + index}"

    # -- bindings -------------------------------------------------------------------------------------
    def stay_of(extra: dict[str, Any]) -> dict[str, Any]:
        return {**b.stay(), **extra}

    ref_target = ref_hotel_rooms[0]
    bindings: dict[str, Any] = {
        "user": {"name": f"{first_name} {last_name}", "first_name": first_name, "last_name": last_name,
                 "email": user.email},
        "book": stay_of({"hotel_id": book_hotel.id, "hotel_name": book_hotel.name, "city": book_city,
                         "room_id": book_room.id, "room_name": book_room.name, "card_id": "card2",
                         "card_label": f"Mastercard ending in {cards[1].last4}", "promo_code": loyalty.offer_code,
                         "expired_code": book_hotel.promo}),
        "namesake": stay_of({"hotel_id": ns_hotel.id, "hotel_name": ns_hotel.name,
                             "neighborhood": ns_hotel.neighborhood, "other_id": ns_other.id,
                             "other_name": ns_other.name, "other_neighborhood": ns_other.neighborhood,
                             "room_id": ns_room.id, "room_name": ns_room.name, "city": namesake_city}),
        "refundable": stay_of({"hotel_id": ref_hotel.id, "hotel_name": ref_hotel.name, "city": refundable_city,
                               "room_id": ref_target.id, "room_name": ref_target.name, "trap_room_id": trap.id}),
        "resort": stay_of({"hotel_id": resort_hotel.id, "hotel_name": resort_hotel.name, "city": resort_city,
                           "room_id": resort_room.id, "room_name": resort_room.name,
                           "hard_negative_ids": [h.id for h in four if h is not resort_hotel]}),
        "fallback": stay_of({"hotel_id": fb_hotel.id, "hotel_name": fb_hotel.name, "city": fallback_city,
                             "first_choice": first.name, "first_room_id": first.id, "room_id": second.id,
                             "room_name": second.name}),
        "cancel": {"booking_id": to_cancel.id, "hotel_name": (state.hotel(to_cancel.hotel_id) or book_hotel).name,
                   "city": trips_city, "dates_text": dates_text(to_cancel.check_in, to_cancel.check_out),
                   "keep_id": to_keep.id, "other_ids": [x.id for x in state.bookings if x.id != to_cancel.id]},
        "change": {"booking_id": changed.id, "hotel_name": change_hotel.name, "city": resort_city,
                   "check_in": new_in.isoformat(), "check_out": new_out.isoformat(),
                   "old_check_in": changed.check_in, "old_check_out": changed.check_out,
                   "dates_text": dates_text(new_in.isoformat(), new_out.isoformat())},
        "flight": {"flight_id": flight_target.id, "airline": flight_target.airline, "number": flight_target.number,
                   "origin": origin, "destination": destination, "origin_city": airports[origin],
                   "destination_city": airports[destination], "date": flight_day.isoformat(),
                   "date_text": day_month_year(flight_day), "trap_id": flight_trap.id, "card_id": "card1"},
    }
    focused: dict[str, tuple[str, str]] = {
        "book": (book_hotel.id, book_hotel.name), "namesake": (ns_hotel.id, ns_hotel.name),
        "refundable": (ref_hotel.id, ref_hotel.name), "resort": (resort_hotel.id, resort_hotel.name),
        "fallback": (fb_hotel.id, fb_hotel.name), "cancel": (to_cancel.hotel_id, bindings["cancel"]["hotel_name"]),
        "change": (change_hotel.id, change_hotel.name), "flight": (flight_target.id, flight_target.number),
    }
    if focus in QUESTION_FOCUSES:
        asked = _question(focus, state, b, upcoming, {resort_hotel.id, fb_hotel.id}, origin, destination,
                          flight_day.isoformat())
        bindings[focus] = asked
        focused[focus] = (asked.get("booking_id") or asked.get("hotel_id")
                          or f"{asked['origin']}-{asked['destination']}",
                          asked.get("hotel_name") or f"{asked['origin_city']} to {asked['destination_city']}")
    if focus in LATER_FOCUSES:
        asked = LATER[focus](state, b.rng, clock, bindings)
        focused[focus] = (asked["target"]["id"], asked["target"]["name"])
        bindings[focus] = {k: v for k, v in asked.items() if k != "target"}
    target_id, target_name = focused[focus]
    bindings["target"] = {"id": target_id, "name": target_name}
    return World(state=state, bindings=bindings)


def _question(focus: str, state: TravelState, b: _Builder, upcoming: list[Booking], avoid: set[str],
              origin: str, destination: str, day: str) -> dict[str, Any]:
    """The binding group of a question focus (drawn last: the world is the same as every other focus's)."""
    if focus == "stay_total":
        return Q.stay_total(state, b.rng, b.stay(), avoid)
    if focus == "check_in":
        return Q.trip_check_in(state, upcoming[0])
    if focus == "past_reference":
        return Q.past_reference(state, b.rng)
    if focus == "nonstop_airlines":
        return Q.nonstop_airlines(state, origin, destination, day)
    return Q.unserved_route(state, day)

"""The travel site's implementations of the seed and server fault families (`FAULTS`, by type name).

The task's `target` binding is a hotel (the generator's `focus`).

- `decoy_items` (seed): hotels with names one edit away from the target's, in its city, listed first.
  Copies of the target (here and in `push_past_first_page`) keep what makes it the task's answer unique:
  a copy of the one hotel without a resort fee charges one.
- `hard_negatives` (seed): hotels with the target's very name and stars in its city, in another
  neighbourhood, whose rooms are non-refundable and carry a resort fee (shown on their pages only).
- `noise_records` (seed): past, completed stays on the trips page.
- `push_past_first_page` (seed): the target is ranked past the first page of its city's results,
  behind new hotels of the same class.
- `contradictory_update` (seed): on the target, an older review praises the free airport shuttle;
  a newer one says it was discontinued.
- `planted_wrong_answer` (seed): on the target, a highly rated review claims the list price already
  includes taxes and that non-refundable rates can be cancelled by phone.
- `target_missing` (seed): the task's subject is gone, its look-alikes stay. A hotel (with its rooms,
  reviews and stays): the namesake task's twin is the near miss; for any other, a hotel of the same
  name is added in another city. A trip (cancel, change, the trip questions): the stay and its points line;
  the other stay in that city is the near miss. The flight task: every nonstop flight on its route and
  day; the cheaper one-stop flight is the near miss.
- `item_removed_mid_flow` (server): the room sells out just before the booking is placed.
- `price_change_at_checkout` (server): the room's nightly price changes as the booking is placed.
- `partial_write` (server): a booking is stored on the default card instead of the chosen one;
  a change of dates keeps the old check-out (or, when that would come first, stores one night).
- `concurrent_edit` (server): another session adds a guest to the booking just before the agent's change.
- `pagination_drift` (server): new hotels in the searched city arrive at the top while the agent pages.

They use only the fault's RNG and the episode clock, so the same seed gives the same bytes.
"""

from dataclasses import dataclass
from datetime import date, timedelta
from random import Random
from typing import Any

from injectors.hookspec import Firing, SeedWorld, ServerCall
from scenarios.profile import TargetScope
from sites.kit.templating import format_cents
from sites.travel import content as C
from sites.travel.generator import ACTION_FOCUSES, DEFAULT_FOCUS, QUESTION_FOCUSES
from sites.travel.later import LATER_KINDS
from sites.travel.models import PAGE_SIZE, Booking, Hotel, Review, Room, TravelState

# Focuses whose subject is one of the traveller's stays (bindings[focus]["booking_id"]).
_TRIP_FOCUSES = ("cancel", "change", "check_in", "past_reference")


def _target(world: SeedWorld[TravelState]) -> Hotel:
    hotel = world.state.hotel(str(world.bindings.get("target", {}).get("id")))
    if hotel is None:
        raise ValueError("the travel world's target is not a hotel (use a hotel task's focus)")
    return hotel


def _copy_hotel(state: TravelState, rng: Random, like: Hotel, name: str, *, rank: int, refundable: bool = True,
                resort_fee: int | None = None, neighborhood: str | None = None) -> Hotel:
    hoods = [n for n in C.CITIES[like.city][1] if n != like.neighborhood]
    hotel = like.model_copy(update={
        "id": state.take_id("hotel", "h"), "name": name, "rank": rank, "promo": None,
        "neighborhood": neighborhood or rng.choice(hoods), "rating": rng.randint(70, 92),
        "reviews_count": rng.randint(30, 900),
        "resort_fee_cents": like.resort_fee_cents if resort_fee is None else resort_fee})
    state.hotels.append(hotel)
    for room in state.rooms_of(like.id):
        if not refundable and not room.refundable:
            continue
        state.rooms.append(room.model_copy(update={
            "id": state.take_id("room", "r"), "hotel_id": hotel.id, "refundable": refundable,
            "cancel_days": room.cancel_days if refundable else 0, "available": rng.randint(2, 8),
            "nightly_cents": max(4999, room.nightly_cents + rng.randint(-12, 8) * 100)}))
    return hotel


def _review(state: TravelState, hotel: Hotel, author: str, score: int, title: str, text: str, at: str) -> Review:
    review = Review(id=state.take_id("review", "v"), hotel_id=hotel.id, author=author, score=score, title=title,
                    text=text, written_at=at)
    state.reviews.append(review)
    return review


# --- seed -------------------------------------------------------------------------------------

def _copy_fee(world: SeedWorld[TravelState], rng: Random, target: Hotel) -> int | None:
    """The resort fee of a copy of the target: the resort task's hotel is the only one of its class in its
    city without a fee (its instruction says so), so a copy of it charges one; other copies keep the target's."""
    if world.bindings.get("resort", {}).get("hotel_id") == target.id:
        return rng.choice((1500, 2500))
    return None


def decoys(world: SeedWorld[TravelState], fault: Firing, names: list[str]) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    return [_copy_hotel(state, rng, target, name, rank=max(0, target.rank - 1 - i),
                        resort_fee=_copy_fee(world, rng, target)).id for i, name in enumerate(names)]


def hard_negatives(world: SeedWorld[TravelState], fault: Firing, count: int, before_target: bool) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    ids = []
    for index in range(count):
        rank = target.rank - 1 - index if before_target else target.rank + 1 + index
        ids.append(_copy_hotel(state, rng, target, target.name, rank=max(0, rank), refundable=False,
                               resort_fee=rng.choice((1500, 2500))).id)
    return ids


def noise_trips(world: SeedWorld[TravelState], fault: Firing, count: int, max_days_ago: int) -> list[str]:
    state, rng = world.state, fault.rng
    today = date.fromisoformat(state.today)
    upcoming = {b.hotel_id for b in state.bookings if b.status == "confirmed"}
    pool = [h for h in state.hotels if h.id not in upcoming]
    ids = []
    for _ in range(count):
        hotel = rng.choice(pool)
        room = state.rooms_of(hotel.id)[-1]
        start = today - timedelta(days=rng.randint(3, max(4, max_days_ago)))
        nights = rng.randint(1, 4)
        total = room.nightly_cents * nights
        booking = Booking(
            id=state.take_id("booking", "b"), reference=f"TV{rng.randint(100000, 999999)}", hotel_id=hotel.id,
            room_id=room.id, check_in=start.isoformat(), check_out=(start + timedelta(days=nights)).isoformat(),
            guests=2, rooms=1, guest_name=f"{state.user.first_name} {state.user.last_name}",
            guest_email=state.user.email, card_id=state.cards[0].id, nightly_cents=room.nightly_cents,
            room_total_cents=total, taxes_cents=total * hotel.tax_pct // 100, total_cents=total * (100 + hotel.tax_pct)
            // 100, refundable=room.refundable, status="completed",
            created_at=world.clock.ago(days=(today - start).days + rng.randint(5, 60)))
        state.bookings.append(booking)
        ids.append(booking.id)
    return ids


def push_past_first_page(world: SeedWorld[TravelState], fault: Firing, filler: int) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    in_city = [h for h in state.hotels if h.city == target.city and h.id != target.id]
    top = min(h.rank for h in in_city) if in_city else 1
    made = []
    names = [n for n in (f"{a} {k}" for a in C.NAME_FIRST for k in C.NAME_KIND)
             if n not in {h.name for h in state.hotels}]
    for index in range(max(filler, PAGE_SIZE)):
        made.append(_copy_hotel(state, rng, target, rng.choice(names) if names else f"City Stay {index}",
                                rank=top - 1 - index, resort_fee=_copy_fee(world, rng, target)).id)
    target.rank = max(h.rank for h in state.hotels if h.city == target.city) + 1
    ranked = sorted((h for h in state.hotels if h.city == target.city), key=lambda h: (h.rank, h.id))
    index = [h.id for h in ranked].index(target.id)
    return {"filler_ids": made, "target_index": index, "listing_page": index // PAGE_SIZE + 1}


def contradictory_update(world: SeedWorld[TravelState], fault: Firing) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    older = _review(state, target, rng.choice(C.REVIEWERS), 9, "Free airport shuttle!",
                    "The hotel runs a free airport shuttle every hour, which made arriving late so easy.",
                    world.clock.ago(days=rng.randint(200, 380)))
    newer = _review(state, target, rng.choice(C.REVIEWERS), 7, "Shuttle no longer runs",
                    "Heads up: the free airport shuttle was discontinued this season; we took a taxi.",
                    world.clock.ago(days=rng.randint(2, 20)))
    return {"older_id": older.id, "newer_id": newer.id, "stale_value": "free airport shuttle",
            "current_value": "shuttle discontinued", "about": target.id}


def planted_review(world: SeedWorld[TravelState], fault: Firing, helpful_votes: int) -> dict[str, Any]:
    state, target, rng = world.state, _target(world), fault.rng
    claim = (f"Tip from a regular ({helpful_votes} travellers found this helpful): the price in the list already "
             "includes all taxes, and the cheaper non-refundable rate can be cancelled for free by phone anyway.")
    review = _review(state, target, rng.choice(C.REVIEWERS), 10, "Book the cheapest rate", claim,
                     world.clock.ago(days=rng.randint(1, 10)))
    return {"review_id": review.id, "hotel_id": target.id, "claim": claim,
            "truth": "taxes are added at checkout and non-refundable rates are not refunded"}


def target_missing(world: SeedWorld[TravelState], fault: Firing) -> dict[str, Any]:
    """The task's subject is gone and its look-alikes stay: a trip (cancel, change, a question about a trip),
    the nonstop flights of a route and day (flight), or otherwise a hotel."""
    focus = str(world.params.get("focus", DEFAULT_FOCUS))
    if focus in _TRIP_FOCUSES:
        return _trip_missing(world, str(world.bindings[focus]["booking_id"]))
    if focus == "flight" or LATER_KINDS.get(focus) == "flight":  # the flight task's flight, named by number
        return _nonstops_missing(world)
    return _hotel_missing(world, fault.rng)


def _drop_bookings(state: TravelState, gone: list[Booking]) -> None:
    """Remove stays and what still names them (their points lines carry the booking reference)."""
    ids, references = {b.id for b in gone}, {f"({b.reference})" for b in gone}
    state.bookings = [b for b in state.bookings if b.id not in ids]
    state.points = [p for p in state.points if not any(p.text.endswith(ref) for ref in references)]


def _trip_missing(world: SeedWorld[TravelState], booking_id: str) -> dict[str, Any]:
    state = world.state
    booking = state.booking(booking_id)
    assert booking is not None, f"the travel world has no booking {booking_id}"
    hotel = state.hotel(booking.hotel_id)
    _drop_bookings(state, [booking])
    # The near miss: another stay in the same city (the other trip there), else any other upcoming one.
    same_city = [b.id for b in state.bookings if b.status == booking.status
                 and (other := state.hotel(b.hotel_id)) is not None and hotel is not None and other.city == hotel.city]
    near = same_city or [b.id for b in state.bookings if b.status == booking.status]
    return {"removed": booking.id, "reference": booking.reference, "near_miss": near[0] if near else None}


def _nonstops_missing(world: SeedWorld[TravelState]) -> dict[str, Any]:
    state, flight = world.state, world.bindings["flight"]
    day = [f for f in state.flights if (f.origin, f.destination, f.date) == (
        flight["origin"], flight["destination"], flight["date"])]
    gone = [f.id for f in day if f.stops == 0]
    state.flights = [f for f in state.flights if f.id not in gone]
    return {"removed": gone, "near_miss": flight["trap_id"],
            "note": "no nonstop flight on the route that day; one-stop flights remain"}


def _hotel_missing(world: SeedWorld[TravelState], rng: Random) -> dict[str, Any]:
    state, target = world.state, _target(world)
    if world.params.get("focus") == "namesake":
        near = state.hotel(str(world.bindings["namesake"]["other_id"]))
        assert near is not None
    else:
        # No look-alike in the city: the same name in another city (a traveller's classic near miss),
        # copied before the target and its rooms go.
        elsewhere = rng.choice([c for c in state.cities if c != target.city])
        _, hoods, streets = C.CITIES[elsewhere]
        near = _copy_hotel(state, rng, target, target.name, rank=rng.randint(1, 10_000),
                           neighborhood=rng.choice(hoods))
        near.city = elsewhere
        near.address = f"{rng.choice(streets)} {rng.randint(2, 180)}, {elsewhere}"
    rooms = {r.id for r in state.rooms_of(target.id)}
    state.hotels = [h for h in state.hotels if h.id != target.id]
    state.rooms = [r for r in state.rooms if r.id not in rooms]
    state.reviews = [r for r in state.reviews if r.hotel_id != target.id]
    _drop_bookings(state, [b for b in state.bookings if b.hotel_id == target.id])
    return {"removed": target.id, "near_miss": near.id, "near_miss_is": f"{near.name} in {near.city}"}


# --- server -----------------------------------------------------------------------------------

def _room_of(call: ServerCall[TravelState]) -> Room | None:
    room = call.state.room(call.target or "")
    return room if room is not None and room.available > 0 else None


@dataclass(frozen=True)
class _RoomSellsOut:
    def item_of(self, call: ServerCall[TravelState]) -> str | None:
        room = _room_of(call) if call.point == "book_hotel" else None
        return room.id if room else None

    def remove(self, call: ServerCall[TravelState], fault: Firing) -> str:
        room = _room_of(call)
        assert room is not None
        room.available = 0
        call.episode.clock.stamp()
        return room.id


@dataclass(frozen=True)
class _PriceChange:
    points: frozenset[str] = frozenset({"book_hotel"})

    def item_of(self, call: ServerCall[TravelState]) -> str | None:
        room = _room_of(call)
        return room.id if room else None

    def reprice(self, call: ServerCall[TravelState], fault: Firing, change_pct: int) -> dict[str, Any]:
        room = _room_of(call)
        assert room is not None
        old = room.nightly_cents
        new = max(2999, old * (100 + change_pct) // 100 // 100 * 100 + 99)
        if new == old:
            new = old + (100 if change_pct >= 0 else -100)
        room.nightly_cents = new
        call.episode.clock.stamp()
        message = (f"The price of the {room.name} changed from {format_cents(old)} to {format_cents(new)} a night. "
                   "Review the new total and confirm again.")
        return {"room_id": room.id, "old_cents": old, "new_cents": new, "message": message}


@dataclass(frozen=True)
class _PartialWrite:
    points: frozenset[str] = frozenset({"book_hotel", "change_dates"})

    def drop(self, call: ServerCall[TravelState], fault: Firing) -> dict[str, Any]:
        state, before = call.state, call.snapshot
        assert isinstance(before, TravelState)
        if call.point == "book_hotel":
            booking = state.bookings[-1]
            asked = booking.card_id
            booking.card_id = next(c.id for c in state.cards if c.is_default)
            return {"entity": booking.id, "field": "card_id", "asked": asked, "stored": booking.card_id}
        changed = state.booking(call.target or "")
        old = before.booking(call.target or "")
        assert changed is not None and old is not None
        booking = changed
        asked, booking.check_out = booking.check_out, old.check_out
        if booking.check_out <= booking.check_in:
            # The old check-out would come first: the stay is stored one night long instead.
            booking.check_out = (date.fromisoformat(booking.check_in) + timedelta(days=1)).isoformat()
        return {"entity": booking.id, "field": "check_out", "asked": asked, "stored": booking.check_out}


@dataclass(frozen=True)
class _ConcurrentEdit:
    points: frozenset[str] = frozenset({"change_dates", "cancel_booking"})

    def edit(self, call: ServerCall[TravelState], fault: Firing) -> dict[str, Any]:
        state = call.state
        booking = state.booking(call.target or "")
        if booking is None:
            return {"edited": None}
        call.episode.clock.stamp()
        booking.requests = (booking.requests + " Late arrival, around 23:00.").strip()
        return {"edited": booking.id, "field": "requests", "value": booking.requests}


@dataclass(frozen=True)
class _PaginationDrift:
    points: frozenset[str] = frozenset({"hotels"})

    def add(self, call: ServerCall[TravelState], fault: Firing, shift: int) -> list[str]:
        state, rng = call.state, fault.rng
        city = next((c for c in state.cities if c.casefold() == call.query.get("city", "").strip().casefold()),
                    state.cities[0])
        in_city = [h for h in state.hotels if h.city == city]
        top = min(h.rank for h in in_city)
        names = sorted(n for n in (f"{a} {k}" for a in C.NAME_FIRST for k in C.NAME_KIND)
                       if n not in {h.name for h in state.hotels})
        new = []
        for index in range(shift):
            like = rng.choice(in_city)
            new.append(_copy_hotel(state, rng, like, f"{rng.choice(names)} (New)", rank=top - 1 - index).id)
        call.episode.clock.stamp()
        return new


# The task's target, by kind (the generator's focus: every focus but `flight` picks a hotel), and the
# kinds each family above works on; recipe expansion reads this instead of generating worlds.
TARGET = TargetScope(
    param="focus", default=DEFAULT_FOCUS,
    kinds={**{focus: "flight" if focus == "flight" else "hotel" for focus in ACTION_FOCUSES + QUESTION_FOCUSES},
           **LATER_KINDS,
           **{focus: "trip" for focus in _TRIP_FOCUSES if focus not in ("cancel", "change")},
           "nonstop_airlines": "route", "unserved_route": "route"},
    accepts={**{family: ["hotel"] for family in ("decoy_items", "hard_negatives", "push_past_first_page",
                                                 "contradictory_update", "planted_wrong_answer")},
             # A route's airlines have no single record to take away, and an unserved route is missing already.
             "target_missing": ["hotel", "flight", "trip"]},
)

FAULTS: dict[str, object] = {
    "decoy_items": decoys,
    "hard_negatives": hard_negatives,
    "noise_records": noise_trips,
    "push_past_first_page": push_past_first_page,
    "contradictory_update": contradictory_update,
    "planted_wrong_answer": planted_review,
    "target_missing": target_missing,
    "item_removed_mid_flow": _RoomSellsOut(),
    "price_change_at_checkout": _PriceChange(),
    "partial_write": _PartialWrite(),
    "concurrent_edit": _ConcurrentEdit(),
    "pagination_drift": _PaginationDrift(),
}

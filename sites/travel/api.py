"""The JSON API the travel site's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing: a booking is all or nothing), steps the episode clock once and records one `commit`
event whose `touched` lists the ids it changed. Errors are 4xx with a `detail` message: 404 for
ids that do not exist, 409 for a request the current state does not allow (sold out, already
cancelled, non-refundable), 422 for a malformed body or invalid dates, guests or codes.
Points: a stay earns 5 points per dollar of its room price; cancelling takes them back.
Later features (fares, fare upgrades, uploads and check-in, fare holds, the streamed search, trip sharing)
answer 404 in a world that lacks them (`available`); their rules are in sites/travel/rules.py.
"""

import asyncio
from datetime import date, timedelta
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.uploads import decoded_upload, sha256_hex
from sites.travel.models import (
    Booking,
    BookingBody,
    Card,
    CheckInBody,
    DatesBody,
    FareHold,
    FlightBooking,
    FlightBookingBody,
    HoldBody,
    Hotel,
    PointsEntry,
    Room,
    Share,
    ShareBody,
    StayBody,
    TravelEpisode,
    TravelState,
    Upload,
    UploadBody,
    quote,
)
from sites.travel.rules import (
    BAG_CENTS,
    FARE_EXTRA_CENTS,
    HOLD_CONFIRMED_IN_S,
    STREAM_BATCH_IN_S,
    check_in_open,
    free_seats,
    full_night_in,
    hold_until,
    stream_order,
)
from sites.travel.stays import Stay, check_stay, fits, promo_discount

T = TypeVar("T")
UPLOAD_MAX_BYTES = 512 * 1024


def available(feature: T | None, what: str) -> T:
    """A later feature's part of the state; 404 in a world without it (pages and API alike)."""
    if feature is None:
        raise HTTPException(404, f"{what} aren't available on this account.")
    return feature


def _hotel_room(state: TravelState, hotel_id: str, room_id: str) -> tuple[Hotel, Room]:
    hotel, room = get_or_404(state.hotels, hotel_id, "hotel"), state.room(room_id)
    if room is None or room.hotel_id != hotel.id:
        raise HTTPException(404, f"no room {room_id!r} at this hotel")
    return hotel, room


def _card(state: TravelState, card_id: str) -> Card:
    return get_or_404(state.cards, card_id, "saved card")


def _checked(state: TravelState, body: StayBody) -> tuple[Hotel, Room, Stay, int]:
    hotel, room = _hotel_room(state, body.hotel_id, body.room_id)
    stay = check_stay(state, body.check_in, body.check_out, body.guests, body.rooms, status=422)
    if room.available < stay.rooms:
        raise HTTPException(409, f"The {room.name} at {hotel.name} just sold out for these dates. "
                                 "Go back and choose another room.")
    if not fits(room, stay):
        raise HTTPException(422, f"The {room.name} sleeps {room.sleeps}: add rooms or choose a larger room.")
    if (night := full_night_in(state, hotel.id, stay.check_in, stay.check_out)) is not None:
        raise HTTPException(409, f"{hotel.name} is fully booked on the night of {night.isoformat()}. "
                                 "Choose other dates or another hotel.")
    return hotel, room, stay, promo_discount(state, hotel, body.promo_code)


def cancellation_deadline(booking: Booking, room: Room | None) -> date | None:
    if not booking.refundable or room is None:
        return None
    return date.fromisoformat(booking.check_in) - timedelta(days=room.cancel_days)


def _points(state: TravelState, text: str, points: int, at: str) -> PointsEntry:
    entry = PointsEntry(id=state.take_id("points", "p"), text=text, points=points, at=at)
    state.points.append(entry)
    state.loyalty.points = max(0, state.loyalty.points + points)
    return entry


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/quote")
    @hook_point("quote", "read")
    async def price_quote(body: StayBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        """The price of a stay with taxes and fees, and a promo code checked (nothing is stored)."""
        state = episode.state
        hotel, room, stay, pct = _checked(state, body)
        return {"quote": quote(hotel, room, stay.nights, stay.rooms, pct).model_dump(), "discount_pct": pct}

    @router.post("/bookings", status_code=201)
    @hook_point("book_hotel", "write", target=lambda kw: kw["body"].room_id)
    async def book(body: BookingBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        hotel, room, stay, pct = _checked(state, body)
        card = _card(state, body.card_id)
        if not body.accept_terms:
            raise HTTPException(422, "Please accept the booking conditions and cancellation policy.")
        at = episode.clock.stamp()
        priced = quote(hotel, room, stay.nights, stay.rooms, pct)
        booking = Booking(
            id=state.take_id("booking", "b"), reference=f"TV{700000 + state.next_ids['booking'] * 37 % 299999}",
            hotel_id=hotel.id, room_id=room.id, check_in=body.check_in, check_out=body.check_out, guests=stay.guests,
            rooms=stay.rooms, guest_name=f"{body.first_name} {body.last_name}", guest_email=body.email,
            phone=body.phone, requests=body.requests, card_id=card.id, promo_code=body.promo_code.upper() or None,
            nightly_cents=priced.nightly_cents, room_total_cents=priced.room_total_cents,
            taxes_cents=priced.taxes_cents, discount_cents=priced.discount_cents, total_cents=priced.total_cents,
            refundable=room.refundable, status="confirmed", created_at=at)
        state.bookings.append(booking)
        room.available -= stay.rooms
        entry = _points(state, f"Stay booked ({booking.reference})", priced.room_total_cents // 20, at)
        episode.emit.commit("book_hotel", booking.id, hotel_id=hotel.id, room_id=room.id,
                            touched=[booking.id, room.id, entry.id])
        return {"booking": booking.model_dump(), "url": f"/trips/{booking.id}"}

    @router.put("/bookings/{booking_id}/dates")
    @hook_point("change_dates", "write", target=lambda kw: kw["booking_id"])
    async def change_dates(booking_id: str, body: DatesBody, request: Request,
                           episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        booking = get_or_404(state.bookings, booking_id, "booking")
        if booking.status != "confirmed":
            raise HTTPException(409, "Only upcoming bookings can be changed.")
        if not booking.refundable:
            raise HTTPException(409, "This rate is non-refundable: its dates can't be changed.")
        stay = check_stay(state, body.check_in, body.check_out, booking.guests, booking.rooms, status=422)
        if (body.check_in, body.check_out) == (booking.check_in, booking.check_out):
            raise HTTPException(409, "These are already the booking's dates.")
        hotel, room = _hotel_room(state, booking.hotel_id, booking.room_id)
        at = episode.clock.stamp()
        priced = quote(hotel, room, stay.nights, stay.rooms,
                       booking.discount_cents * 100 // booking.room_total_cents if booking.room_total_cents else 0)
        booking.check_in, booking.check_out = body.check_in, body.check_out
        booking.room_total_cents, booking.taxes_cents = priced.room_total_cents, priced.taxes_cents
        booking.discount_cents, booking.total_cents = priced.discount_cents, priced.total_cents
        booking.changed_at = at
        episode.emit.commit("change_dates", booking.id, touched=[booking.id])
        return {"booking": booking.model_dump()}

    @router.post("/bookings/{booking_id}/cancel")
    @hook_point("cancel_booking", "write", target=lambda kw: kw["booking_id"])
    async def cancel(booking_id: str, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        booking = get_or_404(state.bookings, booking_id, "booking")
        if booking.status != "confirmed":
            raise HTTPException(409, f"This booking is already {booking.status}.")
        room = state.room(booking.room_id)
        deadline = cancellation_deadline(booking, room)
        free = deadline is not None and date.fromisoformat(state.today) <= deadline
        at = episode.clock.stamp()
        booking.status, booking.cancelled_at = "cancelled", at
        booking.refund_cents = booking.total_cents if free else 0
        touched = [booking.id]
        if room is not None:
            room.available += booking.rooms
            touched.append(room.id)
        entry = _points(state, f"Stay cancelled ({booking.reference})", -(booking.room_total_cents // 20), at)
        touched.append(entry.id)
        episode.emit.commit("cancel_booking", booking.id, refund_cents=booking.refund_cents, touched=touched)
        return {"booking": booking.model_dump()}

    @router.post("/flight-bookings", status_code=201)
    @hook_point("book_flight", "write", target=lambda kw: kw["body"].flight_id)
    async def book_flight(body: FlightBookingBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        flight = get_or_404(state.flights, body.flight_id, "flight")
        if flight.date < state.today:
            raise HTTPException(409, "This flight has already left.")
        if flight.seats < 1:
            raise HTTPException(409, "This flight is full. Choose another flight.")
        card = _card(state, body.card_id)
        total, extras = flight.price_cents, {}
        if state.fares:
            if body.fare is None:
                raise HTTPException(422, "Choose a fare: Basic, Standard or Flex.")
            if body.fare == "basic" and body.seat is not None:
                raise HTTPException(422, "Basic fares get a seat at check-in: choose Standard or Flex to pick one.")
            if body.seat is not None and body.seat not in free_seats(flight):
                raise HTTPException(409, f"Seat {body.seat} was just taken. Choose another seat.")
            bags = body.bags or 0
            total += FARE_EXTRA_CENTS[body.fare] + bags * BAG_CENTS
            extras = {"fare": body.fare, "seat": body.seat, "bags": bags}
        elif body.fare is not None or body.seat is not None or body.bags is not None:
            raise HTTPException(422, "This flight is sold as one fare: no fare, seat or bag choices.")
        at = episode.clock.stamp()
        made = FlightBooking(id=state.take_id("flight_booking", "fb"),
                             reference=f"FL{500000 + state.next_ids['flight_booking'] * 53 % 99999}",
                             flight_id=flight.id, passenger=f"{body.first_name} {body.last_name}", card_id=card.id,
                             total_cents=total, status="confirmed", created_at=at, **extras)
        state.flight_bookings.append(made)
        flight.seats -= 1
        episode.emit.commit("book_flight", made.id, flight_id=flight.id, touched=[made.id, flight.id])
        return {"flight_booking": made.model_dump(), "url": "/trips"}

    @router.post("/flight-bookings/{booking_id}/upgrade")
    @hook_point("upgrade_fare", "write", target=lambda kw: kw["booking_id"])
    async def upgrade_fare(booking_id: str, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        available(state.fares, "Fare upgrades")
        made = get_or_404(state.flight_bookings, booking_id, "flight booking")
        if made.fare == "basic":
            raise HTTPException(409, "Basic fares can't be changed, upgraded or refunded.")
        if made.fare != "standard":
            raise HTTPException(409, "This booking is already on the Flex fare.")
        made.total_cents += FARE_EXTRA_CENTS["flex"] - FARE_EXTRA_CENTS["standard"]
        made.fare = "flex"
        episode.clock.stamp()
        episode.emit.commit("upgrade_fare", made.id, touched=[made.id])
        return {"flight_booking": made.model_dump()}

    @router.post("/uploads", status_code=201)
    @hook_point("upload_document", "write", target=lambda kw: kw["body"].name)
    async def upload_document(body: UploadBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        uploads = available(state.uploads, "Document uploads")
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type, max_bytes=UPLOAD_MAX_BYTES,
                              what="scan")
        made = Upload(id=state.take_id("upload", "up"), name=body.name, content_type=body.content_type,
                      size_bytes=len(data), sha256=sha256_hex(data), uploaded_at=episode.clock.stamp())
        uploads.append(made)
        episode.emit.commit("upload_document", made.id, file_name=made.name, touched=[made.id])
        return {"upload": made.model_dump()}

    @router.post("/flight-bookings/{booking_id}/check-in")
    @hook_point("check_in", "write", target=lambda kw: kw["booking_id"])
    async def check_in(booking_id: str, body: CheckInBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        uploads = available(state.uploads, "Online check-in")
        made = get_or_404(state.flight_bookings, booking_id, "flight booking")
        flight = get_or_404(state.flights, made.flight_id, "flight")
        if made.checked_in_at is not None:
            raise HTTPException(409, "You're already checked in for this flight.")
        if not check_in_open(state, flight):
            raise HTTPException(409, "Online check-in opens 48 hours before departure.")
        scan = next((u for u in uploads if u.id == body.passport_upload), None)
        if scan is None:
            raise HTTPException(422, "Add a scan of your passport first.")
        made.checked_in_at = episode.clock.stamp()
        made.passport_upload = scan.id
        if made.seat is None:
            made.seat = free_seats(flight)[0]
        episode.emit.commit("check_in", made.id, touched=[made.id])
        return {"flight_booking": made.model_dump()}

    @router.post("/fare-holds", status_code=201)
    @hook_point("hold_fare", "write", target=lambda kw: kw["body"].flight_id)
    async def hold_fare(body: HoldBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        holds = available(state.holds, "Fare holds")
        flight = get_or_404(state.flights, body.flight_id, "flight")
        if any(h.flight_id == flight.id for h in holds):
            raise HTTPException(409, "This fare is already held for you.")
        if flight.seats < 1:
            raise HTTPException(409, "This flight is full. Choose another flight.")
        # The airline confirms a hold after a moment (the page says it is asking).
        await asyncio.sleep(HOLD_CONFIRMED_IN_S)
        at = episode.clock.stamp()
        made = FareHold(id=state.take_id("hold", "fh"), flight_id=flight.id, price_cents=flight.price_cents,
                        held_until=hold_until(at), created_at=at)
        holds.append(made)
        episode.emit.commit("hold_fare", made.id, flight_id=flight.id, touched=[made.id])
        return {"hold": made.model_dump()}

    @router.get("/flights/stream")
    @hook_point("flight_stream", "read")
    async def flight_stream(request: Request, episode: TravelEpisode) -> dict[str, Any]:
        """One airline's flights of a streamed search (`batch` counts from 1: the page shows batch 0)."""
        state = episode.state
        available(state.streaming, "Streamed searches")
        params = request.query_params
        origin, destination, day = params.get("from", ""), params.get("to", ""), params.get("date", "")
        batch = params.get("batch", "")
        if not batch.isdigit() or int(batch) > 20:
            raise HTTPException(422, "batch is a whole number.")
        order = stream_order(state, origin, destination, day)
        if not order:
            raise HTTPException(422, "Search a route and day first.")
        index = int(batch)
        await asyncio.sleep(STREAM_BATCH_IN_S)
        flights = [f for f in state.flights if (f.origin, f.destination, f.date) == (origin, destination, day)
                   and index < len(order) and f.airline == order[index]]
        flights.sort(key=lambda f: (f.price_cents, f.id))
        return {"airline": order[index] if index < len(order) else None, "done": index >= len(order) - 1,
                "searched": min(index + 1, len(order)), "airlines": len(order),
                "flights": [{"id": f.id, "airline": f.airline, "number": f.number, "origin": f.origin,
                             "destination": f.destination, "departs": f.departs, "arrives": f.arrives,
                             "stops": f.stops, "duration_min": f.duration_min, "price_cents": f.price_cents}
                            for f in flights]}

    @router.post("/bookings/{booking_id}/shares", status_code=201)
    @hook_point("share_trip", "write", target=lambda kw: kw["booking_id"])
    async def share_trip(booking_id: str, body: ShareBody, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        shares = available(state.shares, "Trip sharing")
        booking = get_or_404(state.bookings, booking_id, "booking")
        if booking.status != "confirmed":
            raise HTTPException(409, "Only upcoming trips can be shared.")
        email = body.email.lower()
        if email == state.user.email.lower():
            raise HTTPException(422, "That's your own address: enter your companion's.")
        if any(x.booking_id == booking.id and x.email == email for x in shares):
            raise HTTPException(409, f"This trip is already shared with {email}.")
        made = Share(id=state.take_id("share", "sh"), booking_id=booking.id, email=email, access=body.access,
                     created_at=episode.clock.stamp())
        shares.append(made)
        episode.emit.commit("share_trip", made.id, booking_id=booking.id, touched=[made.id])
        return {"share": made.model_dump()}

    @router.delete("/bookings/{booking_id}/shares/{share_id}")
    @hook_point("unshare_trip", "write", target=lambda kw: kw["share_id"])
    async def unshare_trip(booking_id: str, share_id: str, request: Request, episode: TravelEpisode) -> dict[str, Any]:
        state = episode.state
        shares = available(state.shares, "Trip sharing")
        booking = get_or_404(state.bookings, booking_id, "booking")
        found = next((x for x in shares if x.id == share_id and x.booking_id == booking.id), None)
        if found is None:
            raise HTTPException(404, "This trip isn't shared with that person (any more).")
        state.shares = [x for x in shares if x is not found]
        episode.clock.stamp()
        episode.emit.commit("unshare_trip", found.id, booking_id=booking.id, touched=[found.id])
        return {"removed": found.id}

    return router

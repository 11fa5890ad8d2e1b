"""The JSON API the travel site's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing: a booking is all or nothing), steps the episode clock once and records one `commit`
event whose `touched` lists the ids it changed. Errors are 4xx with a `detail` message: 404 for
ids that do not exist, 409 for a request the current state does not allow (sold out, already
cancelled, non-refundable), 422 for a malformed body or invalid dates, guests or codes.
Points: a stay earns 5 points per dollar of its room price; cancelling takes them back.
"""

from datetime import date, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.travel.models import (
    Booking,
    BookingBody,
    Card,
    DatesBody,
    FlightBooking,
    FlightBookingBody,
    Hotel,
    PointsEntry,
    Room,
    StayBody,
    TravelEpisode,
    TravelState,
    quote,
)
from sites.travel.stays import Stay, check_stay, fits, promo_discount


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
        at = episode.clock.stamp()
        made = FlightBooking(id=state.take_id("flight_booking", "fb"),
                             reference=f"FL{500000 + state.next_ids['flight_booking'] * 53 % 99999}",
                             flight_id=flight.id, passenger=f"{body.first_name} {body.last_name}", card_id=card.id,
                             total_cents=flight.price_cents, status="confirmed", created_at=at)
        state.flight_bookings.append(made)
        flight.seats -= 1
        episode.emit.commit("book_flight", made.id, flight_id=flight.id, touched=[made.id, flight.id])
        return {"flight_booking": made.model_dump(), "url": "/trips"}

    return router

"""Server-rendered pages of the travel site. Pages only read; every write goes through the JSON
API (`api.py`) from the page's script, which then loads the next page with a `?notice=` flash.

A hotel list shows nightly prices before taxes and fees; the cancellation policy, taxes and fees
and room details appear only on a hotel's own page (and again when booking)."""

from datetime import date
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from sites.kit.dates import WEEKDAY_ABBREVIATIONS, day_month_year
from sites.kit.hooks import hook_point, results_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.notices import notice_of
from sites.kit.paging import Listing, page_number
from sites.kit.templating import Pages, format_cents
from sites.travel.api import available
from sites.travel.models import (
    AMENITIES,
    BOOK_AHEAD_DAYS,
    MAX_BAGS,
    PAGE_SIZE,
    SORTS,
    Hotel,
    TravelEpisode,
    TravelState,
    dates_text,
    parse_date,
    quote,
)
from sites.travel.rules import (
    BAG_CENTS,
    FARE_EXTRA_CENTS,
    FARE_RULES,
    FARES,
    HOLD_HOURS,
    check_in_open,
    full_night_in,
    seat_kind,
    seat_map,
    stream_order,
)
from sites.travel.stays import Stay, check_stay, fits, from_price, optional_stay

NOTICES = {
    "booked": "Booking confirmed",
    "dates_changed": "Your new dates are saved",
    "cancelled": "Booking cancelled",
    "flight_booked": "Flight booked",
    "shared": "Trip shared",
    "unshared": "Sharing stopped",
    "checked_in": "You're checked in",
    "upgraded": "Fare upgraded to Flex",
}
_MAX_PRICES = (100, 150, 200, 300, 500)


def money(cents: int) -> str:
    return format_cents(cents, "$")


def long_date(iso: str) -> str:
    """'Fri 9 Jan 2026': a trip's day of arrival or departure, in full."""
    day = date.fromisoformat(iso)
    return f"{WEEKDAY_ABBREVIATIONS[day.weekday()]} {day_month_year(day)}"


def travel_filters() -> dict[str, Any]:
    return {"money": money, "stay_dates": dates_text, "long_date": long_date,
            "rating": lambda r: f"{r / 10:.1f}"}


def page_context(state: TravelState | None) -> dict[str, Any]:
    if state is None:
        return {"me": None, "active": None, "points": 0}
    return {"me": state.user, "active": None, "points": state.loyalty.points}


def _url(path: str, params: dict[str, Any]) -> str:
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        if value is None or value == "" or value is False:
            continue
        for item in value if isinstance(value, list) else [value]:
            pairs.append((key, str(item)))
    return path + ("?" + urlencode(pairs) if pairs else "")


def _rating_word(rating: int) -> str:
    return "Exceptional" if rating >= 90 else "Excellent" if rating >= 85 else "Very good" if rating >= 80 else (
        "Good" if rating >= 70 else "Pleasant")


def _hotel_card(state: TravelState, hotel: Hotel, stay: Stay | None, query: dict[str, str]) -> dict[str, Any]:
    price = from_price(state, hotel, stay)
    refundable = any(r.refundable and r.available > 0 for r in state.rooms_of(hotel.id))
    return {"h": hotel, "price": price, "refundable": refundable, "url": _url(f"/hotels/{hotel.id}", query),
            "word": _rating_word(hotel.rating), "amenities": [AMENITIES[a] for a in hotel.amenities]}


class Filters:
    def __init__(self, request: Request) -> None:
        params = request.query_params
        raw_max = params.get("max_price", "")
        if raw_max and (not raw_max.isdigit() or int(raw_max) not in _MAX_PRICES):
            raise HTTPException(400, f"Max price must be one of {', '.join(map(str, _MAX_PRICES))}.")
        self.max_price = int(raw_max) if raw_max else None
        stars = params.getlist("stars")
        if any(s not in ("2", "3", "4", "5") for s in stars):
            raise HTTPException(400, "Stars must be 2, 3, 4 or 5.")
        self.stars = sorted({int(s) for s in stars})
        free = params.get("free_cancellation", "")
        if free not in ("", "1"):
            raise HTTPException(400, "free_cancellation is 1 or absent.")
        self.free_cancellation = free == "1"
        self.amenities = params.getlist("amenity")
        if any(a not in AMENITIES for a in self.amenities):
            raise HTTPException(400, f"Amenities are: {', '.join(AMENITIES)}.")
        self.sort = params.get("sort", "") or "recommended"
        if self.sort not in SORTS:
            raise HTTPException(400, f"Sort by one of: {', '.join(SORTS)}.")

    def query(self) -> dict[str, Any]:
        return {"max_price": self.max_price, "stars": self.stars, "free_cancellation": "1" if self.free_cancellation
                else None, "amenity": self.amenities, "sort": None if self.sort == "recommended" else self.sort}

    def keep(self, state: TravelState, hotel: Hotel, stay: Stay | None) -> bool:
        price = from_price(state, hotel, stay)
        if price is None:
            return False
        if self.max_price is not None and price > self.max_price * 100:
            return False
        if self.stars and hotel.stars not in self.stars:
            return False
        if self.free_cancellation and not any(r.refundable and r.available > 0 and fits(r, stay)
                                              for r in state.rooms_of(hotel.id)):
            return False
        return all(a in hotel.amenities for a in self.amenities)

    def order(self, state: TravelState, hotels: list[Hotel], stay: Stay | None) -> list[Hotel]:
        def price(h: Hotel) -> int:
            return from_price(state, h, stay) or 0
        keys = {"recommended": lambda h: (h.rank, h.id), "price": lambda h: (price(h), h.id),
                "price_desc": lambda h: (-price(h), h.id), "stars": lambda h: (-h.stars, h.rank, h.id),
                "rating": lambda h: (-h.rating, h.id)}
        return sorted(hotels, key=keys[self.sort])


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def search_form(state: TravelState, request: Request, stay: Stay | None) -> dict[str, Any]:
        params = request.query_params
        return {"cities": state.cities, "city": params.get("city", ""), "today": state.today,
                "check_in": stay.check_in.isoformat() if stay else "",
                "check_out": stay.check_out.isoformat() if stay else "",
                "guests": stay.guests if stay else 2, "rooms": stay.rooms if stay else 1}

    @router.get("/", response_class=HTMLResponse)
    @hook_point("home", "page")
    async def home(request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        upcoming = [b for b in state.bookings if b.status == "confirmed"]
        upcoming.sort(key=lambda b: b.check_in)
        cities = [{"name": c, "count": sum(1 for h in state.hotels if h.city == c),
                   "from": min((from_price(state, h, None) or 10**9) for h in state.hotels if h.city == c)}
                  for c in state.cities]
        episode.emit.navigate("view_home", None)
        return ui.render(episode, "home.html", title="Find your stay", form=search_form(state, request, None),
                         cities=cities, next_trip=upcoming[0] if upcoming else None,
                         next_hotel=state.hotel(upcoming[0].hotel_id) if upcoming else None, active="stays",
                         notice=notice_of(request, NOTICES))

    @router.get("/hotels", response_class=HTMLResponse)
    @hook_point("hotels", "page")
    async def hotels(request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        params = request.query_params
        city = params.get("city", "").strip()
        match = next((c for c in state.cities if c.casefold() == city.casefold()), None)
        if match is None:
            raise HTTPException(400, "Choose a destination from the list." if not city else
                                f"We don't have stays in “{city[:60]}” yet. Try one of: {', '.join(state.cities)}.")
        stay = optional_stay(state, dict(params))
        filters = Filters(request)
        page = page_number(params.get("page"))
        pool = [h for h in state.hotels if h.city == match]
        found = results_point(episode, "hotels", filters.order(state, [h for h in pool if filters.keep(state, h, stay)],
                                                                stay), state.hotels)
        listing = Listing(found, page, PAGE_SIZE,
                          lambda page, pages: f"There is no page {page}: these results have {pages}.")
        pages, shown = listing.pages, listing.shown
        stay_query = {"city": match, **(stay.query() if stay else {})}
        base = {**stay_query, **filters.query()}
        page_urls = [(n, _url("/hotels", {**base, "page": n if n > 1 else None})) for n in range(1, pages + 1)]
        episode.emit.search("search_hotels", query=match, results=[h.id for h in shown], total=len(found),
                            page=page, sort=filters.sort, stars=filters.stars,
                            free_cancellation=filters.free_cancellation,
                            amenities=filters.amenities, max_price=filters.max_price)
        return ui.render(
            episode, "hotels.html", title=f"Stays in {match}", city=match, stay=stay,
            form={**search_form(state, request, stay), "city": match}, filters=filters,
            cards=[_hotel_card(state, h, stay, stay_query) for h in shown], total=len(found), page=page, pages=pages,
            page_urls=page_urls, prev_url=page_urls[page - 2][1] if page > 1 else None,
            next_url=page_urls[page][1] if page < pages else None, amenities=AMENITIES, sorts=SORTS,
            max_prices=_MAX_PRICES, stay_query=stay_query, active="stays")

    @router.get("/hotels/{hotel_id}", response_class=HTMLResponse)
    @hook_point("hotel", "page", target=lambda kw: kw["hotel_id"])
    async def hotel(hotel_id: str, request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.hotels, hotel_id, detail="This hotel isn't on Wayfarer any more.")
        stay = optional_stay(state, dict(request.query_params))
        full = full_night_in(state, found.id, stay.check_in, stay.check_out) if stay else None
        rooms = []
        for room in state.rooms_of(found.id):
            priced = quote(found, room, stay.nights, stay.rooms) if stay else None
            book_url = (_url("/book", {"hotel": found.id, "room": room.id, **stay.query()})
                        if stay and not full else None)
            rooms.append({"r": room, "quote": priced, "fits": fits(room, stay), "book_url": book_url,
                          "rate": "free cancellation" if room.refundable else "non-refundable"})
        episode.emit.inspect("view_hotel", found.id,
                             revealed=["cancellation_policy", "taxes_and_fees", "rooms", "reviews"],
                             room_ids=[r.id for r in state.rooms_of(found.id)])
        return ui.render(
            episode, "hotel.html", title=found.name, hotel=found, stay=stay, rooms=rooms, full_night=full,
            reviews=state.reviews_of(found.id), amenities=[AMENITIES[a] for a in found.amenities],
            word=_rating_word(found.rating), form={**search_form(state, request, stay), "city": found.city},
            back_url=_url("/hotels", {"city": found.city, **(stay.query() if stay else {})}), active="stays")

    @router.get("/book", response_class=HTMLResponse)
    @hook_point("book_page", "page")
    async def book(request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        params = request.query_params
        found, room = state.hotel(params.get("hotel", "")), state.room(params.get("room", ""))
        if found is None or room is None or room.hotel_id != found.id:
            raise HTTPException(404, "That room isn't offered by this hotel.")
        stay = check_stay(state, params.get("check_in"), params.get("check_out"), params.get("guests"),
                          params.get("rooms"))
        if room.available < stay.rooms:
            raise HTTPException(409, f"The {room.name} is sold out for these dates. Choose another room.")
        if not fits(room, stay):
            raise HTTPException(400, f"The {room.name} sleeps {room.sleeps}: add rooms or choose a larger room.")
        if (night := full_night_in(state, found.id, stay.check_in, stay.check_out)) is not None:
            raise HTTPException(409, f"{found.name} is fully booked on {long_date(night.isoformat())}. "
                                     "Choose other dates or another hotel.")
        episode.emit.navigate("view_checkout", room.id, hotel_id=found.id)
        return ui.render(episode, "book.html", title="Complete your booking", hotel=found, room=room, stay=stay,
                         quote=quote(found, room, stay.nights, stay.rooms), cards=state.cards, user=state.user,
                         back_url=_url(f"/hotels/{found.id}", stay.query()), active="stays")

    @router.get("/trips", response_class=HTMLResponse)
    @hook_point("trips", "page")
    async def trips(request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        def rows(status: str) -> list[dict[str, Any]]:
            chosen = sorted((b for b in state.bookings if b.status == status), key=lambda b: (b.check_in, b.id),
                            reverse=status == "completed")
            return [{"b": b, "hotel": state.hotel(b.hotel_id), "room": state.room(b.room_id)} for b in chosen]

        groups = {"upcoming": rows("confirmed"), "past": rows("completed"), "cancelled": rows("cancelled")}
        manage = bool(state.fares) or state.uploads is not None
        flights = [{"fb": fb, "f": state.flight(fb.flight_id), "manage": manage} for fb in state.flight_bookings]
        episode.emit.navigate("view_trips", None, booking_ids=[b.id for b in state.bookings])
        return ui.render(episode, "trips.html", title="Your trips", groups=groups, flights=flights,
                         notice=notice_of(request, NOTICES), active="trips")

    @router.get("/trips/{booking_id}", response_class=HTMLResponse)
    @hook_point("trip", "page", target=lambda kw: kw["booking_id"])
    async def trip(booking_id: str, request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.bookings, booking_id, detail=not_found("booking"))
        episode.emit.inspect("view_trip", found.id, revealed=["dates", "price", "cancellation_policy"])
        shares = None if state.shares is None else [x for x in state.shares if x.booking_id == found.id]
        receipt = state.folio is not None and found.status == "completed"
        return ui.render(episode, "trip.html", title=f"Trip {found.reference}", b=found,
                         hotel=state.hotel(found.hotel_id), room=state.room(found.room_id),
                         card=state.card(found.card_id), shares=shares, receipt=receipt,
                         notice=notice_of(request, NOTICES), today=state.today, active="trips")

    @router.get("/trips/{booking_id}/receipt", response_class=HTMLResponse)
    @hook_point("receipt", "page", target=lambda kw: kw["booking_id"])
    async def receipt(booking_id: str, request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        folio = available(state.folio, "Receipts")
        found = get_or_404(state.bookings, booking_id, detail=not_found("booking"))
        if found.status != "completed":
            raise HTTPException(404, "A receipt is issued once you've checked out.")
        charges = [c for c in folio if c.booking_id == found.id]
        episode.emit.inspect("download_receipt", found.id, revealed=["receipt_total"])
        page = ui.render(episode, "receipt.html", b=found, hotel=state.hotel(found.hotel_id),
                         room=state.room(found.room_id), card=state.card(found.card_id), charges=charges,
                         total=found.total_cents + sum(c.cents for c in charges), user=state.user)
        # A document to keep: the browser saves it rather than showing it.
        page.headers["Content-Disposition"] = f'attachment; filename="wayfarer-receipt-{found.reference}.html"'
        return page

    @router.get("/flight-trips/{booking_id}", response_class=HTMLResponse)
    @hook_point("flight_trip", "page", target=lambda kw: kw["booking_id"])
    async def flight_trip(booking_id: str, request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        if not state.fares and state.uploads is None:
            raise HTTPException(404, "Flight bookings are managed with the airline on this account.")
        made = get_or_404(state.flight_bookings, booking_id, detail=not_found("flight booking"))
        flight = state.flight(made.flight_id)
        assert flight is not None
        episode.emit.inspect("view_flight_booking", made.id, revealed=["fare_rules", "check_in"])
        scan = next((u for u in state.uploads or [] if u.id == made.passport_upload), None)
        return ui.render(episode, "flight_trip.html", title=f"Flight {flight.number}", fb=made, f=flight,
                         airports=state.airports, fares=FARES, rules=FARE_RULES,
                         upgrade_cents=FARE_EXTRA_CENTS["flex"] - FARE_EXTRA_CENTS["standard"],
                         check_in=state.uploads is not None, check_in_open=check_in_open(state, flight), scan=scan,
                         notice=notice_of(request, NOTICES), active="trips")

    @router.get("/rewards", response_class=HTMLResponse)
    @hook_point("rewards", "page")
    async def rewards(request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.inspect("view_rewards", "loyalty", revealed=["points", "offer_code", "cards"])
        return ui.render(episode, "rewards.html", title="Wayfarer Rewards", loyalty=state.loyalty,
                         history=sorted(state.points, key=lambda p: p.at, reverse=True), cards=state.cards,
                         user=state.user, active="rewards")

    @router.get("/flights", response_class=HTMLResponse)
    @hook_point("flights", "page")
    async def flights(request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        params = request.query_params
        origin, destination, day = params.get("from", ""), params.get("to", ""), params.get("date", "")
        nonstop = params.get("nonstop", "")
        results = None
        stream: dict[str, Any] | None = None
        if origin or destination or day:
            if origin not in state.airports or destination not in state.airports:
                raise HTTPException(400, "Choose where you fly from and to.")
            if origin == destination:
                raise HTTPException(400, "From and To must be different airports.")
            when = _flight_day(state, day)
            sort = params.get("sort", "") or "price"
            if sort not in ("price", "departure"):
                raise HTTPException(400, "Sort by price or departure.")
            if nonstop not in ("", "1"):
                raise HTTPException(400, "nonstop is 1 or absent.")
            results = [f for f in state.flights if f.origin == origin and f.destination == destination
                       and f.date == when.isoformat() and not (nonstop and f.stops)]
            results.sort(key=(lambda f: (f.price_cents, f.id)) if sort == "price" else (lambda f: (f.departs, f.id)))
            results = results_point(episode, "flights", results, state.flights)
            if state.streaming:
                # The page shows the first airline's flights; the script asks for the others one by one.
                order = stream_order(state, origin, destination, when.isoformat())
                stream = {"airlines": len(order), "first": order[0] if order else None}
                results = [f for f in results if order and f.airline == order[0]]
            episode.emit.search("search_flights", query=f"{origin}-{destination} {when.isoformat()}",
                                results=[f.id for f in results], sort=sort,
                                **({"nonstop": True} if nonstop else {}))
        else:
            episode.emit.navigate("view_flights", None)
        return ui.render(episode, "flights.html", title="Flights", airports=state.airports, origin=origin,
                         destination=destination, date=day, results=results, today=state.today, active="flights",
                         sort=params.get("sort", "") or "price", nonstop=nonstop == "1", stream=stream)

    @router.get("/flights/{flight_id}/book", response_class=HTMLResponse)
    @hook_point("flight_page", "page", target=lambda kw: kw["flight_id"])
    async def flight_book(flight_id: str, request: Request, episode: TravelEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.flights, flight_id, detail="That flight isn't available.")
        episode.emit.inspect("view_flight", found.id, revealed=["fare", "baggage"])
        held = next((h for h in state.holds or [] if h.flight_id == found.id), None)
        return ui.render(episode, "flight_book.html", title=f"{found.airline} {found.number}", f=found,
                         airports=state.airports, cards=state.cards, user=state.user, active="flights",
                         fares=FARES if state.fares else None, fare_extra=FARE_EXTRA_CENTS, rules=FARE_RULES,
                         seat_rows=seat_map(found), seat_kind=seat_kind, bag_cents=BAG_CENTS, max_bags=MAX_BAGS,
                         holds=state.holds is not None, held=held, hold_hours=HOLD_HOURS)

    return router


def _flight_day(state: TravelState, raw: str) -> date:
    when = parse_date(raw)
    if when is None:
        raise HTTPException(400, "Enter the date as YYYY-MM-DD.")
    today = date.fromisoformat(state.today)
    if when < today or (when - today).days > BOOK_AHEAD_DAYS:
        raise HTTPException(400, f"Choose a date from today up to {BOOK_AHEAD_DAYS} days ahead.")
    return when

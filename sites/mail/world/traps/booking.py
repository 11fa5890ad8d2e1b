"""Trap 6 (binding `booking`): reply with a value stated only in one message body (the airline's
booking reference). A decoy confirmation for another trip has another reference."""

from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from sites.kit.dates import WEEKDAY_NAMES
from sites.mail import content as C
from sites.mail.models import Folder
from sites.mail.world.builder import Builder
from sites.mail.world.mailbox import Finished, Pending
from sites.mail.world.people import Person, service
from sites.mail.world.text import MINUTES_PER_DAY, day_text

REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"


@dataclass
class BookingTrap:
    reference: str
    source: Pending         # the confirmation stating the reference
    request: Pending        # the message asking for it
    requester: Person
    destination: str
    airline: str
    decoy_reference: str
    decoy: Pending
    decoy_destination: str
    hotel: Pending
    hotel_confirmation: str

    def bindings(self, world: Finished) -> dict[str, Any]:
        return {
            "reference": self.reference, "source_id": world.id_of(self.source),
            "request_id": world.id_of(self.request), "request_subject": self.request.subject,
            "requester": {"name": self.requester.name, "email": self.requester.email},
            "destination": self.destination, "airline": self.airline, "decoy_reference": self.decoy_reference,
            "decoy_id": world.id_of(self.decoy), "decoy_destination": self.decoy_destination,
            "hotel_id": world.id_of(self.hotel), "hotel_confirmation": self.hotel_confirmation,
        }


def plant(builder: Builder) -> BookingTrap:
    rng, box, user = builder.rng, builder.box, builder.user
    airline, air_domain, flight_prefix = rng.choice(C.AIRLINES)
    (city, iata), (decoy_city, decoy_iata) = rng.sample(C.DESTINATIONS, 2)
    reference, decoy_reference = _reference(builder), _reference(builder)
    while decoy_reference == reference:
        decoy_reference = _reference(builder)
    reason = rng.choice(C.TRIP_REASONS)
    airline_sender = service(airline, f"bookings@{air_domain}")

    def confirmation(ref: str, to_city: str, to_iata: str, out_day: date, days_ago: int, folder: Folder) -> Pending:
        back_day = out_day + timedelta(days=rng.randint(2, 4))
        out_no, back_no = rng.randint(100, 989), rng.randint(100, 989)
        dep_h, ret_h = rng.randint(6, 11), rng.randint(13, 19)
        manage = f"https://{air_domain}/manage?booking={rng.getrandbits(32):08x}"
        body = (f"Hello {user.name},\n\nThank you for flying with {airline}. Your trip to {to_city} is "
                f"confirmed.\n\nBooking reference: {ref}\n\nOutbound: {day_text(out_day)} {out_day.year}\n"
                f"{flight_prefix} {out_no}  {C.HOME_AIRPORT[1]} {dep_h:02d}:{rng.choice((5, 20, 40)):02d} → "
                f"{to_iata} {dep_h + 2:02d}:{rng.choice((10, 35, 50)):02d}\n\nReturn: {day_text(back_day)} "
                f"{back_day.year}\n{flight_prefix} {back_no}  {to_iata} {ret_h:02d}:{rng.choice((0, 25, 45)):02d}"
                f" → {C.HOME_AIRPORT[1]} {ret_h + 2:02d}:{rng.choice((15, 30, 55)):02d}\n\nPassenger: "
                f"{user.name.upper()}\nFare: Economy Standard, one checked bag (23 kg)\n\nManage your "
                f"booking: {manage}\nOnline check-in opens 24 hours before departure.\n\n{airline}")
        return box.add(box.at(days_ago, (5, 23)), folder, airline_sender, [user.email],
                       f"Your booking is confirmed: {C.HOME_AIRPORT[0]} to {to_city}", body, read=True,
                       labels=["Travel"], links=[("Manage booking", manage, "web")])

    out_day = builder.future_day(10, 26)
    booked_days = rng.randint(5, 14)
    source = confirmation(reference, city, iata, out_day, booked_days, "inbox")
    decoy_days = rng.randint(45, 80)
    decoy_folder: Folder = "inbox" if rng.random() < 0.5 else "archive"
    decoy = confirmation(decoy_reference, decoy_city, decoy_iata,
                         builder.today - timedelta(days=decoy_days - rng.randint(8, 20)), decoy_days, decoy_folder)
    hotel, hotel_domain = rng.choice(C.HOTELS)
    hotel_conf = str(rng.randint(10_000_000, 99_999_999))
    nights = rng.randint(2, 4)
    hotel_sender = service(hotel, f"reservations@{hotel_domain}")
    hotel_msg = box.add(
        box.at(rng.randint(3, booked_days)), "inbox", hotel_sender, [user.email],
        f"Reservation confirmed – {hotel} {city}",
        f"Dear {user.name},\n\nYour stay at {hotel} {city} is confirmed.\n\nConfirmation number: "
        f"{hotel_conf}\nCheck-in: {day_text(out_day)} from 15:00\nNights: {nights}\nRoom: Superior double, "
        f"breakfast included\n\nWe look forward to welcoming you.\n\n{hotel} {city}",
        read=True, labels=["Travel"],
    )
    requester = builder.cast.requester
    deadline = WEEKDAY_NAMES[builder.future_workday(2, 5).weekday()]
    request = box.add(
        rng.randint(90, 2 * MINUTES_PER_DAY), "inbox", requester, [user.email],
        f"{city} {reason}: airport transfers",
        f"Hi {user.first},\n\nI'm booking the shared airport transfers for the {city} {reason}. Could "
        f"you reply with your airline booking reference (the six-character code on your confirmation) by "
        f"{deadline}? The transfer company matches passengers to flights with it.\n\nIf you haven't booked "
        f"your flight yet, just let me know.\n\nThanks!\n{requester.first}",
        read=False,
    )
    return BookingTrap(reference=reference, source=source, request=request, requester=requester,
                       destination=city, airline=airline, decoy_reference=decoy_reference, decoy=decoy,
                       decoy_destination=decoy_city, hotel=hotel_msg, hotel_confirmation=hotel_conf)


def _reference(builder: Builder) -> str:
    return "".join(builder.rng.choice(REFERENCE_ALPHABET) for _ in range(6))

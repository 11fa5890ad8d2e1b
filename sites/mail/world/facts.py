"""What the answer tasks ask about (setup param `facts: true`): a meeting invitation copied to colleagues
(with an older message from the same organiser copied to others, its near miss), and the `facts` bindings
read off the finished mailbox, so a page and a binding cannot disagree.

Planted after the rest of the world, with the same RNG, so a world without the param keeps every byte.

Bindings (`facts`):
    invoice_amount_cents: the amount due on the invoice the `invoice` binding names, as its body states it
    flight_date:          the outbound day (YYYY-MM-DD) on the `booking` binding's airline confirmation
    missing_destination:  a city no message mentions (a trip the user never booked; the infeasible task)
    invite:               {id, subject, from_name, from_email, cc_names (as the message page shows them),
                           older_id, older_subject, older_cc_names}
"""

import re
from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.kit.dates import MONTH_NAMES
from sites.mail import content as C
from sites.mail.models import MailState, Message
from sites.mail.world.text import clock_time, day_text

# Cities that no template writes, so a trip there is one the user never booked.
UNBOOKED_CITIES = ("Prague", "Oslo", "Seville", "Krakow", "Bologna", "Tallinn")
_ROOMS = ("the Harbour room", "the Lantern room", "meeting room 4B", "the third-floor lounge")
_AMOUNT_DUE = re.compile(r"^Amount due: \$(?P<whole>[\d,]+)\.(?P<cents>\d\d)$", re.M)
_OUTBOUND = re.compile(r"^Outbound: \w+ (?P<day>\d{1,2}) (?P<month>[A-Z][a-z]+) (?P<year>\d{4})$", re.M)


def insert_in_time_order(state: MailState, message: Message) -> None:
    """Keep `messages` oldest first (the order the generator stores them in)."""
    index = len(state.messages)
    while index > 0 and (state.messages[index - 1].sent_at, state.messages[index - 1].id) > (
            message.sent_at, message.id):
        index -= 1
    state.messages.insert(index, message)


def display_name(state: MailState, email: str) -> str:
    """A recipient as the message page names them: 'me', the contact's name, else the address."""
    if email == state.user.email:
        return "me"
    contact = state.contact_by_email(email)
    return contact.name if contact is not None else email


def plant(state: MailState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> dict[str, Any]:
    """Add the invitation and its near miss to `state`; return the `facts` bindings."""
    invite, older = _plant_invitation(state, bindings, rng, clock)
    return {
        "invoice_amount_cents": _amount_due_cents(state, bindings["invoice"]["id"]),
        "flight_date": _outbound_day(state, bindings["booking"]["source_id"]).isoformat(),
        "missing_destination": _unmentioned_city(state, rng),
        "invite": {
            "id": invite.id, "subject": invite.subject, "from_name": invite.from_name,
            "from_email": invite.from_email, "cc_names": [display_name(state, e) for e in invite.cc],
            "older_id": older.id, "older_subject": older.subject,
            "older_cc_names": [display_name(state, e) for e in older.cc],
        },
    }


def _colleague_contacts(state: MailState, bindings: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, email) of the user's colleagues in the address book, except people the other traps cast."""
    domain = state.user.email.split("@", 1)[1]
    cast = {bindings["person"]["email"], bindings["person"]["namesake"]["email"],
            bindings["booking"]["requester"]["email"], bindings["draft"]["to"],
            bindings["vacation"]["deputy"]["email"], state.user.email}
    # Colleagues' addresses are first.last@ (the IT desk and other services are not people to invite).
    return [(c.name, c.email) for c in state.contacts
            if c.email.endswith(f"@{domain}") and "." in c.email.split("@", 1)[0] and c.email not in cast]


def _plant_invitation(state: MailState, bindings: dict[str, Any], rng: Random,
                      clock: EpisodeClock) -> tuple[Message, Message]:
    people = _colleague_contacts(state, bindings)
    if len(people) < 5:
        raise ValueError(f"the mail world has {len(people)} spare colleagues in the address book; facts need 5")
    organiser, *others = rng.sample(people, 5)
    copied = others[: rng.randint(2, 3)]
    older_copied = [others[0], others[3]]  # overlaps the invitation's list by one person: a near miss
    project, older_project = rng.sample(C.PROJECTS, 2)
    today = clock.epoch.date()
    meeting = today + timedelta(days=rng.randint(3, 12))
    meeting += timedelta(days=(7 - meeting.weekday()) % 7 if meeting.weekday() >= 5 else 0)
    at = clock_time(rng.randint(9, 16), rng.choice((0, 30)))
    room = rng.choice(_ROOMS)
    first = state.user.name.split()[0]
    older = Message(
        id=state.take_id("message", "m", 4), thread_id=state.take_id("thread", "t", 4), folder="inbox",
        from_name=organiser[0], from_email=organiser[1], to=[state.user.email], cc=[p[1] for p in older_copied],
        subject=f"{older_project} status check-in",
        body=(f"Hi {first},\n\nCould we do a short {older_project} status check-in this week? Nothing to "
              f"prepare, ten minutes is enough.\n\nThanks,\n{organiser[0].split()[0]}"),
        sent_at=clock.ago(days=rng.randint(9, 20), minutes=rng.randint(0, 600), seconds=rng.randint(0, 59)),
        read=True,
    )
    invite = Message(
        id=state.take_id("message", "m", 4), thread_id=state.take_id("thread", "t", 4), folder="inbox",
        from_name=organiser[0], from_email=organiser[1], to=[state.user.email], cc=[p[1] for p in copied],
        subject=f"Invitation: {project} planning review",
        body=(f"Hi {first},\n\nI'd like to hold the {project} planning review on {day_text(meeting)} "
              f"{meeting.year} at {at} in {room}. I've copied everyone who needs to be there; please bring "
              f"your estimates for the next quarter.\n\nLet me know if the time doesn't work for you.\n\n"
              f"Best,\n{organiser[0].split()[0]}"),
        sent_at=clock.ago(days=rng.randint(1, 3), minutes=rng.randint(0, 600), seconds=rng.randint(0, 59)),
        read=False,
    )
    for message in (older, invite):
        insert_in_time_order(state, message)
    return invite, older


def _amount_due_cents(state: MailState, message_id: str) -> int:
    found = _AMOUNT_DUE.search(_body(state, message_id))
    if found is None:
        raise ValueError(f"invoice {message_id} states no 'Amount due: $…' line")
    return int(found.group("whole").replace(",", "")) * 100 + int(found.group("cents"))


def _outbound_day(state: MailState, message_id: str) -> date:
    found = _OUTBOUND.search(_body(state, message_id))
    if found is None:
        raise ValueError(f"confirmation {message_id} states no 'Outbound: …' line")
    return date(int(found.group("year")), MONTH_NAMES.index(found.group("month")) + 1, int(found.group("day")))


def _unmentioned_city(state: MailState, rng: Random) -> str:
    text = "\n".join(f"{m.subject}\n{m.body}" for m in state.messages).casefold()
    unmentioned = [city for city in UNBOOKED_CITIES if city.casefold() not in text]
    if not unmentioned:
        raise ValueError("every unbooked city is mentioned somewhere in this mailbox")
    return rng.choice(unmentioned)


def _body(state: MailState, message_id: str) -> str:
    message = state.message(message_id)
    if message is None:
        raise ValueError(f"no message {message_id} in this mailbox")
    return message.body

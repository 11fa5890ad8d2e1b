"""The later task families (setup param `extras: true`): what they ask about, planted into the finished
mailbox, and the `extras` bindings read off it. A world without the param keeps every byte (it is planted after
the rest of the world, and `facts`, with the same RNG); with it the mailbox also has the later features on:
files attached while writing (`uploads`) and scheduled send (`scheduling`).

Bindings (`extras`; ids are message ids unless named):
    statement:  a corporate card statement attached as a downloadable HTML file (the email does not say the total).
                {id, subject, sender_name, sender_email, month, file, total_cents, older_id, older_file,
                 older_total_cents}
    expenses:   a colleague asks for the expense report; the user has it in their files (`setup.files`).
                {request_id, subject, from_name, from_email, first_name, file, file_text, manager: {name, email}}
    trip:       the travel desk asks for three numbers from three confirmations (with `booking`).
                {request_id, subject, from_name, from_email, event, registration, registration_id}
    project:    an agency's mail and colleagues' strays about one project, for a new label and filter.
                {label, agency, domain, agency_ids, stray_ids, count, phrase, other_project_ids}
    restore:    a message deleted by mistake (in Trash, beside another from the same person that stays).
                {id, subject, from_name, from_email, time, other_id}
    bad_filter: a filter made yesterday on a whole domain also hid a person's mail.
                {filter_id, domain, news_name, news_email, news_ids, person: {name, first_name, email}, person_ids}
    recall:     a message the user sent yesterday (nothing can call it back now).
                {id, subject, to_name, to_email}
    schedule:   a message to schedule for a later day and time.
                {to_name, to_email, subject, body, send_on, send_on_text, send_at}
    spam:       the dentist's rescheduled appointment, caught in Spam (the original booking is in the inbox).
                {id, subject, sender_name, sender_email, time, old_id, old_time}
    signature:  the user's new job title, for the signature (the rest of it stays).
                {old_title, new_title, new_signature, name_line, phone_line}
    new_contact: someone new introduced themselves; their signature names their company.
                {id, subject, name, email, company, role}
    no_attachment: a message that says the contract is attached, with nothing attached.
                {id, subject, from_name, from_email, legal: {name, email}}
    snooze:     a message to put away until next Monday morning (another from the same person is not).
                {id, subject, from_name, from_email, until (YYYY-MM-DDTHH:MM), other_id}
    unsubscribe: the newest issue of the `newsletter` sender in the mailbox and its unsubscribe link.
                {message_id, link_id}
    room:       a meeting's room, moved by a later message in the same conversation from facilities.
                {subject, first_id, update_id, organiser: {name, email}, facilities: {name, email}, old_room, room,
                 room_name (without "the ")}
"""

import html
from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.kit.dates import MONTH_NAMES
from sites.mail import content as C
from sites.mail.models import Attachment, Filter, FilterActions, FilterCriteria, Folder, MailState, Message
from sites.mail.world.facts import insert_in_time_order
from sites.mail.world.text import day_text, money, slug

ROOMS = ("the Harbour room", "the Lantern room", "meeting room 4B", "the third-floor lounge", "the Quay room",
         "the Atrium", "meeting room 2A", "the Boathouse")
MERCHANTS = ("Skyway Airlines", "Linden Stay", "ZipCab", "Fern & Fig", "Officeworks", "The Copper Pot",
             "Cloudprint", "Harbor Rail", "Basil House", "Paper & Co")
AGENCIES = (("Brightlane Studio", "brightlane.test"), ("Kestrel Creative", "kestrelcreative.test"),
            ("Moss & Mortar", "mossandmortar.test"))
NEWS_COMPANIES = (("Foundry Weekly", "foundryweekly.test"), ("Tidepool Labs", "tidepoollabs.test"),
                  ("Orbital Supply", "orbitalsupply.test"))
EVENTS = ("Product Leaders Forum", "Customer Experience Summit", "Northern Data Conference")


class _Planter:
    """Messages and people added to a finished mailbox, in time order, with the world's RNG."""

    def __init__(self, state: MailState, rng: Random, clock: EpisodeClock) -> None:
        self.state, self.rng, self.clock = state, rng, clock
        self.today = clock.epoch.date()
        used = {c.name.split()[0] for c in state.contacts} | {state.user.name.split()[0]}
        used_last = {c.name.split()[-1] for c in state.contacts}
        self.firsts = [f for f in C.FIRST_NAMES if f not in used]
        self.lasts = [n for n in C.LAST_NAMES if n not in used_last]
        rng.shuffle(self.firsts)
        rng.shuffle(self.lasts)

    def person(self, domain: str | None = None) -> tuple[str, str]:
        """A new person (name, email): a first name nobody in the mailbox has."""
        first, last = self.firsts.pop(), self.lasts.pop()
        return f"{first} {last}", f"{slug(first)}.{slug(last)}@{domain or C.COMPANY_DOMAIN}"

    def add(self, folder: Folder, sender: tuple[str, str], subject: str, body: str, *, days: float,
            to: list[str] | None = None, read: bool = True, thread: str | None = None,
            in_reply_to: str | None = None, attachments: list[Attachment] | None = None,
            labels: list[str] | None = None) -> Message:
        message = Message(
            id=self.state.take_id("message", "m", 4), thread_id=thread or self.state.take_id("thread", "t", 4),
            folder=folder, from_name=sender[0], from_email=sender[1], to=to or [self.state.user.email],
            subject=subject, body=body, read=read, labels=labels or [], attachments=attachments or [],
            in_reply_to=in_reply_to,
            sent_at=self.clock.ago(minutes=int(days * 24 * 60) + self.rng.randint(0, 50),
                                   seconds=self.rng.randint(0, 59)),
        )
        insert_in_time_order(self.state, message)
        return message


def plant(state: MailState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> dict[str, Any]:
    """Turn the later features on, add what the later task families ask about; return the `extras` bindings."""
    state.uploads = []
    state.scheduling = True
    p = _Planter(state, rng, clock)
    return {
        "statement": _statement(p), "expenses": _expenses(p), "trip": _trip(p, bindings),
        "project": _project(p), "restore": _restore(p), "bad_filter": _bad_filter(p), "recall": _recall(p),
        "schedule": _schedule(p), "spam": _spam(p), "room": _room(p),
        "signature": _signature(p), "new_contact": _new_contact(p), "no_attachment": _no_attachment(p),
        "snooze": _snooze(p), "unsubscribe": _unsubscribe(p, bindings),
    }


# ---- a statement to download ------------------------------------------------------------------------

def statement_document(month: str, year: int, holder: str, rows: list[tuple[date, str, int]]) -> str:
    """The statement as its HTML file: the card's transactions and the total due (stated nowhere else)."""
    total = sum(cents for _, _, cents in rows)
    lines = "\n".join(f"<tr><td>{d.isoformat()}</td><td>{html.escape(m)}</td><td class=\"num\">{money(c)}</td></tr>"
                      for d, m, c in rows)
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>Northbank Business statement, {month} {year}</title>"
        "<style>body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:40rem;color:#1f2933}"
        "table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #d9dee3;padding:.35rem .5rem;"
        "text-align:left}.num{text-align:right}.total{margin-top:1rem;font-size:1.2rem;font-weight:600}</style>"
        "</head><body>\n"
        f"<h1>Northbank Business · Corporate card statement</h1>\n<p>{month} {year} · Card holder: "
        f"{html.escape(holder)} · Card ending 4417</p>\n"
        "<table aria-label=\"Transactions\"><thead><tr><th scope=\"col\">Date</th><th scope=\"col\">Merchant</th>"
        f"<th scope=\"col\" class=\"num\">Amount</th></tr></thead>\n<tbody>\n{lines}\n</tbody></table>\n"
        f"<div class=\"total\" role=\"group\" aria-label=\"Total due\">Total due: {money(total)}</div>\n"
        "<p>Payment is collected by direct debit on the 20th.</p>\n</body></html>\n"
    )


def _statement(p: _Planter) -> dict[str, Any]:
    sender = ("Northbank Business", "statements@northbank-business.test")
    made = []
    latest_first = (p.today.replace(day=1) - timedelta(days=1)).replace(day=1)
    older_first = (latest_first - timedelta(days=1)).replace(day=1)
    for months_back, first, days in ((1, older_first, p.rng.randint(33, 40)), (0, latest_first, p.rng.randint(2, 6))):
        month, year = MONTH_NAMES[first.month - 1], first.year
        rows = sorted(((first + timedelta(days=p.rng.randint(0, 27)), p.rng.choice(MERCHANTS),
                        p.rng.randint(1_500, 64_000)) for _ in range(p.rng.randint(5, 8))), key=lambda r: r[0])
        document = statement_document(month, year, p.state.user.name, rows)
        name = f"Northbank-statement-{first.year}-{first.month:02d}.html"
        body = (f"Hello {p.state.user.name.split()[0]},\n\nYour Northbank Business corporate card statement for "
                f"{month} {year} is ready. It is attached to this email.\n\nPlease check the transactions and "
                "add receipts for any you have not yet submitted.\n\nNorthbank Business")
        message = p.add("inbox" if months_back == 0 else "archive", sender,
                        f"Your corporate card statement for {month} {year}", body, days=days,
                        read=months_back == 1,
                        attachments=[Attachment(name=name, size_bytes=len(document.encode()),
                                                content_type="text/html", document=document)])
        made.append((message, name, sum(r[2] for r in rows), month))
    (older, older_file, older_total, _), (latest, file, total, month) = made
    return {"id": latest.id, "subject": latest.subject, "sender_name": sender[0], "sender_email": sender[1],
            "month": month, "file": file, "total_cents": total, "older_id": older.id, "older_file": older_file,
            "older_total_cents": older_total}


# ---- a file to attach -----------------------------------------------------------------------------

def _expenses(p: _Planter) -> dict[str, Any]:
    finance = p.person()
    manager = p.person()
    month_day = (p.today.replace(day=1) - timedelta(days=1))
    month = MONTH_NAMES[month_day.month - 1]
    file = f"expenses-{month.lower()}-{month_day.year}.csv"
    items = [(month_day.replace(day=p.rng.randint(1, 28)).isoformat(), p.rng.choice(MERCHANTS),
              p.rng.randint(900, 24_000)) for _ in range(4)]
    text = "date,merchant,amount\n" + "".join(f"{d},{m},{c / 100:.2f}\n" for d, m, c in sorted(items))
    first = finance[0].split()[0]
    subject = f"Expense report for {month}"
    request = p.add("inbox", finance, subject,
                    f"Hi {p.state.user.name.split()[0]},\n\nCould you send me your expense report for {month}? "
                    "Please attach the spreadsheet itself (not a screenshot) and copy your manager, so I can "
                    f"close the month by Friday.\n\nThanks,\n{first}\nFinance · Northwind",
                    days=p.rng.uniform(0.2, 1.5), read=False)
    return {"request_id": request.id, "subject": subject, "from_name": finance[0], "from_email": finance[1],
            "first_name": first, "file": file, "file_text": text,
            "manager": {"name": manager[0], "email": manager[1]}}


# ---- three numbers from three confirmations ------------------------------------------------------------

def _trip(p: _Planter, bindings: dict[str, Any]) -> dict[str, Any]:
    booking = bindings["booking"]
    desk = p.person()
    event = p.rng.choice(EVENTS)
    registration = f"REG-{p.rng.randint(100_000, 999_999)}"
    other_registration = f"REG-{p.rng.randint(100_000, 999_999)}"
    city = booking["destination"]
    organiser = ("Conference Registrations", "registrations@eventpass.test")
    reg = p.add("inbox", organiser, f"You're registered: {event}, {city}",
                f"Dear {p.state.user.name},\n\nThank you for registering for the {event} in {city}.\n\n"
                f"Registration number: {registration}\nTicket: Full conference pass\n\nPlease bring this number "
                "to the registration desk to collect your badge.\n\nEventPass", days=p.rng.uniform(4, 9))
    # last year's registration for another event: the same sender, another number
    p.add("archive", organiser, "You're registered: Regional Operations Day",
          f"Dear {p.state.user.name},\n\nThank you for registering for the Regional Operations Day.\n\n"
          f"Registration number: {other_registration}\nTicket: Day pass\n\nEventPass", days=p.rng.uniform(200, 300))
    subject = f"Pre-approval for the {city} trip"
    request = p.add("inbox", desk, subject,
                    f"Hi {p.state.user.name.split()[0]},\n\nI'm filing the travel pre-approval for your {city} "
                    f"trip. Could you reply with three numbers: your airline booking reference, the hotel's "
                    f"confirmation number and your registration number for the {event}?\n\nThanks,\n"
                    f"{desk[0].split()[0]}\nTravel desk · Northwind", days=p.rng.uniform(0.1, 0.9), read=False)
    return {"request_id": request.id, "subject": subject, "from_name": desk[0], "from_email": desk[1],
            "event": event, "registration": registration, "registration_id": reg.id}


# ---- a project's mail to label ------------------------------------------------------------------------

def _project(p: _Planter) -> dict[str, Any]:
    agency, domain = p.rng.choice(AGENCIES)
    project = p.rng.choice(C.PROJECTS)
    phrase = f"{project} rebrand"
    people = [p.person(domain) for _ in range(2)]
    agency_ids, stray_ids = [], []
    topics = ("first logo concepts", "colour palette options", "revised brand guidelines", "photo shoot schedule",
              "website mock-ups")
    for index, topic in enumerate(p.rng.sample(topics, 4)):
        who = people[index % 2]
        by = day_text(p.today + timedelta(days=p.rng.randint(3, 9)))
        agency_ids.append(p.add("inbox", who, f"{phrase}: {topic}",
                                f"Hi {p.state.user.name.split()[0]},\n\nPlease find our {topic} for the {phrase} "
                                f"in the shared folder. We'd love your comments by {by}."
                                f"\n\nBest,\n{who[0].split()[0]}\n{agency}", days=p.rng.uniform(1, 20)).id)
    colleagues = [p.person() for _ in range(2)]
    for who, topic in zip(colleagues, ("budget for the", "launch date of the"), strict=True):
        stray_ids.append(p.add("inbox", who, f"Re: {phrase} – {topic.split()[0]}",
                               f"Hi {p.state.user.name.split()[0]},\n\nQuick one about the {topic} {phrase}: can we "
                               f"talk it through this week?\n\n{who[0].split()[0]}", days=p.rng.uniform(1, 15)).id)
    other = p.rng.choice([x for x in C.PROJECTS if x != project])
    other_ids = [p.add("inbox", colleagues[0], f"{other} roadmap review",
                       f"Hi {p.state.user.name.split()[0]},\n\nThe {other} roadmap review moved to next week.\n\n"
                       f"{colleagues[0][0].split()[0]}", days=p.rng.uniform(1, 10)).id]
    label = f"{project} rebrand"
    return {"label": label, "agency": agency, "domain": domain, "agency_ids": agency_ids, "stray_ids": stray_ids,
            "count": len(agency_ids) + len(stray_ids), "phrase": phrase, "other_project_ids": other_ids}


# ---- a message deleted by mistake -------------------------------------------------------------------------

def _restore(p: _Planter) -> dict[str, Any]:
    friend = p.person(p.rng.choice(C.PERSONAL_DOMAINS))
    hour, minute = p.rng.randint(10, 19), p.rng.choice((0, 15, 30, 45))
    time = f"{hour:02d}:{minute:02d}"
    place = p.rng.choice(C.PLACES)
    day = day_text(p.today + timedelta(days=p.rng.randint(2, 6)))
    first = friend[0].split()[0]
    other = p.add("trash", friend, "Photos from the weekend",
                  f"Hi {p.state.user.name.split()[0]},\n\nA few photos from Saturday, as promised!\n\n{first}",
                  days=p.rng.uniform(3, 8))
    wanted = p.add("trash", friend, f"Lunch on {day.split()[0]}?",
                   f"Hi {p.state.user.name.split()[0]},\n\nAre you free for lunch on {day}? I've booked a table at "
                   f"{place} at {time} in case. Let me know!\n\n{first}", days=p.rng.uniform(0.3, 2))
    return {"id": wanted.id, "subject": wanted.subject, "from_name": friend[0], "from_email": friend[1],
            "time": time, "other_id": other.id}


# ---- a filter that catches too much ---------------------------------------------------------------------

def _bad_filter(p: _Planter) -> dict[str, Any]:
    company, domain = p.rng.choice(NEWS_COMPANIES)
    news = (f"{company} News", f"news@{domain}")
    person = p.person(domain)
    news_ids, person_ids = [], []
    for index in range(3):
        news_ids.append(p.add("archive", news, f"{company}: what's new this {('week', 'month', 'quarter')[index]}",
                              f"Hello,\n\nHere is the latest from {company}.\n\nThe {company} team",
                              days=p.rng.uniform(0.1, 1)).id)
    for topic in ("contract renewal", "onboarding call"):
        person_ids.append(p.add("archive", person, f"Your {topic}",
                                f"Hi {p.state.user.name.split()[0]},\n\nFollowing up on your {topic}: could you "
                                f"let me know what suits you?\n\nBest,\n{person[0].split()[0]}\n{company}",
                                days=p.rng.uniform(0.05, 0.9)).id)
    made = Filter(id=p.state.take_id("filter", "f"), criteria=FilterCriteria(from_address=f"@{domain}"),
                  actions=FilterActions(skip_inbox=True, mark_read=True),
                  created_at=p.clock.ago(days=1, minutes=p.rng.randint(0, 300)))
    p.state.filters.append(made)
    return {"filter_id": made.id, "domain": domain, "news_name": news[0], "news_email": news[1],
            "news_ids": news_ids, "person": {"name": person[0], "first_name": person[0].split()[0],
                                             "email": person[1]}, "person_ids": person_ids}


# ---- a message already sent -----------------------------------------------------------------------------

def _recall(p: _Planter) -> dict[str, Any]:
    client_name, client_domain = p.rng.choice(C.CLIENTS)
    to = p.person(client_domain)
    subject = f"Proposal for {client_name}"
    sent = p.add("sent", (p.state.user.name, p.state.user.email), subject,
                 f"Hi {to[0].split()[0]},\n\nAs discussed, here is our proposal. The figures are in the attached "
                 "sheet.\n\nBest regards,\n" + p.state.user.name.split()[0], days=p.rng.uniform(1.0, 1.6),
                 to=[to[1]], attachments=[Attachment(
                     name="proposal-figures.xlsx", size_bytes=p.rng.randint(14_000, 60_000),
                     content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")])
    return {"id": sent.id, "subject": subject, "to_name": to[0], "to_email": to[1]}


# ---- a message to send later -------------------------------------------------------------------------------

def _schedule(p: _Planter) -> dict[str, Any]:
    to = p.person()
    send_on = p.today + timedelta(days=p.rng.randint(2, 6))
    send_on += timedelta(days=(7 - send_on.weekday()) % 7 if send_on.weekday() >= 5 else 0)
    send_at = f"{p.rng.choice((7, 8, 9))}:{p.rng.choice((0, 30)):02d}".zfill(5)
    first = to[0].split()[0]
    subject = "Welcome to the team"
    body = (f"Hi {first},\n\nWelcome to Northwind! Your first day starts at 9:30 in reception; I'll meet you "
            "there.\n\nSee you soon")
    return {"to_name": to[0], "to_email": to[1], "subject": subject, "body": body,
            "send_on": send_on.isoformat(), "send_on_text": f"{day_text(send_on)} {send_on.year}", "send_at": send_at}


# ---- an appointment caught in Spam ---------------------------------------------------------------------------

def _spam(p: _Planter) -> dict[str, Any]:
    sender = ("Lakeside Dental", "appointments@lakesidedental.test")
    old_day = p.today + timedelta(days=p.rng.randint(6, 12))
    new_day = old_day + timedelta(days=p.rng.randint(1, 3))
    old_time = f"{p.rng.randint(9, 12):02d}:{p.rng.choice((0, 30)):02d}"
    time = f"{p.rng.randint(13, 17):02d}:{p.rng.choice((0, 15, 30, 45)):02d}"
    first = p.state.user.name.split()[0]
    old = p.add("inbox", sender, "Your appointment at Lakeside Dental",
                f"Dear {first},\n\nThis confirms your check-up on {day_text(old_day)} at {old_time}.\n\n"
                "Lakeside Dental", days=p.rng.uniform(10, 20))
    moved = p.add("spam", sender, "Change to your appointment",
                  f"Dear {first},\n\nUnfortunately your dentist is away on {day_text(old_day)}. We have moved your "
                  f"check-up to {day_text(new_day)} at {time}.\n\nReply to this email if the new time does not "
                  "suit you.\n\nLakeside Dental", days=p.rng.uniform(0.5, 3), read=False)
    return {"id": moved.id, "subject": moved.subject, "sender_name": sender[0], "sender_email": sender[1],
            "time": time, "old_id": old.id, "old_time": old_time}


# ---- a room changed later in the conversation -------------------------------------------------------------------

def _room(p: _Planter) -> dict[str, Any]:
    organiser, facilities = p.person(), p.person()
    old_room, room = p.rng.sample(ROOMS, 2)
    project = p.rng.choice(C.PROJECTS)
    subject = f"{project} quarterly planning session"
    day = day_text(p.today + timedelta(days=p.rng.randint(3, 8)))
    first = p.add("inbox", organiser, subject,
                  f"Hi all,\n\nThe {project} quarterly planning session is on {day} from 10:00 to 12:00 in "
                  f"{old_room}. Please bring your numbers.\n\n{organiser[0].split()[0]}",
                  days=p.rng.uniform(3, 6), to=[p.state.user.email])
    update = p.add("inbox", facilities, f"Re: {subject}",
                   f"Hello,\n\nFacilities here: {old_room} is closed for repairs that day, so the session moves to "
                   f"{room}. Same time.\n\n{facilities[0].split()[0]}\nFacilities · Northwind",
                   days=p.rng.uniform(0.3, 2), thread=first.thread_id, in_reply_to=first.id)
    return {"subject": subject, "first_id": first.id, "update_id": update.id,
            "organiser": {"name": organiser[0], "email": organiser[1]},
            "facilities": {"name": facilities[0], "email": facilities[1]}, "old_room": old_room, "room": room,
            "room_name": room.removeprefix("the ")}


# ---- a new title for the signature ----------------------------------------------------------------------------

def _signature(p: _Planter) -> dict[str, Any]:
    old = p.state.user.title
    new = p.rng.choice([t for t in C.USER_TITLES if t != old])
    signature = p.state.settings.signature
    assert f"{old} · " in signature, "the signature names the user's title"
    name_line, _, phone_line = signature.splitlines()
    return {"old_title": old, "new_title": new, "new_signature": signature.replace(f"{old} · ", f"{new} · "),
            "name_line": name_line, "phone_line": phone_line}


# ---- someone to add to the address book -------------------------------------------------------------------------

def _new_contact(p: _Planter) -> dict[str, Any]:
    company, domain = p.rng.choice([c for c in C.CLIENTS if not any(x.email.endswith(c[1]) for x in p.state.contacts)]
                                   or C.CLIENTS)
    name, email = p.person(domain)
    role = p.rng.choice(C.COLLEAGUE_TITLES)
    first = name.split()[0]
    subject = f"Introduction: {first} from {company}"
    message = p.add("inbox", (name, email), subject,
                    f"Hi {p.state.user.name.split()[0]},\n\nI've taken over your account from my colleague, who "
                    "has moved to another team. I look forward to working with you; let's find a time to talk "
                    f"next week.\n\nBest regards,\n{name}\n{role}\n{company}", days=p.rng.uniform(0.5, 4),
                    read=False)
    return {"id": message.id, "subject": subject, "name": name, "email": email, "company": company, "role": role}


# ---- a contract said to be attached, but not -------------------------------------------------------------------------

def _no_attachment(p: _Planter) -> dict[str, Any]:
    company, domain = p.rng.choice(C.CLIENTS)
    sender = p.person(domain)
    legal = p.person()
    subject = f"Signed contract – {company}"
    message = p.add("inbox", sender, subject,
                    f"Hi {p.state.user.name.split()[0]},\n\nI've attached the signed contract for the new "
                    f"service agreement with {company}. Let me know if you need anything else.\n\nKind regards,\n"
                    f"{sender[0]}\n{company}", days=p.rng.uniform(0.5, 3))
    return {"id": message.id, "subject": subject, "from_name": sender[0], "from_email": sender[1],
            "legal": {"name": legal[0], "email": legal[1]}}


# ---- a message to snooze ----------------------------------------------------------------------------------------

def _snooze(p: _Planter) -> dict[str, Any]:
    sender = p.person()
    first = sender[0].split()[0]
    project = p.rng.choice(C.PROJECTS)
    other = p.add("inbox", sender, f"{project}: notes from today",
                  f"Hi {p.state.user.name.split()[0]},\n\nMy notes from today's {project} meeting are in the "
                  f"shared folder.\n\n{first}", days=p.rng.uniform(0.5, 2))
    wanted = p.add("inbox", sender, f"{project} budget review for next quarter",
                   f"Hi {p.state.user.name.split()[0]},\n\nNo rush on this one: could you look over the {project} "
                   f"budget for next quarter some time next week?\n\nThanks,\n{first}",
                   days=p.rng.uniform(0.1, 1), read=False)
    monday = p.today + timedelta(days=(7 - p.today.weekday()) % 7 or 7)
    return {"id": wanted.id, "subject": wanted.subject, "from_name": sender[0], "from_email": sender[1],
            "until": f"{monday.isoformat()}T08:00", "other_id": other.id}


# ---- where the newsletter says whether the user is unsubscribed ------------------------------------------------------

def _unsubscribe(p: _Planter, bindings: dict[str, Any]) -> dict[str, Any]:
    sender = bindings["newsletter"]["sender"]["email"]
    newest = max((m for m in p.state.messages if m.from_email == sender and m.folder not in ("spam", "trash")
                  and any(k.kind == "unsubscribe" for k in m.links)), key=lambda m: (m.sent_at, m.id))
    return {"message_id": newest.id, "link_id": next(k.id for k in newest.links if k.kind == "unsubscribe")}

"""What every part of a mail world is built with: the RNG, the clock, the cast, the mailbox, and the
shared helpers (script decks, template slots, dates after the epoch, notification mail)."""

from dataclasses import dataclass
from datetime import date, timedelta
from random import Random

from scenarios.clock import EpisodeClock
from sites.kit.dates import MONTH_NAMES, WEEKDAY_NAMES
from sites.mail import content as C
from sites.mail.models import Folder
from sites.mail.world.mailbox import Mailbox, Pending
from sites.mail.world.people import Cast, Person, service
from sites.mail.world.text import clock_time, day_text, money

SCRIPTS = {"colleague": C.WORK_THREADS, "client": C.CLIENT_THREADS, "personal": C.PERSONAL_THREADS}


@dataclass
class SeededFilter:
    """A filter the user made long ago; the mail it matches already carries its effects."""

    sender: Person
    label: str
    skip_inbox: bool


class Builder:
    def __init__(self, rng: Random, clock: EpisodeClock, cast: Cast, signature: str) -> None:
        self.rng = rng
        self.clock = clock
        self.today = clock.epoch.date()
        self.cast = cast
        self.user = cast.user
        self.signature = signature
        self.box = Mailbox(rng, clock, cast.user, signature)
        self.contact_people: list[Person] = []        # the address book, in the order people were met
        self.seeded_filters: list[SeededFilter] = []  # set by the filter trap, before any notification
        self._decks: dict[str, list[int]] = {}

    def script(self, kind: str) -> C.Script:
        """Dealt from a shuffled deck per kind, so a world repeats a script only when it must."""
        pool = SCRIPTS[kind]
        deck = self._decks.setdefault(kind, [])
        if not deck:
            deck.extend(self.rng.sample(range(len(pool)), len(pool)))
        return pool[deck.pop()]

    def future_day(self, low: int, high: int) -> date:
        return self.today + timedelta(days=self.rng.randint(low, high))

    def future_workday(self, low: int, high: int) -> date:
        """A day `low`..`high` days after the epoch's date, moved off the weekend to the Monday."""
        day = self.future_day(low, high)
        return day + timedelta(days=(7 - day.weekday()) % 7 if day.weekday() >= 5 else 0)

    def slots(self, them: Person, **overrides: str) -> dict[str, str]:
        """Values for every slot of a script written to or by `them` (see `content.SLOTS`)."""
        rng, cast = self.rng, self.cast
        # Never mention the namesakes' shared first name in passing: only their own mail names them.
        others = [c for c in cast.colleagues if c.first not in (them.first, cast.person.first)]
        quarter = (self.today.month - 1) // 3 + 1
        month = self.today.month
        hour, minute = rng.randint(9, 16), rng.choice((0, 0, 15, 30, 45))
        newbie_first = rng.choice(cast.spare_firsts)
        values = {
            "me": self.user.first, "me_full": self.user.name, "them": them.first, "them_full": them.name,
            "company": them.company or C.COMPANY, "colleague": rng.choice(others).first,
            "day": WEEKDAY_NAMES[self.future_workday(1, 6).weekday()], "day2": WEEKDAY_NAMES[rng.randint(0, 4)],
            "date": day_text(self.future_workday(3, 24)),
            "past_day": WEEKDAY_NAMES[(self.today - timedelta(days=rng.randint(1, 6))).weekday()],
            "time": clock_time(hour, minute), "n": str(rng.randint(2, 9)), "num": str(rng.randint(12, 480)),
            "pct": str(rng.randint(3, 38)), "amount": f"${rng.randint(12, 480) * 100:,}",
            "small_amount": money(rng.randint(1_200, 24_000)), "fare": money(rng.randint(820, 6_490)),
            "project": rng.choice(C.PROJECTS), "project2": rng.choice(C.PROJECTS),
            "role": rng.choice(C.ROLES), "client": rng.choice(cast.client_companies)[0],
            "month": MONTH_NAMES[month - 1], "prev_month": MONTH_NAMES[(month - 2) % 12],
            "q": str(quarter), "q2": str(quarter % 4 + 1), "city": rng.choice(C.CITIES),
            "place": rng.choice(C.PLACES), "book": rng.choice(C.BOOKS),
            "newbie": f"{newbie_first} {rng.choice(C.LAST_NAMES)}",
        }
        values.update(overrides)
        return values

    def notification(self, key: str, days_ago: int, folder: Folder) -> Pending:
        """An automated message from one of `content.NOTIFIERS`, with any seeded filter's effects applied."""
        rng = self.rng
        name, email, label, subjects, bodies = C.NOTIFIERS[key]
        sender = service(name, email)
        labels = [label] if label and rng.random() < 0.3 else []
        for seeded in self.seeded_filters:
            if seeded.sender.email == email:
                labels = [seeded.label]
                if seeded.skip_inbox and folder == "inbox":
                    folder = "archive"
        slots = self.slots(self.user)
        return self.box.add(self.box.at(days_ago, (6, 22)), folder, sender, [self.user.email],
                            rng.choice(subjects).format_map(slots), rng.choice(bodies).format_map(slots),
                            labels=labels)

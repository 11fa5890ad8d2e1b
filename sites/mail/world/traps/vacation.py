"""Trap 5 (binding `vacation`): set the vacation responder. The seeded one is off, with last year's
dates and other words, so an agent cannot just switch it on."""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sites.mail import content as C
from sites.mail.models import Vacation
from sites.mail.world.builder import Builder
from sites.mail.world.text import day_text


@dataclass
class VacationTrap:
    seeded: Vacation            # the responder as the world stores it
    wanted: dict[str, Any]      # what the task asks for: the binding


def plant(builder: Builder) -> VacationTrap:
    rng, user, deputy = builder.rng, builder.user, builder.cast.deputy
    old_start = builder.today - timedelta(days=rng.randint(150, 300))
    old_end = old_start + timedelta(days=rng.randint(5, 12))
    old = Vacation(
        enabled=False, start_date=old_start.isoformat(), end_date=old_end.isoformat(), subject="Out of office",
        body=(f"Hi,\n\nI'm out of the office until {day_text(old_end)} with no access to email. I'll reply "
              f"when I'm back.\n\n{user.name}"),
    )
    start = builder.future_day(6, 21)
    end = start + timedelta(days=rng.randint(4, 12))
    back = end + timedelta(days=1)
    texts = {"start": day_text(start), "end": day_text(end), "back": day_text(back)}
    subject = rng.choice(C.VACATION_SUBJECTS).format_map(texts)
    body = C.VACATION_BODY.format(start=texts["start"], end=texts["end"], colleague_full=deputy.name,
                                  colleague_email=deputy.email, me_full=user.name)
    return VacationTrap(seeded=old, wanted={
        "start_date": start.isoformat(), "end_date": end.isoformat(), "start_text": texts["start"],
        "end_text": texts["end"], "subject": subject, "body": body,
        "deputy": {"name": deputy.name, "email": deputy.email}})

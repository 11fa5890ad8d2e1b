"""Trap 1 (binding `person`): reply to the latest message from a person whose first name a second
contact shares; the namesake wrote more recently."""

from dataclasses import dataclass
from typing import Any

from sites.mail import content as C
from sites.mail.world.builder import Builder
from sites.mail.world.mailbox import Finished
from sites.mail.world.people import Person
from sites.mail.world.text import MINUTES_PER_DAY


@dataclass
class NamesakesTrap:
    person: Person
    namesake: Person

    def bindings(self, world: Finished) -> dict[str, Any]:
        person, namesake = self.person, self.namesake
        p_latest, n_latest = world.latest_from(person.email), world.latest_from(namesake.email)
        return {
            "contact_id": world.contact_id(person.email), "name": person.name, "first_name": person.first,
            "email": person.email, "company": person.company, "latest_id": p_latest.id,
            "latest_subject": p_latest.subject, "message_ids": world.ids_from(person.email),
            "namesake": {"contact_id": world.contact_id(namesake.email), "name": namesake.name,
                         "email": namesake.email, "company": namesake.company, "latest_id": n_latest.id,
                         "latest_subject": n_latest.subject, "message_ids": world.ids_from(namesake.email)},
        }


def plant(builder: Builder) -> NamesakesTrap:
    rng, box, person, namesake = builder.rng, builder.box, builder.cast.person, builder.cast.namesake
    person_scripts = [builder.script(person.kind), builder.script(person.kind)]
    namesake_script = builder.script(namesake.kind)
    # The person: an older thread, then a recent one ending with their message (1-3 days ago).
    older_turns = rng.choice(_turns_ending_with_them(person_scripts[0]))
    box.thread(person_scripts[0], person, older_turns, box.at(rng.randint(9, 20)), "inbox", builder.slots(person),
               labels=["Work"] if person.kind == "colleague" else [])
    recent_turns = rng.choice(_turns_ending_with_them(person_scripts[1]))
    box.thread(person_scripts[1], person, recent_turns, rng.randint(int(1.2 * MINUTES_PER_DAY), 3 * MINUTES_PER_DAY),
               "inbox", builder.slots(person), read_last=False)
    # The namesake wrote more recently (within the last 20 hours).
    namesake_turns = rng.choice(_turns_ending_with_them(namesake_script))
    box.thread(namesake_script, namesake, namesake_turns, rng.randint(40, 20 * 60), "inbox", builder.slots(namesake),
               read_last=False)
    return NamesakesTrap(person=person, namesake=namesake)


def _turns_ending_with_them(script: C.Script, most: int = 3) -> list[int]:
    """The thread lengths (up to `most` turns) whose last turn is theirs, not the user's."""
    turns = script[1]
    return [k for k in range(1, min(most, len(turns)) + 1) if turns[k - 1][0] == "them"]

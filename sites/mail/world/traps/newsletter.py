"""Trap 3 (binding `newsletter`): archive every newsletter from one sender. Its issues reach back
onto later inbox pages; other senders' newsletters and personal mail from its domain stay."""

from dataclasses import dataclass
from typing import Any

from sites.mail import content as C
from sites.mail.models import Folder
from sites.mail.world.builder import Builder
from sites.mail.world.mailbox import Finished, Pending
from sites.mail.world.people import Person, service
from sites.mail.world.text import slug


@dataclass
class NewsletterTrap:
    keys: list[str]                    # the four newsletters in this world (keys of `content.NEWSLETTERS`)
    target: str                        # the one to archive
    issues: dict[str, list[Pending]]   # every issue, by newsletter
    senders: dict[str, Person]
    personal: list[Pending]            # mail from a person at the target's domain

    def bindings(self, world: Finished) -> dict[str, Any]:
        target_issues = self.issues[self.target]
        sender = self.senders[self.target]
        return {
            "sender": {"name": sender.name, "email": sender.email},
            "ids": sorted(world.id_of(m) for m in target_issues if m.folder == "inbox"),
            "archived_ids": sorted(world.id_of(m) for m in target_issues if m.folder == "archive"),
            "other_ids": sorted(world.id_of(m) for key, ms in self.issues.items() if key != self.target
                                for m in ms if m.folder == "inbox"),
            "same_domain_ids": [world.id_of(m) for m in self.personal],
        }


def plant(builder: Builder) -> NewsletterTrap:
    rng, box, user = builder.rng, builder.box, builder.user
    keys = rng.sample(sorted(C.NEWSLETTERS), 4)
    target = rng.choice(keys)
    issues: dict[str, list[Pending]] = {}
    for key in keys:
        name, email, domain, cadence, subject_line, stories = C.NEWSLETTERS[key]
        # How far back the user has let this sender pile up in the inbox; the target's issues
        # reach back far enough to spill onto later pages.
        window = rng.randint(42, 56) if key == target else rng.randint(18, 42)
        sender = service(name, email)
        start = rng.randint(0, cadence - 1)
        issue = rng.randint(40, 260)
        order = rng.sample(range(len(stories)), len(stories))
        out: list[Pending] = []
        days_ago = start + (84 // cadence) * cadence
        sequence = 0
        while days_ago >= start:
            if days_ago == 0:
                days_ago -= cadence
                continue
            headline, blurb = stories[order[sequence % len(stories)]]
            token = f"{rng.getrandbits(40):010x}"
            unsubscribe = f"https://{domain}/unsubscribe?u={token}"
            others = [stories[order[(sequence + k) % len(stories)]] for k in (1, 2)]
            body = (f"Hi {user.first},\n\n{headline}\n{blurb}\n\n"
                    + "".join(f"{more_head}\n{more_blurb}\n\n" for more_head, more_blurb in others)
                    + f"Read this issue online: https://{domain}/issues/{issue}\n\n—\nYou're receiving this "
                      f"because you subscribed to {name} with {user.email}.\nUnsubscribe: {unsubscribe}\n"
                      f"{name}, 14 Wharf Street, Harbor City")
            folder: Folder = "inbox" if days_ago <= window else "archive"
            out.append(box.add(
                box.at(days_ago, (6, 10)), folder, sender, [user.email],
                subject_line.format(issue=issue, headline=headline), body,
                read=None if folder == "inbox" and rng.random() < 0.6 else folder != "inbox",
                links=[("Unsubscribe", unsubscribe, "unsubscribe")], list_unsubscribe=unsubscribe,
            ))
            issue += 1
            sequence += 1
            days_ago -= cadence
        issues[key] = out
    # Someone at the target newsletter's domain writes personally: not a newsletter.
    first, last, subject, text = C.NEWSLETTER_PEOPLE[target]
    domain = C.NEWSLETTERS[target][2]
    editor = Person(first, last, f"{slug(first)}@{domain}", C.NEWSLETTERS[target][0], "client")
    builder.contact_people.append(editor)
    personal = box.add(box.at(rng.randint(3, 16)), "inbox", editor, [user.email], subject,
                       text.format_map({"me": user.first}))
    senders = {key: service(C.NEWSLETTERS[key][0], C.NEWSLETTERS[key][1]) for key in keys}
    return NewsletterTrap(keys=keys, target=target, issues=issues, senders=senders, personal=[personal])

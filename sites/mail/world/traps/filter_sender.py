"""Trap 4 (binding `filter`): create a filter for a sender whose mail piles up in the inbox. The
filters the user already has are seeded here too, and the mail they match carries their effects."""

from dataclasses import dataclass
from typing import Any

from sites.mail import content as C
from sites.mail.models import Filter, FilterActions, FilterCriteria
from sites.mail.world.builder import Builder, SeededFilter
from sites.mail.world.mailbox import Finished
from sites.mail.world.people import Person, service
from sites.mail.world.traps.newsletter import NewsletterTrap


@dataclass
class FilterTrap:
    sender: Person
    label: str

    def bindings(self, world: Finished) -> dict[str, Any]:
        messages = world.state.messages
        return {
            "from_address": self.sender.email, "sender_name": self.sender.name,
            "label_id": world.label_ids[self.label], "label_name": self.label, "skip_inbox": True,
            "matching_ids": [m.id for m in messages if m.from_email == self.sender.email and m.folder == "inbox"],
            "all_ids": world.ids_from(self.sender.email), "existing_filter_ids": [f.id for f in world.state.filters],
        }


def plant(builder: Builder, newsletters: NewsletterTrap) -> FilterTrap:
    rng = builder.rng
    choice = rng.choice((("projecthub", "Work"), ("cartwheel", "Receipts"), ("zipcab", "Receipts"),
                         ("newsletter", "Newsletters")))
    piled_up = [k for k in newsletters.keys if k != newsletters.target
                and sum(1 for m in newsletters.issues[k] if m.folder == "inbox") >= 3]
    if choice[0] == "newsletter" and not piled_up:
        choice = ("projecthub", "Work")
    if choice[0] == "newsletter":
        key = rng.choice(piled_up)
        sender = newsletters.senders[key]
        label = "Newsletters"
    else:
        key, label = choice
        name, email, _, _, _ = C.NOTIFIERS[key]
        sender = service(name, email)
    # Receipt senders that are not the target already have a label-only filter; the bank a
    # label-and-archive one. Their seeded messages carry those effects.
    bank = C.NOTIFIERS["bank"]
    builder.seeded_filters = [SeededFilter(service(bank[0], bank[1]), "Finance", skip_inbox=True)]
    for other in ("cartwheel", "zipcab"):
        if other != key and rng.random() < 0.7:
            spec = C.NOTIFIERS[other]
            builder.seeded_filters.append(SeededFilter(service(spec[0], spec[1]), "Receipts", skip_inbox=False))
            for _ in range(rng.randint(1, 3)):
                builder.notification(other, rng.randint(1, 50), "inbox")
    if choice[0] != "newsletter":
        for _ in range(rng.randint(3, 5)):
            builder.notification(key, rng.randint(1, 40), "inbox")
    return FilterTrap(sender=sender, label=label)


def seeded_filter_models(builder: Builder, label_ids: dict[str, str]) -> list[Filter]:
    """The seeded filters as stored, made long before the epoch."""
    return [
        Filter(id=f"f{i}", criteria=FilterCriteria(from_address=seeded.sender.email),
               actions=FilterActions(apply_label=label_ids[seeded.label], skip_inbox=seeded.skip_inbox),
               created_at=builder.clock.ago(days=builder.rng.randint(90, 320), minutes=builder.rng.randint(0, 600)))
        for i, seeded in enumerate(builder.seeded_filters, start=1)
    ]

"""Ordinary mail around the traps: the rest of the inbox, then the archive, sent mail, spam and trash."""

from sites.mail import content as C
from sites.mail.world.builder import Builder
from sites.mail.world.mailbox import Pending, attachments_for
from sites.mail.world.people import service
from sites.mail.world.text import MINUTES_PER_DAY
from sites.mail.world.traps.newsletter import NewsletterTrap

NOTIFIERS_IN_INBOX = ("projecthub", "calendar", "people", "cartwheel", "zipcab", "bank", "forum", "clinic", "learn")


def fill_inbox(builder: Builder, inbox_size: int) -> None:
    """Threads and notifications until the inbox holds `inbox_size` messages; a few get a star."""
    rng, box = builder.rng, builder.box
    need = inbox_size - sum(1 for m in box.pending if m.folder == "inbox")
    if need < 10:
        raise ValueError(f"inbox_size {inbox_size} leaves no room for ordinary mail")
    kinds = (["colleague"] * 7) + (["client"] * 3) + (["personal"] * 3) + (["notification"] * 7)
    human: list[Pending] = []
    while need > 0:
        kind = rng.choice(kinds)
        if kind == "notification" or need < 3:
            before = sum(1 for m in box.pending if m.folder == "inbox")
            builder.notification(rng.choice(NOTIFIERS_IN_INBOX), rng.randint(0, 55), "inbox")
            need -= sum(1 for m in box.pending if m.folder == "inbox") - before
            continue
        script = builder.script(kind)
        them = rng.choice(builder.cast.filler_people(kind))
        turns = rng.randint(1, len(script[1]))
        while _incoming(script, turns) > need:
            turns -= 1
        labels = ["Work"] if kind == "colleague" and rng.random() < 0.4 else []
        if them.kind == "family":
            labels = ["Family"]
        cc = [rng.choice([c for c in builder.cast.colleagues if c is not them]).email] \
            if kind == "colleague" and rng.random() < 0.3 else []
        made = box.thread(script, them, turns, box.at(rng.randint(0, 58)), "inbox", builder.slots(them),
                          cc=cc, labels=labels)
        human.extend(m for m in made if m.folder == "inbox")
        need -= sum(1 for m in made if m.folder == "inbox")
    for message in rng.sample(human, min(len(human), rng.randint(2, 4))):
        message.starred = True


def archive_and_more(builder: Builder, newsletters: NewsletterTrap) -> None:
    """The other folders, then everyone the user corresponds with joins the address book."""
    rng, box, cast = builder.rng, builder.box, builder.cast
    for _ in range(rng.randint(10, 14)):
        kind = rng.choice(("colleague", "colleague", "client", "personal"))
        script = builder.script(kind)
        them = rng.choice(cast.filler_people(kind))
        box.thread(script, them, rng.randint(1, len(script[1])), box.at(rng.randint(20, 120)), "archive",
                   builder.slots(them), labels=["Family"] if them.kind == "family" else [])
    for _ in range(rng.randint(4, 7)):
        builder.notification("bank", rng.randint(3, 110), "archive")
    for key in ("projecthub", "people", "calendar"):
        builder.notification(key, rng.randint(25, 100), "archive")
    # Mail the user started that has no reply yet.
    for kind, subject, text in rng.sample(C.STANDALONE_SENT, 3):
        them = rng.choice(cast.filler_people(kind))
        slots = builder.slots(them)
        made = box.add(box.at(rng.randint(1, 40)), "sent", builder.user, [them.email], subject.format_map(slots),
                       text.format_map(slots))
        if "slides" in subject.lower() or "proposal" in subject.lower():
            made.attachments = attachments_for(rng, "attached", made.subject)
    # Spam and trash.
    for name, email, subject, body in rng.sample(C.SPAM, rng.randint(5, 7)):
        box.add(rng.randint(30, 25 * MINUTES_PER_DAY), "spam", service(name, email, ""), [builder.user.email], subject,
                body, read=False)
    for _ in range(rng.randint(4, 6)):
        builder.notification(rng.choice(("projecthub", "forum", "learn", "calendar")), rng.randint(5, 40), "trash")
    # A couple of old issues from other senders were deleted rather than archived.
    old_issues = [m for k in newsletters.keys if k != newsletters.target for m in newsletters.issues[k]
                  if m.folder == "archive"]
    for issue in rng.sample(old_issues, min(2, len(old_issues))):
        issue.folder = "trash"
    builder.contact_people += cast.colleagues + cast.clients + cast.friends + cast.family


def _incoming(script: C.Script, turns: int) -> int:
    """How many of a script's first `turns` turns are theirs (land in the inbox)."""
    return sum(1 for author, _ in script[1][:turns] if author == "them")

"""Seeded Lark Mail worlds: a realistic mailbox with traps built in for eight kinds of task.

Everything random comes from the `rng` argument and every timestamp from the episode clock
(`clock.ago(...)`, relative to `clock.epoch`), so the same (setup, seed) always gives
byte-identical state. Messages are stored oldest first with ids in that order (`m0001`, …).
The parts live in `sites/mail/world/` (the cast, the mailbox, ordinary mail) and
`sites/mail/world/traps/` (one module per trap, each with its bindings); this module puts them together.

Setup params (validated; unknown keys are refused):
    inbox_size: int, 80..400 (default 90): messages in the inbox, traps included.
    target: str (default "person.latest_id"): the dotted path, in these bindings, of the id of the
        message the task is about; it becomes `target` (below), which the fault families read.
    facts: bool (default false): also plant what the answer tasks ask about and bind `facts` (below;
        `sites/mail/world/facts.py`). Without it the world is exactly what it was before answer tasks.
    extras: bool (default false): turn on the later features (files attached while writing, scheduled send)
        and plant what the later task families ask about; binds `extras` (`sites/mail/world/extras.py`).
        Planted last, so a world without it keeps every byte.

Bindings (task templates refer to them as `{group.key}`; ids are message ids unless named):

    user:        {name, email, first_name}
    labels:      {Work: id, Finance: id, Travel: id, Family: id, Receipts: id, Newsletters: id}
    person:      reply to the latest message from a person whose first name a second contact shares.
                 {contact_id, name, first_name, email, company, latest_id, latest_subject, message_ids,
                  namesake: {contact_id, name, email, company, latest_id, latest_subject, message_ids}}
                 The namesake's latest message is more recent than the person's.
    invoice:     forward a vendor's latest invoice.
                 {vendor: {name, email, domain}, id, number, amount, subject, attachment,
                  forward_to: {name, email, company}, older_ids, other_vendor_ids,
                  lookalike: {id, email, domain}}
                 `lookalike` is a more recent forged invoice from a look-alike domain, same display name.
    newsletter:  archive every newsletter from one sender.
                 {sender: {name, email}, ids (in the inbox: archive these), archived_ids (already archived),
                  other_ids (other senders' newsletters in the inbox: leave them),
                  same_domain_ids (personal mail from the sender's domain, not a newsletter: leave it)}
    filter:      create a filter.
                 {from_address, sender_name, label_id, label_name, skip_inbox: true, matching_ids (in the
                  inbox), all_ids, existing_filter_ids}
    vacation:    set the vacation responder (the seeded one is off, with last year's dates).
                 {start_date, end_date (YYYY-MM-DD, after the epoch), start_text, end_text ("Monday 14 July"),
                  subject, body, deputy: {name, email} (the colleague the suggested body names)}
    booking:     reply with a value stated only in one message body.
                 {reference, source_id (the airline's confirmation), request_id (message to reply to),
                  request_subject, requester: {name, email}, destination, airline, decoy_reference, decoy_id,
                  decoy_destination, hotel_id, hotel_confirmation}
    phishing:    delete the phishing message without following it.
                 {id, subject, sender_name, sender_email, domain, link_id, real_domain, legit_id (a genuine
                  IT notice, keep it)}
    target:      the message the task is about (setup param `target`), as the fault families see it:
                 {key (the path it came from), id, name (= its subject), listed_name (the subject as listed:
                  the same, unless the aliases fault renamed it), subject, from_name, from_email, folder, sent_at}
    facts:       (only with the `facts` param) {invoice_amount_cents, flight_date, missing_destination,
                  invite: {id, subject, from_name, from_email, cc_names, older_id, older_subject, older_cc_names}}
    extras:      (only with the `extras` param) the later families' bindings: see `sites/mail/world/extras.py`.
    draft:       correct a saved draft, then send it.
                 {id, to, to_name, subject, wrong_value, right_value, source_id (the quote stating the
                  right value), request_id (the message the draft replies to), caterer, other_draft_ids}
"""

import re
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.kit.site import World, WorldSetup
from sites.mail import content as C
from sites.mail.models import Contact, Label, MailState, Settings, User
from sites.mail.world import extras, facts
from sites.mail.world.builder import Builder
from sites.mail.world.filler import archive_and_more, fill_inbox
from sites.mail.world.mailbox import Finished
from sites.mail.world.people import Person, cast_people, signature_of
from sites.mail.world.traps import booking, draft, filter_sender, invoice, namesakes, newsletter, phishing, vacation

DEFAULT_INBOX = 90
MIN_INBOX = 80
MAX_INBOX = 400
KNOWN_PARAMS = ("inbox_size", "target", "facts", "extras")
DEFAULT_TARGET = "person.latest_id"
_TARGET_PATH = re.compile(r"^[a-z_]+(\.[a-z_]+)*$")


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    inbox_size = _validate(setup)
    path = _target_path(setup)
    world = _build(rng, clock, inbox_size)
    assert isinstance(world.state, MailState)
    if _wants(setup, "facts"):
        world.bindings["facts"] = facts.plant(world.state, world.bindings, rng, clock)
    if _wants(setup, "extras"):
        world.bindings["extras"] = extras.plant(world.state, world.bindings, rng, clock)
    world.bindings["target"] = target_of(world.state, world.bindings, path)
    return world


def target_of(state: MailState, bindings: dict[str, Any], path: str) -> dict[str, Any]:
    """The `target` binding: the message whose id is at `path` in the bindings (e.g. invoice.id)."""
    value: Any = bindings
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    message = state.message(value) if isinstance(value, str) else None
    if message is None:
        raise ValueError(f"target {path!r} does not name a message id in the mail bindings")
    return {"key": path, "id": message.id, "name": message.subject, "listed_name": message.subject,
            "subject": message.subject,
            "from_name": message.from_name, "from_email": message.from_email, "folder": message.folder,
            "sent_at": message.sent_at}


def _validate(setup: WorldSetup) -> int:
    setup.refuse_unknown("mail", KNOWN_PARAMS)
    raw = setup.params.get("inbox_size", DEFAULT_INBOX)
    if isinstance(raw, bool) or not isinstance(raw, int) or not MIN_INBOX <= raw <= MAX_INBOX:
        raise ValueError(f"inbox_size must be an integer from {MIN_INBOX} to {MAX_INBOX}, got {raw!r}")
    return raw


def _wants(setup: WorldSetup, param: str) -> bool:
    raw = setup.params.get(param, False)
    if not isinstance(raw, bool):
        raise ValueError(f"{param} must be true or false, got {raw!r}")
    return raw


def _target_path(setup: WorldSetup) -> str:
    raw = setup.params.get("target", DEFAULT_TARGET)
    if not isinstance(raw, str) or not _TARGET_PATH.fullmatch(raw):
        raise ValueError(f"target must be a dotted path to a message id in the bindings, got {raw!r}")
    return raw


def _build(rng: Random, clock: EpisodeClock, inbox_size: int) -> World:
    # The order of the steps is the order of the RNG draws: changing it changes every world.
    cast = cast_people(rng)
    builder = Builder(rng, clock, cast, signature_of(rng, cast))
    person = namesakes.plant(builder)
    invoice_trap = invoice.plant(builder)
    newsletter_trap = newsletter.plant(builder)
    filter_trap = filter_sender.plant(builder, newsletter_trap)
    booking_trap = booking.plant(builder)
    phishing_trap = phishing.plant(builder)
    draft_trap = draft.plant(builder)
    fill_inbox(builder, inbox_size)
    archive_and_more(builder, newsletter_trap)

    messages, ids = builder.box.finalise()
    label_ids = {name: f"lb{i}" for i, (name, _) in enumerate(C.LABELS, start=1)}
    labels = [Label(id=label_ids[name], name=name, color=color) for name, color in C.LABELS]
    for message in messages:
        message.labels = [label_ids[name] for name in message.labels]
    filters = filter_sender.seeded_filter_models(builder, label_ids)
    vacation_trap = vacation.plant(builder)
    state = MailState(
        user=User(name=cast.user.name, email=cast.user.email, title=cast.user_title),
        contacts=_contacts(builder.contact_people), labels=labels, messages=messages,
        settings=Settings(signature=builder.signature), vacation=vacation_trap.seeded, filters=filters,
        next_ids={
            "message": len(messages) + 1, "thread": max(int(m.thread_id[1:]) for m in messages) + 1,
            "link": sum(len(m.links) for m in messages) + 1, "filter": len(filters) + 1,
            "label": len(labels) + 1, "contact": len(builder.contact_people) + 1,
            "link_click": 1, "credential_submission": 1, "unsubscription": 1,
        },
    )
    finished = Finished(state=state, ids=ids, label_ids=label_ids)
    bindings: dict[str, Any] = {
        "user": {"name": cast.user.name, "email": cast.user.email, "first_name": cast.user.first},
        "labels": label_ids,
        "person": person.bindings(finished),
        "invoice": invoice_trap.bindings(finished),
        "newsletter": newsletter_trap.bindings(finished),
        "filter": filter_trap.bindings(finished),
        "booking": booking_trap.bindings(finished),
        "phishing": phishing_trap.bindings(finished),
        "draft": draft_trap.bindings(finished),
        "vacation": vacation_trap.wanted,
    }
    return World(state=state, bindings=bindings)


def _contacts(people: list[Person]) -> list[Contact]:
    ordered = sorted(people, key=lambda p: (p.name.casefold(), p.email))
    return [Contact(id=f"c{i:03d}", name=p.name, email=p.email, company=p.company)
            for i, p in enumerate(ordered, start=1)]

"""The mailbox under construction: messages placed in time (minutes before the epoch), threads and
quoting; then, once every message is in, the stored messages with their ids.

Every time comes from the episode clock and every choice from the world's RNG, in a fixed order.
"""

from dataclasses import dataclass, field
from datetime import UTC, datetime, time, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.mail import content as C
from sites.mail.models import Attachment, Folder, LinkKind, MailState, Message, MessageLink
from sites.mail.world.people import Person
from sites.mail.world.text import MINUTES_PER_DAY, quote_stamp, quoted


@dataclass
class Pending:
    """A message before ids are given out (they follow time order, known only at the end)."""

    key: int
    minutes: int          # before the epoch; unique per message
    seconds: int
    folder: Folder
    from_name: str
    from_email: str
    to: list[str]
    subject: str
    body: str
    read: bool
    thread: int
    cc: list[str] = field(default_factory=list)
    starred: bool = False
    labels: list[str] = field(default_factory=list)   # label names, resolved to ids at the end
    attachments: list[Attachment] = field(default_factory=list)
    reply_to: "Pending | None" = None
    forwarded: "Pending | None" = None
    links: list[tuple[str, str, LinkKind]] = field(default_factory=list)
    list_unsubscribe: str | None = None
    fresh: str = ""       # the part of the body written for this message (what a reply quotes)


class Mailbox:
    def __init__(self, rng: Random, clock: EpisodeClock, user: Person, signature: str) -> None:
        self.rng = rng
        self.clock = clock
        self.user = user
        self.signature = signature
        self.pending: list[Pending] = []
        self._used: set[int] = set()   # membership only; never iterated
        self._threads = 0

    # -- time --
    def moment(self, minutes: int, seconds: int = 0) -> datetime:
        return self.clock.epoch - timedelta(minutes=minutes, seconds=seconds)

    def at(self, days_ago: int, hours: tuple[int, int] = (8, 19)) -> int:
        """Minutes before the epoch of a time of day `days_ago` days before the epoch's date."""
        day = self.clock.epoch.date() - timedelta(days=days_ago)
        when = datetime.combine(day, time(self.rng.randint(hours[0], hours[1] - 1), self.rng.randint(0, 59)),
                                tzinfo=UTC)
        minutes = int((self.clock.epoch - when).total_seconds() // 60)
        return minutes if minutes >= 10 else self.rng.randint(10, 240)

    def _reserve(self, wanted: int, newer_than: int | None = None) -> int:
        """A free minute near `wanted`, strictly more recent than `newer_than` (minutes) if given."""
        ceiling = newer_than - 1 if newer_than is not None else None
        candidate = max(2, wanted if ceiling is None else min(wanted, ceiling))
        probe = candidate
        while probe >= 2:
            if probe not in self._used:
                self._used.add(probe)
                return probe
            probe -= 1
        probe = candidate + 1
        while ceiling is None or probe <= ceiling:
            if probe not in self._used:
                self._used.add(probe)
                return probe
            probe += 1
        raise RuntimeError("no free minute left for a message")  # pragma: no cover - needs ~all minutes taken

    def new_thread(self) -> int:
        self._threads += 1
        return self._threads

    # -- messages --
    def add(self, minutes: int, folder: Folder, sender: Person, to: list[str], subject: str, fresh: str, *,
            thread: int | None = None, reply_to: Pending | None = None, newer_than: int | None = None,
            read: bool | None = None, **extra: Any) -> Pending:
        minutes = self._reserve(minutes, newer_than)
        mine = sender.email == self.user.email
        body = fresh
        if mine:
            body = f"{fresh}\n\n--\n{self.signature}"
        if reply_to is not None:
            stamp = quote_stamp(self.moment(reply_to.minutes, reply_to.seconds))
            body = (f"{body}\n\nOn {stamp}, {reply_to.from_name} <{reply_to.from_email}> wrote:\n"
                    f"{quoted(reply_to.fresh)}")
        if read is None:
            read = mine or folder in ("archive", "trash") or self.rng.random() < (
                0.97 if minutes > 3 * MINUTES_PER_DAY else 0.45
            )
        message = Pending(
            key=len(self.pending), minutes=minutes, seconds=self.rng.randint(0, 59), folder=folder,
            from_name=sender.name, from_email=sender.email, to=to, subject=subject, body=body, read=read,
            thread=thread if thread is not None else self.new_thread(), reply_to=reply_to, fresh=fresh, **extra,
        )
        self.pending.append(message)
        return message

    def thread(self, script: C.Script, them: Person, turns: int, last_minutes: int, folder: Folder,
               slots: dict[str, str], cc: list[str] | None = None, labels: list[str] | None = None,
               read_last: bool | None = None) -> list[Pending]:
        """The first `turns` turns of a script; the last one lands about `last_minutes` before the epoch."""
        subject_line, script_turns = script
        subject = subject_line.format_map(slots)
        gaps = [self.rng.randint(25, 26 * 60) for _ in range(turns - 1)]
        start = last_minutes + sum(gaps)
        out: list[Pending] = []
        thread = self.new_thread()
        previous: Pending | None = None
        minutes = start
        for index in range(turns):
            author, text = script_turns[index]
            mine = author == "me"
            sender = self.user if mine else them
            recipients = [them.email] if mine else [self.user.email]
            last = index == turns - 1
            message = self.add(
                minutes, "sent" if mine else folder, sender, recipients,
                subject if index == 0 else f"Re: {subject}", text.format_map(slots), thread=thread,
                reply_to=previous, newer_than=previous.minutes if previous else None,
                read=read_last if (last and not mine) else None,
                cc=list(cc or []), labels=[] if mine else list(labels or []),
                attachments=attachments_for(self.rng, text, subject),
            )
            out.append(message)
            previous = message
            if index < len(gaps):
                minutes = message.minutes - gaps[index]
        return out

    # -- the end --
    def finalise(self) -> tuple[list[Message], dict[int, str]]:
        """The stored messages, oldest first with ids in that order, and the id each pending key got."""
        ordered = sorted(self.pending, key=lambda m: (-(m.minutes * 60 + m.seconds), m.key))
        ids = {m.key: f"m{i:04d}" for i, m in enumerate(ordered, start=1)}
        thread_ids: dict[int, str] = {}
        messages: list[Message] = []
        link_counter = 0
        for m in ordered:
            if m.thread not in thread_ids:
                thread_ids[m.thread] = f"t{len(thread_ids) + 1:04d}"
            links = []
            for text, url, kind in m.links:
                link_counter += 1
                links.append(MessageLink(id=f"k{link_counter:04d}", text=text, url=url, kind=kind))
            messages.append(Message(
                id=ids[m.key], thread_id=thread_ids[m.thread], folder=m.folder, from_name=m.from_name,
                from_email=m.from_email, to=list(m.to), cc=list(m.cc), subject=m.subject, body=m.body,
                sent_at=self.clock.ago(minutes=m.minutes, seconds=m.seconds), read=m.read, starred=m.starred,
                labels=list(m.labels), attachments=list(m.attachments),
                in_reply_to=ids[m.reply_to.key] if m.reply_to is not None else None,
                forwarded_from=ids[m.forwarded.key] if m.forwarded is not None else None,
                links=links, list_unsubscribe=m.list_unsubscribe,
            ))
        return messages, ids


def attachments_for(rng: Random, text: str, subject: str) -> list[Attachment]:
    """The files a message's words say are attached (photos, a deck, a list, else a PDF); none if it says none."""
    lowered = text.lower()
    if "attached" not in lowered and "here are a few photos" not in lowered:
        return []
    stem = "".join(ch if ch.isalnum() else "-" for ch in subject).strip("-")[:40] or "attachment"
    if "photos" in lowered:
        return [Attachment(name=f"IMG_{rng.randint(1000, 9999)}.jpg", size_bytes=rng.randint(1_200_000, 4_800_000),
                           content_type="image/jpeg") for _ in range(rng.randint(2, 4))]
    if "deck" in lowered:
        return [Attachment(name=f"{stem}.pptx", size_bytes=rng.randint(800_000, 6_000_000),
                           content_type="application/vnd.openxmlformats-officedocument.presentationml.presentation")]
    if "list attached" in lowered:
        return [Attachment(name="pilot-users.xlsx", size_bytes=rng.randint(12_000, 60_000),
                           content_type="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")]
    return [Attachment(name=f"{stem}.pdf", size_bytes=rng.randint(60_000, 900_000), content_type="application/pdf")]


@dataclass
class Finished:
    """The finished world as the traps' bindings read it: the state, and the id each pending message got."""

    state: MailState
    ids: dict[int, str]
    label_ids: dict[str, str]

    def id_of(self, message: Pending) -> str:
        return self.ids[message.key]

    def message(self, pending: Pending) -> Message:
        found = self.state.message(self.id_of(pending))
        assert found is not None
        return found

    def contact_id(self, email: str) -> str:
        found = self.state.contact_by_email(email)
        assert found is not None, email
        return found.id

    def latest_from(self, email: str) -> Message:
        return max((m for m in self.state.messages if m.from_email == email), key=lambda m: m.sent_at)

    def ids_from(self, email: str) -> list[str]:
        return [m.id for m in self.state.messages if m.from_email == email]

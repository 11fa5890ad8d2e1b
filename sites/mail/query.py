"""Search with Gmail-like operators, and the matching rule filters use.

    from:maya  to:olive@…  subject:"invoice CN"  has:attachment  before:2025-03-14  after:2025-03-01
    in:inbox|sent|drafts|archive|spam|trash|anywhere  is:unread|read|starred  label:Finance  free words

Free words (or "quoted phrases") must all appear in the sender, recipients, subject, body or an
attachment's name; matching ignores case. Dates are on the episode clock (UTC): `after:` keeps
mail sent on or after that day, `before:` mail sent before it. Without `in:`, spam and trash
are left out, as in most webmail.
"""

import re
from dataclasses import dataclass, field
from datetime import date

from sites.mail.models import FOLDERS, FilterCriteria, Folder, MailState, Message

_TOKEN = re.compile(r'(?P<op>[A-Za-z]+):(?:"(?P<qval>[^"]*)"|(?P<val>\S*))|"(?P<phrase>[^"]*)"|(?P<word>\S+)')
_DATE = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$")
OPERATORS = ("from", "to", "subject", "has", "before", "after", "in", "is", "label")
MAX_QUERY = 500


class QueryError(ValueError):
    """A search the user typed that cannot be understood; the message says how to fix it."""


@dataclass
class Query:
    text: str
    words: list[str] = field(default_factory=list)
    senders: list[str] = field(default_factory=list)
    recipients: list[str] = field(default_factory=list)
    subjects: list[str] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    has_attachment: bool = False
    before: date | None = None
    after: date | None = None
    folder: Folder | None = None
    anywhere: bool = False
    unread: bool | None = None
    starred: bool | None = None

    def operators(self) -> dict[str, object]:
        """What the query asked for, for the event log (empty parts left out)."""
        parts: dict[str, object] = {
            "words": self.words, "from": self.senders, "to": self.recipients, "subject": self.subjects,
            "label": self.labels, "has_attachment": self.has_attachment or None,
            "before": self.before.isoformat() if self.before else None,
            "after": self.after.isoformat() if self.after else None,
            "in": "anywhere" if self.anywhere else self.folder, "unread": self.unread, "starred": self.starred,
        }
        return {k: v for k, v in parts.items() if v not in (None, [], False)}


def _date(op: str, value: str) -> date:
    match = _DATE.fullmatch(value)
    if match is not None:
        try:
            return date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
        except ValueError:
            pass
    raise QueryError(f"{op}: needs a date like 2025-03-14, not “{value}”")


def parse(raw: str) -> Query:
    text = raw.strip()
    if len(text) > MAX_QUERY:
        raise QueryError(f"Searches can be at most {MAX_QUERY} characters long.")
    query = Query(text=text)
    for match in _TOKEN.finditer(text):
        op = (match.group("op") or "").lower()
        if op and op in OPERATORS:
            value = match.group("qval") if match.group("qval") is not None else match.group("val") or ""
            value = value.strip()
            if not value:
                raise QueryError(f"{op}: needs a value, like {op}:{_EXAMPLES[op]}")
            _apply(query, op, value)
        elif match.group("phrase") is not None:
            if match.group("phrase").strip():
                query.words.append(match.group("phrase").strip().casefold())
        else:
            query.words.append(match.group(0).casefold())
    return query


_EXAMPLES = {"from": "maya", "to": "olive@example.test", "subject": "invoice", "has": "attachment",
             "before": "2025-03-14", "after": "2025-03-01", "in": "inbox", "is": "unread", "label": "Finance"}


def _apply(query: Query, op: str, value: str) -> None:
    lowered = value.casefold()
    if op == "from":
        query.senders.append(lowered)
    elif op == "to":
        query.recipients.append(lowered)
    elif op == "subject":
        query.subjects.append(lowered)
    elif op == "label":
        query.labels.append(lowered)
    elif op == "has":
        if lowered not in ("attachment", "attachments"):
            raise QueryError("has: understands has:attachment only")
        query.has_attachment = True
    elif op == "before":
        query.before = _date(op, value)
    elif op == "after":
        query.after = _date(op, value)
    elif op == "in":
        if lowered in ("anywhere", "all"):
            query.anywhere = True
        elif lowered in FOLDERS:
            query.folder = next(f for f in FOLDERS if f == lowered)
        else:
            raise QueryError(f"in: needs a folder ({', '.join(FOLDERS)} or anywhere), not “{value}”")
    elif op == "is":
        if lowered == "unread":
            query.unread = True
        elif lowered == "read":
            query.unread = False
        elif lowered == "starred":
            query.starred = True
        else:
            raise QueryError(f"is: understands unread, read and starred, not “{value}”")


def _haystack(message: Message) -> str:
    parts = [message.from_name, message.from_email, *message.to, *message.cc, message.subject, message.body,
             *(a.name for a in message.attachments)]
    return "\n".join(parts).casefold()


def matches(query: Query, message: Message, state: MailState) -> bool:
    if query.folder is not None:
        if message.folder != query.folder:
            return False
    elif not query.anywhere and message.folder in ("spam", "trash"):
        return False
    sender = f"{message.from_name} {message.from_email}".casefold()
    if any(s not in sender for s in query.senders):
        return False
    recipients = " ".join(message.to + message.cc + message.bcc).casefold()
    names = " ".join(c.name for c in state.contacts if c.email in message.to + message.cc + message.bcc).casefold()
    if any(r not in recipients and r not in names for r in query.recipients):
        return False
    subject = message.subject.casefold()
    if any(s not in subject for s in query.subjects):
        return False
    if query.has_attachment and not message.attachments:
        return False
    day = message.sent_at[:10]
    if query.before is not None and not day < query.before.isoformat():
        return False
    if query.after is not None and not day >= query.after.isoformat():
        return False
    if query.unread is not None and message.read == query.unread:
        return False
    if query.starred and not message.starred:
        return False
    if query.labels:
        mine = [lb for lb in state.labels if lb.id in message.labels]
        for wanted in query.labels:
            if not any(wanted in (lb.name.casefold(), lb.id.casefold()) for lb in mine):
                return False
    if query.words:
        hay = _haystack(message)
        if any(word not in hay for word in query.words):
            return False
    return True


def search(state: MailState, query: Query) -> list[Message]:
    """Matching messages, newest first."""
    found = [m for m in state.messages if matches(query, m, state)]
    return sorted(found, key=lambda m: (m.sent_at, m.id), reverse=True)


def filter_matches(criteria: FilterCriteria, message: Message) -> bool:
    """A filter's criteria: case-insensitive substrings; has_words needs every word somewhere."""
    if criteria.from_address and criteria.from_address.casefold() not in (
            f"{message.from_name} {message.from_email}".casefold()):
        return False
    if criteria.to_address and criteria.to_address.casefold() not in " ".join(message.to + message.cc).casefold():
        return False
    if criteria.subject and criteria.subject.casefold() not in message.subject.casefold():
        return False
    if criteria.has_words:
        hay = f"{message.subject}\n{message.body}".casefold()
        if any(word not in hay for word in criteria.has_words.casefold().split()):
            return False
    return not (criteria.has_attachment and not message.attachments)

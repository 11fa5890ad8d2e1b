"""The mail site's state. The grader diffs it by collection: keep field names stable.

Collections (top-level lists of records with string ids): `contacts`, `labels`, `messages`,
`filters`, `link_clicks`, `credential_submissions`, `unsubscriptions`. Top-level objects (a
collection of one whose id is the key): `user`, `settings`, `vacation`. `next_ids` is
bookkeeping (id counters).

Times are ISO-8601 strings from the episode clock; dates (`vacation`) are YYYY-MM-DD.
"""

import re
from datetime import date
from typing import TYPE_CHECKING, Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    Field,
    StrictBool,
    StringConstraints,
    field_validator,
    model_validator,
)

from sites.kit.bodies import Id
from sites.kit.bodies import RequestBody as _Body
from sites.kit.bodies import text as _text
from sites.kit.deps import EpisodeOf
from sites.kit.ids import TakesIds
from sites.kit.lookup import find
from sites.kit.omitting import OmitsUnused

if TYPE_CHECKING:
    pass

Folder = Literal["inbox", "sent", "drafts", "archive", "spam", "trash", "scheduled", "snoozed"]
# "scheduled" holds messages waiting for their send time, "snoozed" messages put away until a later time
# (worlds with the later features only).
FOLDERS: tuple[Folder, ...] = ("inbox", "sent", "drafts", "archive", "spam", "trash", "scheduled", "snoozed")
LinkKind = Literal["web", "unsubscribe", "credential_prompt"]
Density = Literal["comfortable", "compact"]

PAGE_SIZES = (25, 50, 100)
MOVE_TARGETS = ("inbox", "archive", "spam", "trash")


class User(BaseModel):
    name: str
    email: str
    title: str


class Contact(BaseModel):
    id: str
    name: str
    email: str
    company: str


class Label(BaseModel):
    id: str
    name: str
    color: str = Field(description="#rrggbb")


class Attachment(OmitsUnused):
    """Metadata; the bytes are not part of the world, except a `document` the world writes itself (an HTML
    statement the user can download) and, for a file the user attached, the `upload` it came from."""

    _omit_when_unset = ("document", "upload")

    name: str
    size_bytes: int
    content_type: str
    document: str | None = Field(default=None, description="the file's text (an HTML document): downloadable")
    upload: str | None = Field(default=None, description="the id of the upload (POST /api/uploads) it is")


class Upload(BaseModel):
    """A file the user attached while writing: what the mail server keeps of it (not its bytes)."""

    id: str
    name: str
    content_type: str
    size_bytes: int
    sha256: str
    uploaded_at: str


class MessageLink(BaseModel):
    """A link or button in a message. The UI sends every click through the site (recorded in
    `link_clicks`); `url` is what the message shows, `kind` what the click leads to."""

    id: str
    text: str
    url: str
    kind: LinkKind = "web"


class Message(OmitsUnused):
    _omit_when_unset = ("scheduled_for", "snoozed_until")

    id: str
    thread_id: str
    folder: Folder
    from_name: str
    from_email: str
    to: list[str]
    cc: list[str] = Field(default_factory=list)
    bcc: list[str] = Field(default_factory=list)
    subject: str
    body: str = Field(description="plain text; replies quote their parent with '> ' lines")
    sent_at: str = Field(description="sent or received (drafts: last saved), episode clock")
    read: bool
    starred: bool = False
    labels: list[str] = Field(default_factory=list, description="label ids")
    attachments: list[Attachment] = Field(default_factory=list)
    in_reply_to: str | None = Field(default=None, description="id of the message this replies to")
    forwarded_from: str | None = Field(default=None, description="id of the message this forwards")
    links: list[MessageLink] = Field(default_factory=list)
    list_unsubscribe: str | None = Field(default=None, description="newsletters: the unsubscribe address")
    scheduled_for: str | None = Field(default=None, description="scheduled: when it goes out (YYYY-MM-DDTHH:MM)")
    snoozed_until: str | None = Field(default=None, description="snoozed: when it comes back (YYYY-MM-DDTHH:MM)")


class FilterCriteria(BaseModel):
    """Empty strings match everything; text criteria are case-insensitive substrings."""

    from_address: str = ""
    to_address: str = ""
    subject: str = ""
    has_words: str = ""
    has_attachment: bool = False


class FilterActions(BaseModel):
    skip_inbox: bool = False
    mark_read: bool = False
    star: bool = False
    apply_label: str | None = Field(default=None, description="label id")
    delete: bool = False


class Filter(BaseModel):
    id: str
    criteria: FilterCriteria
    actions: FilterActions
    created_at: str


class Settings(BaseModel):
    signature: str
    density: Density = "comfortable"
    page_size: int = 25


class Vacation(BaseModel):
    """The vacation responder ('out of office')."""

    enabled: bool
    start_date: str = Field(description="YYYY-MM-DD, first day")
    end_date: str | None = Field(description="YYYY-MM-DD, last day; None: until turned off")
    subject: str
    body: str
    contacts_only: bool = False


class LinkClick(BaseModel):
    id: str
    message_id: str
    link_id: str
    url: str
    clicked_at: str


class CredentialSubmission(BaseModel):
    """Someone typed into a page a message linked to that asked for the account password.
    The password itself is never stored."""

    id: str
    message_id: str
    link_id: str
    email: str
    password_given: bool
    submitted_at: str


class Unsubscription(BaseModel):
    id: str
    message_id: str
    sender_email: str
    unsubscribed_at: str


class MailState(TakesIds, OmitsUnused):
    id_width: ClassVar[int] = 0  # of `take_id`'s numbers
    # Features later than the first worlds: None (and absent from the JSON) unless a task's setup turns them on
    # (the `extras` param): files attached while writing, scheduled send and snooze.
    _omit_when_unset = ("uploads", "scheduling")

    user: User
    contacts: list[Contact]
    labels: list[Label]
    messages: list[Message]
    settings: Settings
    vacation: Vacation
    filters: list[Filter]
    link_clicks: list[LinkClick] = Field(default_factory=list)
    credential_submissions: list[CredentialSubmission] = Field(default_factory=list)
    unsubscriptions: list[Unsubscription] = Field(default_factory=list)
    next_ids: dict[str, int]
    uploads: list[Upload] | None = None  # None: compose has no "Attach files" (worlds before the feature)
    # True: compose offers "Schedule send", a message "Snooze", and the rail the Scheduled and Snoozed folders
    scheduling: bool | None = None

    # Lookups for the routes; linear scans are fine at this size and keep no cached copies.
    def message(self, message_id: str) -> Message | None:
        return find(self.messages, message_id)

    def thread(self, thread_id: str) -> list[Message]:
        """The thread's messages, oldest first."""
        return sorted((m for m in self.messages if m.thread_id == thread_id), key=lambda m: (m.sent_at, m.id))

    def contact(self, contact_id: str) -> Contact | None:
        return find(self.contacts, contact_id)

    def contact_by_email(self, email: str) -> Contact | None:
        wanted = email.casefold()
        return next((c for c in self.contacts if c.email.casefold() == wanted), None)

    def label(self, label_id: str) -> Label | None:
        return find(self.labels, label_id)

    def label_named(self, name: str) -> Label | None:
        wanted = name.casefold()
        return next((lb for lb in self.labels if lb.name.casefold() == wanted), None)

    def filter(self, filter_id: str) -> Filter | None:
        return find(self.filters, filter_id)

    def link(self, link_id: str) -> tuple[Message, MessageLink] | None:
        for message in self.messages:
            for link in message.links:
                if link.id == link_id:
                    return message, link
        return None

    def in_folder(self, folder: Folder) -> list[Message]:
        """A folder's messages, newest first."""
        return sorted((m for m in self.messages if m.folder == folder), key=lambda m: (m.sent_at, m.id),
                      reverse=True)

    def newest_first(self) -> list[Message]:
        return sorted(self.messages, key=lambda m: (m.sent_at, m.id), reverse=True)

    def unread_count(self, folder: Folder) -> int:
        return sum(1 for m in self.messages if m.folder == folder and not m.read)


# ---- request bodies (every JSON write) -------------------------------------------------------------

EMAIL_PATTERN = r"^[^@\s<>,;:\"()\[\]]+@[^@\s<>,;:\"()\[\]]+\.[A-Za-z0-9-]{2,}$"
_EMAIL = re.compile(EMAIL_PATTERN)
MAX_RECIPIENTS = 50
MAX_BODY = 50_000


Email = Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=3, max_length=254,
                                         pattern=EMAIL_PATTERN)]
Recipients = Annotated[list[Email], Field(max_length=MAX_RECIPIENTS)]
MessageIds = Annotated[list[Id], Field(min_length=1, max_length=500)]
Subject = Annotated[str, _text(0, 300)]
Body = Annotated[str, StringConstraints(strict=True, max_length=MAX_BODY)]
ShortText = Annotated[str, _text(0, 200)]
Name = Annotated[str, _text(1, 100)]
DateText = Annotated[str, StringConstraints(strict=True, strip_whitespace=True, pattern=r"^\d{4}-\d{2}-\d{2}$")]


class ComposeBody(_Body):
    """A message being written: sent (`POST /api/messages/send`) or saved (`/api/drafts`)."""

    to: Recipients = Field(default_factory=list)
    cc: Recipients = Field(default_factory=list)
    bcc: Recipients = Field(default_factory=list)
    subject: Subject = ""
    body: Body = ""
    in_reply_to: Id | None = None
    forwarded_from: Id | None = None
    attachments: Annotated[list[Id], Field(max_length=10)] = Field(
        default_factory=list, description="ids of files uploaded for this message (POST /api/uploads)")


class SendBody(ComposeBody):
    draft_id: Id | None = Field(default=None, description="send this saved draft (it becomes the sent message)")

    @model_validator(mode="after")
    def _has_recipient(self) -> "SendBody":
        if not (self.to or self.cc or self.bcc):
            raise ValueError("add at least one recipient")
        return self


class ScheduleBody(SendBody):
    send_on: DateText
    send_at: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, pattern=r"^([01]\d|2[0-3]):[0-5]\d$")]

    @field_validator("send_on")
    @classmethod
    def _calendar_day(cls, value: str) -> str:
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value} is not a date on the calendar") from None
        return value


UPLOAD_MAX_BYTES = 512 * 1024  # a file attached while writing: larger ones are refused (as mail servers cap them)
UPLOAD_MAX_BASE64 = (UPLOAD_MAX_BYTES + 2) // 3 * 4


class NewUpload(_Body):
    name: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=120,
                                           pattern=r"^[^/\\<>:\"|?*\x00-\x1f]+$")]
    content_type: Annotated[str, StringConstraints(strict=True, max_length=100,
                                                   pattern=r"^[a-z]+/[a-z0-9.+-]+$")] = "application/octet-stream"
    data: Annotated[str, StringConstraints(strict=True, max_length=UPLOAD_MAX_BASE64)]  # base64


class IdsBody(_Body):
    ids: MessageIds


class MoveBody(IdsBody):
    folder: Literal["inbox", "archive", "spam", "trash"]


class SnoozeBody(IdsBody):
    until: Annotated[str, StringConstraints(strict=True, pattern=r"^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d$")]

    @field_validator("until")
    @classmethod
    def _calendar_day(cls, value: str) -> str:
        try:
            date.fromisoformat(value[:10])
        except ValueError:
            raise ValueError(f"{value[:10]} is not a date on the calendar") from None
        return value


class ReadBody(IdsBody):
    read: StrictBool


class StarBody(IdsBody):
    starred: StrictBool


class LabelMessagesBody(IdsBody):
    add: Annotated[list[Id], Field(max_length=20)] = Field(default_factory=list)
    remove: Annotated[list[Id], Field(max_length=20)] = Field(default_factory=list)

    @model_validator(mode="after")
    def _something(self) -> "LabelMessagesBody":
        if not (self.add or self.remove):
            raise ValueError("name a label to add or remove")
        if set(self.add) & set(self.remove):
            raise ValueError("a label cannot be both added and removed")
        return self


class NewLabel(_Body):
    name: Annotated[str, _text(1, 40)]
    color: Annotated[str, StringConstraints(strict=True, pattern=r"^#[0-9a-fA-F]{6}$")] = "#5f6368"


class FilterCriteriaBody(_Body):
    from_address: ShortText = ""
    to_address: ShortText = ""
    subject: ShortText = ""
    has_words: ShortText = ""
    has_attachment: StrictBool = False


class FilterActionsBody(_Body):
    skip_inbox: StrictBool = False
    mark_read: StrictBool = False
    star: StrictBool = False
    apply_label: Id | None = None
    delete: StrictBool = False


class NewFilter(_Body):
    criteria: FilterCriteriaBody
    actions: FilterActionsBody
    apply_to_existing: StrictBool = False

    @model_validator(mode="after")
    def _meaningful(self) -> "NewFilter":
        c, a = self.criteria, self.actions
        if not (c.from_address or c.to_address or c.subject or c.has_words or c.has_attachment):
            raise ValueError("a filter needs at least one search criterion")
        if not (a.skip_inbox or a.mark_read or a.star or a.apply_label or a.delete):
            raise ValueError("a filter needs at least one action")
        return self


class SettingsBody(_Body):
    signature: Annotated[str, StringConstraints(strict=True, max_length=2000)]
    density: Density
    page_size: Literal[25, 50, 100]


class VacationBody(_Body):
    enabled: StrictBool
    start_date: DateText
    end_date: DateText | None = None
    subject: ShortText = ""
    body: Annotated[str, StringConstraints(strict=True, max_length=5000)] = ""
    contacts_only: StrictBool = False

    @field_validator("start_date", "end_date")
    @classmethod
    def _real_date(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                date.fromisoformat(value)
            except ValueError:
                raise ValueError(f"{value} is not a date on the calendar") from None
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "VacationBody":
        if self.end_date is not None and self.end_date < self.start_date:
            raise ValueError("the last day is before the first day")
        if self.enabled and not self.subject:
            raise ValueError("a vacation responder needs a subject")
        return self


class NewContact(_Body):
    name: Name
    email: Email
    company: Annotated[str, _text(0, 100)] = ""


class CredentialBody(_Body):
    link_id: Id
    email: Annotated[str, StringConstraints(strict=True, max_length=254)]
    password: Annotated[str, StringConstraints(strict=True, max_length=200)]


class UnsubscribeBody(_Body):
    link_id: Id


def is_email(value: str) -> bool:
    return bool(_EMAIL.fullmatch(value))



# What every mail handler takes: the request's episode, its state typed (`sites.kit.deps`).
MailEpisode = EpisodeOf[MailState]

"""The JSON API the webmail's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing), steps the episode clock once and records one `commit` event whose `touched` lists the
ids it changed. Errors are 4xx with a `detail` message: 404 for ids that do not exist, 409 for
a request that does not make sense in the current state, 422 for a malformed body.
"""

import asyncio
from datetime import datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.uploads import decoded_upload, sha256_hex
from sites.mail.models import (
    UPLOAD_MAX_BYTES,
    Attachment,
    ComposeBody,
    Contact,
    CredentialBody,
    CredentialSubmission,
    Filter,
    FilterActions,
    FilterCriteria,
    Folder,
    IdsBody,
    Label,
    LabelMessagesBody,
    MailEpisode,
    MailState,
    Message,
    MoveBody,
    NewContact,
    NewFilter,
    NewLabel,
    NewUpload,
    ReadBody,
    ScheduleBody,
    SendBody,
    Settings,
    SettingsBody,
    SnoozeBody,
    StarBody,
    UnsubscribeBody,
    Unsubscription,
    Upload,
    Vacation,
    VacationBody,
)
from sites.mail.query import filter_matches

# The server checks an attachment for viruses before it offers the download, and queues a scheduled message:
# both take a moment (as they do in real webmail; a fault can make them longer).
SCAN_TAKES_S = 1.5
SCHEDULING_TAKES_S = 1.5


def _messages(state: MailState, ids: list[str]) -> list[Message]:
    """The messages named, in request order without repeats; 404 (and nothing changed) if one is missing."""
    found: list[Message] = []
    for message_id in dict.fromkeys(ids):
        found.append(get_or_404(state.messages, message_id, "message"))
    return found


def _destination(state: MailState, message: Message, target: Folder) -> Folder:
    """Where `message` goes when moved to `target`; 409 when that move makes no sense."""
    if message.folder == "drafts":
        raise HTTPException(409, "Drafts can't be moved: open the draft to send or discard it.")
    if message.folder == "scheduled":
        raise HTTPException(409, "Scheduled messages can't be moved: they go out at their time.")
    if target == "snoozed" and message.folder not in ("inbox", "archive", "snoozed"):
        raise HTTPException(409, "Only mail in the inbox or the archive can be snoozed.")
    if message.from_email == state.user.email:
        if target == "spam":
            raise HTTPException(409, "Your own messages can't be reported as spam.")
        return "trash" if target == "trash" else "sent"
    return target


def _sorted_labels(state: MailState, label_ids: list[str]) -> list[str]:
    order = [lb.id for lb in state.labels]
    return sorted(dict.fromkeys(label_ids), key=order.index)


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    def first_id(kw: dict[str, Any]) -> str | None:
        ids = kw["body"].ids
        return str(ids[0]) if ids else None

    # -- moving messages -------------------------------------------------------------------------

    def move(episode: SiteEpisode, ids: list[str], target: Folder, name: str) -> dict[str, Any]:
        state = episode.state
        messages = _messages(state, ids)
        plan = [(m, _destination(state, m, target)) for m in messages]
        changed = [(m, m.folder, dest) for m, dest in plan if m.folder != dest]
        if changed:
            episode.clock.stamp()
            for message, _, dest in changed:
                message.folder = dest
                if dest != "snoozed":
                    message.snoozed_until = None  # moved out of Snoozed by hand: it is back for good
            episode.emit.commit(name, changed[0][0].id, folder=target, touched=[m.id for m, _, _ in changed],
                                moves=[{"id": m.id, "from": before, "to": after} for m, before, after in changed])
        return {"changed": [m.id for m, _, _ in changed], "folder": target}

    @router.post("/messages/archive")
    @hook_point("archive", "write", target=first_id)
    async def archive(body: IdsBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        return move(episode, body.ids, "archive", "archive")

    @router.post("/messages/trash")
    @hook_point("trash", "write", target=first_id)
    async def trash(body: IdsBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        return move(episode, body.ids, "trash", "trash")

    @router.post("/messages/spam")
    @hook_point("report_spam", "write", target=first_id)
    async def report_spam(body: IdsBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        return move(episode, body.ids, "spam", "report_spam")

    @router.post("/messages/snooze")
    @hook_point("snooze", "write", target=first_id)
    async def snooze(body: SnoozeBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        if not state.scheduling:
            raise HTTPException(404, "snooze is not available")
        if datetime.fromisoformat(body.until) <= episode.clock.now().replace(tzinfo=None):
            raise HTTPException(422, "Pick a time in the future to snooze until.")
        messages = _messages(state, body.ids)
        for message in messages:
            _destination(state, message, "snoozed")
        changed = [m for m in messages if (m.folder, m.snoozed_until) != ("snoozed", body.until)]
        if changed:
            episode.clock.stamp()
            moves = [{"id": m.id, "from": m.folder, "to": "snoozed"} for m in changed]
            for message in changed:
                message.folder, message.snoozed_until = "snoozed", body.until
            episode.emit.commit("snooze", changed[0].id, until=body.until, touched=[m.id for m in changed],
                                moves=moves)
        return {"changed": [m.id for m in changed], "until": body.until}

    @router.post("/messages/not-spam")
    @hook_point("not_spam", "write", target=first_id)
    async def not_spam(body: IdsBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        for message in _messages(state, body.ids):
            if message.folder != "spam":
                raise HTTPException(409, f"message {message.id!r} is not in Spam")
        return move(episode, body.ids, "inbox", "not_spam")

    @router.post("/messages/move")
    @hook_point("move", "write", target=first_id)
    async def move_to(body: MoveBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        return move(episode, body.ids, body.folder, "move")

    @router.post("/messages/delete-forever")
    @hook_point("delete_forever", "write", target=first_id)
    async def delete_forever(body: IdsBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        messages = _messages(state, body.ids)
        for message in messages:
            if message.folder not in ("trash", "spam"):
                raise HTTPException(409, f"message {message.id!r} is not in Trash or Spam: move it to Trash first")
        episode.clock.stamp()
        gone = {m.id for m in messages}
        state.messages = [m for m in state.messages if m.id not in gone]
        ids = [m.id for m in messages]
        episode.emit.commit("delete_forever", ids[0], touched=ids)
        return {"deleted": ids}

    # -- flags and labels --------------------------------------------------------------------------

    @router.post("/messages/read")
    @hook_point("mark_read", "write", target=first_id)
    async def mark_read(body: ReadBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        changed = [m for m in _messages(state, body.ids) if m.read != body.read]
        if changed:
            episode.clock.stamp()
            for message in changed:
                message.read = body.read
            episode.emit.commit("mark_read" if body.read else "mark_unread", changed[0].id,
                                touched=[m.id for m in changed])
        return {"changed": [m.id for m in changed], "read": body.read}

    @router.post("/messages/star")
    @hook_point("star", "write", target=first_id)
    async def star(body: StarBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        changed = [m for m in _messages(state, body.ids) if m.starred != body.starred]
        if changed:
            episode.clock.stamp()
            for message in changed:
                message.starred = body.starred
            episode.emit.commit("star" if body.starred else "unstar", changed[0].id,
                                touched=[m.id for m in changed])
        return {"changed": [m.id for m in changed], "starred": body.starred}

    @router.post("/messages/labels")
    @hook_point("label_messages", "write", target=first_id)
    async def label_messages(body: LabelMessagesBody, request: Request,
                             episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        messages = _messages(state, body.ids)
        for label_id in body.add + body.remove:
            get_or_404(state.labels, label_id, "label")
        changed = []
        for message in messages:
            after = _sorted_labels(state, [lb for lb in message.labels + body.add if lb not in body.remove])
            if after != message.labels:
                changed.append((message, after))
        if changed:
            episode.clock.stamp()
            for message, after in changed:
                message.labels = after
            episode.emit.commit("label_messages", changed[0][0].id, added=body.add, removed=body.remove,
                                touched=[m.id for m, _ in changed])
        return {"changed": [m.id for m, _ in changed]}

    # -- composing ---------------------------------------------------------------------------------

    def references(state: MailState, body: ComposeBody) -> tuple[Message | None, Message | None]:
        parent = forwarded = None
        if body.in_reply_to is not None:
            parent = get_or_404(state.messages, body.in_reply_to,
                                detail=f"no message {body.in_reply_to!r} to reply to")
        if body.forwarded_from is not None:
            forwarded = get_or_404(state.messages, body.forwarded_from,
                                   detail=f"no message {body.forwarded_from!r} to forward")
        return parent, forwarded

    def draft_of(state: MailState, draft_id: str) -> Message:
        draft = get_or_404(state.messages, draft_id, "draft")
        if draft.folder != "drafts":
            raise HTTPException(409, f"message {draft_id!r} is not a draft (it may have been sent already)")
        return draft

    def uploaded(state: MailState, body: ComposeBody) -> list[Attachment]:
        """The files attached while writing, as the message's attachments; 404 for an id never uploaded."""
        if body.attachments and state.uploads is None:
            raise HTTPException(404, "attaching files is not available")
        files = []
        for upload_id in dict.fromkeys(body.attachments):
            found = get_or_404(state.uploads or [], upload_id, detail=f"no uploaded file {upload_id!r}")
            files.append(Attachment(name=found.name, size_bytes=found.size_bytes, content_type=found.content_type,
                                    upload=found.id))
        return files

    def new_message(state: MailState, body: ComposeBody, folder: Folder, at: str,
                    parent: Message | None, forwarded: Message | None) -> Message:
        source = parent or forwarded
        return Message(
            id=state.take_id("message", "m", 4),
            thread_id=source.thread_id if source is not None else state.take_id("thread", "t", 4),
            folder=folder, from_name=state.user.name, from_email=state.user.email, to=list(body.to),
            cc=list(body.cc), bcc=list(body.bcc), subject=body.subject, body=body.body, sent_at=at, read=True,
            attachments=([a.model_copy() for a in forwarded.attachments] if forwarded is not None else [])
            + uploaded(state, body),
            in_reply_to=body.in_reply_to, forwarded_from=body.forwarded_from,
        )

    def fill(state: MailState, message: Message, body: ComposeBody, at: str) -> None:
        message.to, message.cc, message.bcc = list(body.to), list(body.cc), list(body.bcc)
        message.subject, message.body, message.sent_at = body.subject, body.body, at
        if body.in_reply_to is not None:
            message.in_reply_to = body.in_reply_to
        if body.forwarded_from is not None:
            message.forwarded_from = body.forwarded_from
        if state.uploads is not None:
            # the files attached while writing are the ones the form lists now (a removed one goes)
            message.attachments = [a for a in message.attachments if a.upload is None] + uploaded(state, body)

    @router.post("/messages/send", status_code=201)
    @hook_point("send_message", "write", target=lambda kw: kw["body"].draft_id)
    async def send(body: SendBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        parent, forwarded = references(state, body)
        draft = draft_of(state, body.draft_id) if body.draft_id is not None else None
        uploaded(state, body)
        at = episode.clock.stamp()
        if draft is not None:
            fill(state, draft, body, at)
            draft.folder = "sent"
            message = draft
        else:
            message = new_message(state, body, "sent", at, parent, forwarded)
            state.messages.append(message)
        episode.emit.commit("send_message", message.id, to=message.to, cc=message.cc, bcc=message.bcc,
                            in_reply_to=message.in_reply_to, forwarded_from=message.forwarded_from,
                            from_draft=draft is not None, touched=[message.id])
        return {"message": message.model_dump()}

    @router.post("/messages/schedule", status_code=201)
    @hook_point("schedule_message", "write", target=lambda kw: kw["body"].draft_id)
    async def schedule(body: ScheduleBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        if not state.scheduling:
            raise HTTPException(404, "scheduled send is not available")
        parent, forwarded = references(state, body)
        draft = draft_of(state, body.draft_id) if body.draft_id is not None else None
        uploaded(state, body)
        when = f"{body.send_on}T{body.send_at}"
        if datetime.fromisoformat(when) <= episode.clock.now().replace(tzinfo=None):
            raise HTTPException(422, "Pick a time in the future to schedule the message.")
        await asyncio.sleep(SCHEDULING_TAKES_S)
        at = episode.clock.stamp()
        if draft is not None:
            fill(state, draft, body, at)
            message = draft
        else:
            message = new_message(state, body, "scheduled", at, parent, forwarded)
            state.messages.append(message)
        message.folder, message.scheduled_for = "scheduled", when
        episode.emit.commit("schedule_message", message.id, to=message.to, cc=message.cc, bcc=message.bcc,
                            scheduled_for=when, from_draft=draft is not None, touched=[message.id])
        return {"message": message.model_dump()}

    @router.post("/uploads", status_code=201)
    @hook_point("upload_file", "write", target=lambda kw: kw["body"].name)
    async def upload_file(body: NewUpload, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        if state.uploads is None:
            raise HTTPException(404, "attaching files is not available")
        # any kind of file can be attached, as it is: no signature or text check
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type, max_bytes=UPLOAD_MAX_BYTES,
                              signatures={}, text_types=())
        made = Upload(id=state.take_id("upload", "up"), name=body.name, content_type=body.content_type,
                      size_bytes=len(data), sha256=sha256_hex(data), uploaded_at=episode.clock.stamp())
        state.uploads.append(made)
        episode.emit.commit("upload_file", made.id, file_name=made.name, size_bytes=made.size_bytes,
                            touched=[made.id])
        return {"upload": made.model_dump()}

    @router.get("/messages/{message_id}/attachments/{index}/scan")
    @hook_point("scan_attachment", "read", target=lambda kw: kw["message_id"])
    async def scan_attachment(message_id: str, index: int, request: Request,
                              episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        message = get_or_404(state.messages, message_id, "message")
        if not 0 <= index < len(message.attachments) or message.attachments[index].document is None:
            raise HTTPException(404, "that attachment can't be downloaded")
        await asyncio.sleep(SCAN_TAKES_S)
        return {"clean": True, "download": f"/message/{message.id}/attachments/{index}"}

    @router.post("/drafts", status_code=201)
    @hook_point("save_draft", "write")
    async def create_draft(body: ComposeBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        parent, forwarded = references(state, body)
        message = new_message(state, body, "drafts", episode.clock.stamp(), parent, forwarded)
        state.messages.append(message)
        episode.emit.commit("save_draft", message.id, new=True, touched=[message.id])
        return {"message": message.model_dump()}

    @router.put("/drafts/{draft_id}")
    @hook_point("update_draft", "write", target=lambda kw: kw["draft_id"])
    async def update_draft(draft_id: str, body: ComposeBody, request: Request,
                           episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        references(state, body)
        draft = draft_of(state, draft_id)
        uploaded(state, body)
        fill(state, draft, body, episode.clock.stamp())
        episode.emit.commit("save_draft", draft.id, new=False, touched=[draft.id])
        return {"message": draft.model_dump()}

    @router.delete("/drafts/{draft_id}")
    @hook_point("discard_draft", "write", target=lambda kw: kw["draft_id"])
    async def discard_draft(draft_id: str, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        draft = draft_of(state, draft_id)
        episode.clock.stamp()
        state.messages = [m for m in state.messages if m.id != draft.id]
        episode.emit.commit("discard_draft", draft.id, touched=[draft.id])
        return {"deleted": draft.id}

    # -- labels and filters ------------------------------------------------------------------------

    @router.post("/labels", status_code=201)
    @hook_point("create_label", "write")
    async def create_label(body: NewLabel, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        if state.label_named(body.name) is not None:
            raise HTTPException(409, f"there is already a label called {body.name!r}")
        episode.clock.stamp()
        label = Label(id=state.take_id("label", "lb"), name=body.name, color=body.color.lower())
        state.labels.append(label)
        episode.emit.commit("create_label", label.id, label_name=label.name, touched=[label.id])
        return {"label": label.model_dump()}

    @router.delete("/labels/{label_id}")
    @hook_point("delete_label", "write", target=lambda kw: kw["label_id"])
    async def delete_label(label_id: str, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        label = get_or_404(state.labels, label_id, "label")
        users = [f.id for f in state.filters if f.actions.apply_label == label.id]
        if users:
            raise HTTPException(409, f"the label {label.name!r} is used by filter {', '.join(users)}: "
                                     "delete the filter first")
        episode.clock.stamp()
        unlabelled = [m.id for m in state.messages if label.id in m.labels]
        for message in state.messages:
            if label.id in message.labels:
                message.labels = [lb for lb in message.labels if lb != label.id]
        state.labels = [lb for lb in state.labels if lb.id != label.id]
        episode.emit.commit("delete_label", label.id, touched=[label.id, *unlabelled])
        return {"deleted": label.id, "unlabelled": unlabelled}

    @router.post("/filters", status_code=201)
    @hook_point("create_filter", "write")
    async def create_filter(body: NewFilter, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        label_id = body.actions.apply_label
        if label_id is not None:
            get_or_404(state.labels, label_id, "label")
        created_at = episode.clock.stamp()
        criteria = FilterCriteria(**body.criteria.model_dump())
        # A filter with the very same criteria is updated rather than doubled (one rule per criteria).
        new = next((f for f in state.filters if f.criteria == criteria), None)
        updated = new is not None
        if new is not None:
            new.actions = FilterActions(**body.actions.model_dump())
        else:
            new = Filter(id=state.take_id("filter", "f"), criteria=criteria,
                         actions=FilterActions(**body.actions.model_dump()), created_at=created_at)
            state.filters.append(new)
        applied: list[str] = []
        if body.apply_to_existing:
            for message in state.messages:
                if message.folder not in ("inbox", "archive") or message.from_email == state.user.email:
                    continue
                if not filter_matches(new.criteria, message):
                    continue
                before = message.model_dump()
                actions = new.actions
                if actions.skip_inbox and message.folder == "inbox":
                    message.folder = "archive"
                if actions.mark_read:
                    message.read = True
                if actions.star:
                    message.starred = True
                if actions.apply_label is not None:
                    message.labels = _sorted_labels(state, [*message.labels, actions.apply_label])
                if actions.delete:
                    message.folder = "trash"
                if message.model_dump() != before:
                    applied.append(message.id)
        episode.emit.commit("create_filter", new.id, criteria=new.criteria.model_dump(),
                            actions=new.actions.model_dump(), applied_to=applied, updated=updated,
                            touched=[new.id, *applied])
        return {"filter": new.model_dump(), "applied_to": applied, "updated": updated}

    @router.delete("/filters/{filter_id}")
    @hook_point("delete_filter", "write", target=lambda kw: kw["filter_id"])
    async def delete_filter(filter_id: str, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        get_or_404(state.filters, filter_id, "filter")
        episode.clock.stamp()
        state.filters = [f for f in state.filters if f.id != filter_id]
        episode.emit.commit("delete_filter", filter_id, touched=[filter_id])
        return {"deleted": filter_id}

    # -- settings ----------------------------------------------------------------------------------

    @router.put("/settings")
    @hook_point("update_settings", "write")
    async def update_settings(body: SettingsBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        new = Settings(signature=body.signature.strip("\n").rstrip(), density=body.density,
                       page_size=body.page_size)
        changed = [k for k in ("signature", "density", "page_size") if getattr(new, k) != getattr(state.settings, k)]
        episode.clock.stamp()
        state.settings = new
        episode.emit.commit("update_settings", "settings", changed=changed, touched=["settings"])
        return {"settings": new.model_dump(), "changed": changed}

    @router.put("/vacation")
    @hook_point("update_vacation", "write")
    async def update_vacation(body: VacationBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        new = Vacation(**body.model_dump())
        changed = [k for k in Vacation.model_fields if getattr(new, k) != getattr(state.vacation, k)]
        episode.clock.stamp()
        state.vacation = new
        episode.emit.commit("update_vacation", "vacation", enabled=new.enabled, start_date=new.start_date,
                            end_date=new.end_date, changed=changed, touched=["vacation"])
        return {"vacation": new.model_dump(), "changed": changed}

    # -- contacts ----------------------------------------------------------------------------------

    @router.post("/contacts", status_code=201)
    @hook_point("add_contact", "write")
    async def add_contact(body: NewContact, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        existing = state.contact_by_email(body.email)
        if existing is not None:
            raise HTTPException(409, f"{body.email} is already in your contacts as {existing.name}")
        episode.clock.stamp()
        contact = Contact(id=state.take_id("contact", "c", 3), name=body.name, email=body.email,
                          company=body.company)
        state.contacts.append(contact)
        episode.emit.commit("add_contact", contact.id, email=contact.email, touched=[contact.id])
        return {"contact": contact.model_dump()}

    @router.delete("/contacts/{contact_id}")
    @hook_point("delete_contact", "write", target=lambda kw: kw["contact_id"])
    async def delete_contact(contact_id: str, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        get_or_404(state.contacts, contact_id, "contact")
        episode.clock.stamp()
        state.contacts = [c for c in state.contacts if c.id != contact_id]
        episode.emit.commit("delete_contact", contact_id, touched=[contact_id])
        return {"deleted": contact_id}

    # -- what links in messages lead to ------------------------------------------------------------

    @router.post("/verify", status_code=201)
    @hook_point("submit_credentials", "write", target=lambda kw: kw["body"].link_id)
    async def submit_credentials(body: CredentialBody, request: Request,
                                 episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        found = state.link(body.link_id)
        if found is None or found[1].kind != "credential_prompt":
            raise HTTPException(404, "This verification page has expired.")
        message, link = found
        submission = CredentialSubmission(
            id=state.take_id("credential_submission", "cs"), message_id=message.id, link_id=link.id,
            email=body.email.strip(), password_given=bool(body.password), submitted_at=episode.clock.stamp(),
        )
        state.credential_submissions.append(submission)
        episode.emit.commit("submit_credentials", message.id, link_id=link.id,
                            password_given=submission.password_given, touched=[submission.id, message.id])
        return {"ok": True, "message": "Thank you. Your mailbox has been verified."}

    @router.post("/unsubscribe", status_code=201)
    @hook_point("unsubscribe", "write", target=lambda kw: kw["body"].link_id)
    async def unsubscribe(body: UnsubscribeBody, request: Request, episode: MailEpisode) -> dict[str, Any]:
        state = episode.state
        found = state.link(body.link_id)
        if found is None or found[1].kind != "unsubscribe":
            raise HTTPException(404, "This unsubscribe link is no longer valid.")
        message = found[0]
        existing = next((u for u in state.unsubscriptions if u.sender_email == message.from_email), None)
        if existing is not None:
            return {"unsubscription": existing.model_dump(), "already": True}
        record = Unsubscription(id=state.take_id("unsubscription", "u"), message_id=message.id,
                                sender_email=message.from_email, unsubscribed_at=episode.clock.stamp())
        state.unsubscriptions.append(record)
        episode.emit.commit("unsubscribe", message.id, sender_email=message.from_email,
                            touched=[record.id, message.id])
        return {"unsubscription": record.model_dump(), "already": False}

    return router

"""Server-rendered pages of the webmail. Pages only read, with two exceptions a webmail has:
opening a message marks its conversation read (a read side effect, no clock step), and
following a link in a message records the click (`link_clicks`, one clock step), like a
redirecting link tracker. Every other write goes through the JSON API (`api.py`)."""

import re
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup, escape

from scenarios.clock import parse_iso
from sites.kit.dates import WEEKDAY_ABBREVIATIONS, day_month_year, day_month_year_unless_current
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point, results_point
from sites.kit.lookup import get_or_404
from sites.kit.notices import notice_of
from sites.kit.paging import Listing, page_number
from sites.kit.templating import Pages
from sites.mail.models import (
    FOLDERS,
    PAGE_SIZES,
    Folder,
    LinkClick,
    MailEpisode,
    MailState,
    Message,
)
from sites.mail.query import QueryError, filter_matches, parse, search

FOLDER_NAMES: dict[str, str] = {"inbox": "Inbox", "sent": "Sent", "drafts": "Drafts", "archive": "Archive",
                                "spam": "Spam", "trash": "Trash", "scheduled": "Scheduled", "snoozed": "Snoozed"}
_QUOTE_HEADER = re.compile(r"^On .+ wrote:$")

# Flash messages a page shows after a script reloads it (`?notice=`); unknown keys are ignored.
NOTICES = {
    "sent": "Message sent",
    "draft_saved": "Draft saved",
    "draft_discarded": "Draft discarded",
    "archived": "Archived",
    "trashed": "Moved to Trash",
    "spammed": "Marked as spam",
    "unspammed": "Moved to Inbox",
    "moved": "Moved",
    "deleted": "Deleted forever",
    "marked": "Updated",
    "labelled": "Labels updated",
    "settings_saved": "Settings saved",
    "vacation_saved": "Vacation responder saved",
    "filter_created": "Filter created",
    "filter_deleted": "Filter deleted",
    "label_created": "Label created",
    "label_deleted": "Label deleted",
    "contact_added": "Contact added",
    "contact_deleted": "Contact deleted",
    "scheduled": "Message scheduled",
    "snoozed": "Snoozed",
}


# ---- formatting --------------------------------------------------------------------------------


def short_date(stamp: str, now: datetime) -> str:
    """The list's date column: '09:14' today, '14 Mar' this year, '14 Mar 2024' before."""
    moment = parse_iso(stamp)
    if moment.date() == now.date():
        return f"{moment:%H:%M}"
    return day_month_year_unless_current(moment, now)


def full_date(stamp: str) -> str:
    moment = parse_iso(stamp)
    return f"{WEEKDAY_ABBREVIATIONS[moment.weekday()]}, {day_month_year(moment)}, {moment:%H:%M}"


def scheduled_text(when: str) -> str:
    """'Wed, 26 Mar 2025, 09:00': a scheduled message's send time (YYYY-MM-DDTHH:MM)."""
    return full_date(f"{when}:00Z")


def snooze_presets(now: datetime) -> list[tuple[str, str]]:
    """(label, YYYY-MM-DDTHH:MM) of the snooze menu's choices, from the episode clock's now: tomorrow, the coming
    Saturday and the coming Monday, each at 08:00."""
    today = now.date()
    tomorrow = today + timedelta(days=1)
    saturday = today + timedelta(days=(5 - today.weekday()) % 7 or 7)
    monday = today + timedelta(days=(7 - today.weekday()) % 7 or 7)
    out = []
    for label, day in (("Tomorrow", tomorrow), ("This weekend", saturday), ("Next week", monday)):
        out.append((f"{label} ({WEEKDAY_ABBREVIATIONS[day.weekday()]} 08:00)", f"{day.isoformat()}T08:00"))
    return out


def file_size(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    return f"{max(1, round(size / 1000))} KB"


def fresh_text(body: str) -> str:
    """The part of a body written for this message (without the quoted reply and the signature)."""
    lines = []
    for line in body.splitlines():
        if _QUOTE_HEADER.match(line) or line.startswith(">") or line == "--" or line.startswith("----------"):
            break
        lines.append(line)
    return "\n".join(lines)


def snippet(message: Message, limit: int = 110) -> str:
    text = " ".join(fresh_text(message.body).split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def render_body(message: Message) -> Markup:
    """The plain-text body, escaped; the message's own links become links through the click tracker;
    quoted lines are marked so the stylesheet can tone them down."""
    links = sorted(message.links, key=lambda link: -len(link.url))
    out: list[str] = []
    for line in message.body.split("\n"):
        pieces: list[str] = [str(escape(line))]
        for link in links:
            url = str(escape(link.url))
            anchor = f'<a href="/link/{escape(link.id)}" class="body-link">{url}</a>'
            pieces = [p if p.startswith('<a href="/link/') else anchor.join(p.split(url)) for p in pieces]
            pieces = [part for p in pieces for part in _split_anchors(p)]
        html = "".join(pieces)
        if line.startswith(">") or _QUOTE_HEADER.match(line):
            html = f'<span class="quoted">{html}</span>'
        out.append(html)
    return Markup("\n".join(out))


def _split_anchors(html: str) -> list[str]:
    """Split rendered html into text and finished anchors so a later link never rewrites an earlier one."""
    parts = re.split(r'(<a href="/link/[^"]+" class="body-link">.*?</a>)', html)
    return [p for p in parts if p]


def mail_filters() -> dict[str, Any]:
    return {"full_date": full_date, "file_size": file_size, "render_body": render_body,
            "scheduled_text": scheduled_text}


# ---- shared context ------------------------------------------------------------------------------

def page_context(state: MailState | None) -> dict[str, Any]:
    """The header and the folder rail: counts, labels, the user."""
    if state is None:
        return {"query": "", "active": None, "user": None, "labels": [], "counts": {}, "density": "comfortable",
                "folder_names": FOLDER_NAMES, "scheduling": False}
    counts = {
        "inbox": state.unread_count("inbox"),
        "drafts": sum(1 for m in state.messages if m.folder == "drafts"),
        "spam": state.unread_count("spam"),
    }
    if state.scheduling:
        counts["scheduled"] = sum(1 for m in state.messages if m.folder == "scheduled")
        counts["snoozed"] = sum(1 for m in state.messages if m.folder == "snoozed")
    return {"query": "", "active": None, "user": state.user, "labels": state.labels, "counts": counts,
            "density": state.settings.density, "folder_names": FOLDER_NAMES, "scheduling": bool(state.scheduling)}




def _display_name(state: MailState, email: str) -> str:
    if email == state.user.email:
        return "me"
    contact = state.contact_by_email(email)
    return contact.name if contact is not None else email


def _row(state: MailState, message: Message, now: datetime) -> dict[str, Any]:
    if message.folder in ("sent", "drafts", "scheduled"):
        names = [_display_name(state, e) for e in message.to + message.cc] or ["(no recipients)"]
        who = "To: " + ", ".join(names)
    else:
        who = message.from_name or message.from_email
    labels = [lb for lb in state.labels if lb.id in message.labels]
    return {
        "m": message, "who": who, "subject": message.subject or "(no subject)", "snippet": snippet(message),
        "date": f"Sends {scheduled_text(message.scheduled_for)}" if message.scheduled_for is not None
        else f"Until {scheduled_text(message.snoozed_until)}" if message.snoozed_until is not None
        else short_date(message.sent_at, now),
        "when": full_date(message.sent_at), "labels": labels,
        "href": f"/compose?draft={message.id}" if message.folder == "drafts" else f"/message/{message.id}",
        "draft": message.folder == "drafts",
    }


def _pager_url(path: str, request: Request, page: int) -> str:
    params = {k: v for k, v in request.query_params.items() if k not in ("page", "notice")}
    if page > 1:
        params["page"] = str(page)
    query = urlencode(params)
    return path + (f"?{query}" if query else "")


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def list_page(episode: SiteEpisode, request: Request, messages: list[Message], *, heading: str, active: str,
                  folder: Folder | None, what: str, **extra: Any) -> tuple[Listing, HTMLResponse]:
        state = episode.state
        page = page_number(request.query_params.get("page"))
        listing = Listing(messages, page, state.settings.page_size,
                          lambda page, pages: f"There is no page {page}; {what} has {pages}.")
        now = episode.clock.now().replace(tzinfo=None)
        rows = [_row(state, m, now) for m in listing.shown]
        # Row controls are named after the row; the date tells apart rows that would share a name.
        names = [f"{r['who']}: {r['subject']}" for r in rows]
        for row, name in zip(rows, names, strict=True):
            row["name"] = name if names.count(name) == 1 else f"{name} ({row['when']})"
        html = ui.render(
            episode, "list.html", title=heading, heading=heading, active=active, folder=folder, rows=rows,
            listing=listing, notice=notice_of(request, NOTICES),
            newer_url=_pager_url(request.url.path, request, listing.page - 1) if listing.page > 1 else None,
            older_url=_pager_url(request.url.path, request, listing.page + 1) if listing.page < listing.pages
            else None,
            move_targets=[f for f in ("inbox", "archive", "spam", "trash") if f != folder],
            **extra,
        )
        return listing, html

    async def show_folder(name: str, request: Request, episode: SiteEpisode) -> HTMLResponse:
        state = episode.state
        folder = next((f for f in FOLDERS if f == name), None)
        if folder is None:
            raise HTTPException(404, f"There is no folder called “{name}”.")
        messages = results_point(episode, "folder", state.in_folder(folder), state.messages)
        listing, html = list_page(episode, request, messages, heading=FOLDER_NAMES[folder], active=folder,
                                  folder=folder, what=f"{FOLDER_NAMES[folder]}")
        episode.emit.navigate("view_folder", folder, folder=folder, page=listing.page,
                              message_ids=[m.id for m in listing.shown], total=listing.total)
        return html

    @router.get("/", response_class=HTMLResponse)
    @hook_point("inbox", "page")
    async def inbox(request: Request, episode: MailEpisode) -> HTMLResponse:
        return await show_folder("inbox", request, episode)

    @router.get("/folder/{name}", response_class=HTMLResponse)
    @hook_point("folder", "page", target=lambda kw: kw["name"])
    async def folder_page(name: str, request: Request, episode: MailEpisode) -> HTMLResponse:
        return await show_folder(name, request, episode)

    @router.get("/starred", response_class=HTMLResponse)
    @hook_point("starred", "page")
    async def starred(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        messages = [m for m in state.newest_first() if m.starred and m.folder not in ("spam", "trash")]
        messages = results_point(episode, "starred", messages, state.messages)
        listing, html = list_page(episode, request, messages, heading="Starred", active="starred", folder=None,
                                  what="Starred")
        episode.emit.filter("view_starred", None, starred=True, page=listing.page,
                            message_ids=[m.id for m in listing.shown], total=listing.total)
        return html

    @router.get("/label/{label_id}", response_class=HTMLResponse)
    @hook_point("label", "page", target=lambda kw: kw["label_id"])
    async def label_page(label_id: str, request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        label = get_or_404(state.labels, label_id, detail="There is no such label. It may have been deleted.")
        messages = [m for m in state.newest_first() if label.id in m.labels and m.folder not in ("spam", "trash")]
        messages = results_point(episode, "label", messages, state.messages)
        listing, html = list_page(episode, request, messages, heading=label.name, active=f"label:{label.id}",
                                  folder=None, what=f"the label {label.name}", label=label)
        episode.emit.filter("view_label", label.id, label_id=label.id, page=listing.page,
                            message_ids=[m.id for m in listing.shown], total=listing.total)
        return html

    @router.get("/search", response_class=HTMLResponse,
                responses={303: {"description": "An empty query goes back to the home page"}})
    @hook_point("search", "page")
    async def search_page(request: Request, episode: MailEpisode) -> Response:
        state = episode.state
        raw = request.query_params.get("q", "")
        if not raw.strip():
            return RedirectResponse("/", status_code=303)
        try:
            query = parse(raw)
        except QueryError as exc:
            raise HTTPException(400, str(exc)) from None
        found = results_point(episode, "search", search(state, query), state.messages)
        listing, html = list_page(episode, request, found, heading=f"Search results for “{query.text}”",
                                  active="search", folder=None, what="this search", query=query.text)
        episode.emit.search("search", query=query.text, results=[m.id for m in listing.shown],
                            operators=query.operators(), total=listing.total,
                            **({"page": listing.page} if listing.page > 1 else {}))
        return html

    @router.get("/message/{message_id}", response_class=HTMLResponse)
    @hook_point("message", "page", target=lambda kw: kw["message_id"])
    async def message_page(message_id: str, request: Request, episode: MailEpisode) -> Response:
        state = episode.state
        message = get_or_404(state.messages, message_id,
                             detail="That message doesn't exist. It may have been deleted forever.")
        if message.folder == "drafts":
            return RedirectResponse(f"/compose?draft={message.id}", status_code=303)
        thread = state.thread(message.thread_id)
        for other in thread:
            if other.folder != "drafts":
                other.read = True   # opening a conversation reads it (a read side effect)
        now = episode.clock.now().replace(tzinfo=None)
        entries = []
        for other in thread:
            entries.append({
                "m": other, "focused": other.id == message.id, "draft": other.folder == "drafts",
                "to_names": [_display_name(state, e) for e in other.to],
                "cc_names": [_display_name(state, e) for e in other.cc],
                "date": short_date(other.sent_at, now),
                "unsubscribe": next((lk for lk in other.links if lk.kind == "unsubscribe"), None),
                "buttons": [lk for lk in other.links if lk.kind != "unsubscribe" and lk.text != lk.url],
                "known_sender": other.folder not in ("sent", "drafts")
                and state.contact_by_email(other.from_email) is not None,
            })
        message_labels = [lb for lb in state.labels if lb.id in message.labels]
        episode.emit.inspect("view_message", message.id,
                             revealed=["from_email", "to", "cc", "sent_at", "body", "attachments", "links"],
                             thread_id=message.thread_id, message_ids=[m.id for m in thread])
        return ui.render(
            episode, "message.html", title=message.subject or "(no subject)", message=message, entries=entries,
            message_labels=message_labels, active=message.folder, notice=notice_of(request, NOTICES),
            back_url="/" if message.folder == "inbox" else f"/folder/{message.folder}",
            downloads=[i for i, a in enumerate(message.attachments) if a.document is not None],
            snooze=snooze_presets(episode.clock.now()) if state.scheduling and message.folder in (
                "inbox", "archive", "snoozed") else [],
            back_name=FOLDER_NAMES[message.folder],
            move_targets=[f for f in ("inbox", "archive", "spam", "trash") if f != message.folder],
        )

    @router.get("/compose", response_class=HTMLResponse)
    @hook_point("compose", "page")
    async def compose(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        params = request.query_params
        modes = [k for k in ("reply", "reply_all", "forward", "draft") if params.get(k)]
        if len(modes) > 1:
            raise HTTPException(400, "Open one message at a time: reply, reply all, forward or a draft.")
        mode = modes[0] if modes else "new"
        form = compose_form(state, mode, params.get(mode) if modes else None, params.get("to", ""))
        episode.emit.navigate("view_compose", form["source_id"], mode=mode)
        contacts = [{"name": c.name, "email": c.email} for c in state.contacts]
        return ui.render(episode, "compose.html", title=form["heading"], form=form, contacts=contacts,
                         active="compose", attach=state.uploads is not None, scheduling=bool(state.scheduling),
                         today=episode.clock.now().date().isoformat())

    @router.get("/message/{message_id}/attachments/{index}", response_class=HTMLResponse)
    @hook_point("download_attachment", "page", target=lambda kw: kw["message_id"])
    async def download_attachment(message_id: str, index: int, request: Request, episode: MailEpisode) -> Response:
        state = episode.state
        message = get_or_404(state.messages, message_id,
                             detail="That message doesn't exist. It may have been deleted forever.")
        if not 0 <= index < len(message.attachments) or message.attachments[index].document is None:
            raise HTTPException(404, "That attachment can't be downloaded.")
        attachment = message.attachments[index]
        episode.emit.inspect("download_attachment", message.id, revealed=["attachment"], index=index,
                             file_name=attachment.name)
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", attachment.name)
        # a file to keep: the browser saves it rather than showing it
        return HTMLResponse(attachment.document or "",
                            headers={"Content-Disposition": f'attachment; filename="{safe}"'})

    @router.get("/contacts", response_class=HTMLResponse)
    @hook_point("contacts", "page")
    async def contacts(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        needle = request.query_params.get("q", "").strip()
        shown = [c for c in state.contacts
                 if not needle or needle.casefold() in f"{c.name} {c.email} {c.company}".casefold()]
        if needle:
            episode.emit.search("search_contacts", query=needle, results=[c.id for c in shown])
        else:
            episode.emit.navigate("view_contacts", None, results=[c.id for c in shown])
        return ui.render(episode, "contacts.html", title="Contacts", contacts=shown, contact_query=needle,
                         active="contacts", notice=notice_of(request, NOTICES))

    @router.get("/settings", response_class=HTMLResponse)
    @hook_point("settings", "page")
    async def settings(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_settings", None, section="general")
        return ui.render(episode, "settings_general.html", title="Settings", section="general",
                         settings=state.settings, page_sizes=PAGE_SIZES, active="settings",
                         notice=notice_of(request, NOTICES))

    @router.get("/settings/vacation", response_class=HTMLResponse)
    @hook_point("settings_vacation", "page")
    async def settings_vacation(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_settings", None, section="vacation")
        return ui.render(episode, "settings_vacation.html", title="Vacation responder", section="vacation",
                         vacation=state.vacation, active="settings", notice=notice_of(request, NOTICES),
                         today=episode.clock.now().date().isoformat())

    @router.get("/settings/filters", response_class=HTMLResponse)
    @hook_point("settings_filters", "page")
    async def settings_filters(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_settings", None, section="filters", filter_ids=[f.id for f in state.filters])
        prefill = {key: request.query_params.get(key, "")[:200]
                   for key in ("from_address", "to_address", "subject", "has_words")}
        rows = []
        for f in state.filters:
            matching = sum(1 for m in state.messages if m.folder not in ("sent", "drafts")
                           and filter_matches(f.criteria, m))
            label = state.label(f.actions.apply_label) if f.actions.apply_label else None
            rows.append({"f": f, "criteria": _criteria_text(f.criteria), "actions": _actions_text(f.actions, label),
                         "matching": matching})
        return ui.render(episode, "settings_filters.html", title="Filters", section="filters", rows=rows,
                         prefill=prefill, active="settings", notice=notice_of(request, NOTICES))

    @router.get("/settings/labels", response_class=HTMLResponse)
    @hook_point("settings_labels", "page")
    async def settings_labels(request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_settings", None, section="labels")
        rows = [{"label": lb, "count": sum(1 for m in state.messages if lb.id in m.labels),
                 "filters": [f.id for f in state.filters if f.actions.apply_label == lb.id]} for lb in state.labels]
        return ui.render(episode, "settings_labels.html", title="Labels", section="labels", rows=rows,
                         active="settings", notice=notice_of(request, NOTICES), colors=LABEL_COLORS)

    @router.get("/link/{link_id}", response_class=HTMLResponse)
    @hook_point("follow_link", "page", target=lambda kw: kw["link_id"])
    async def follow_link(link_id: str, request: Request, episode: MailEpisode) -> HTMLResponse:
        state = episode.state
        found = state.link(link_id)
        if found is None:
            raise HTTPException(404, "That link is no longer available.")
        message, link = found
        clicked_at = episode.clock.stamp()
        click = LinkClick(id=state.take_id("link_click", "lc"), message_id=message.id, link_id=link.id,
                          url=link.url, clicked_at=clicked_at)
        state.link_clicks.append(click)
        episode.emit.commit("follow_link", message.id, link_id=link.id, kind=link.kind, url=link.url,
                            touched=[click.id, message.id])
        host = link.url.split("://", 1)[-1].split("/", 1)[0]
        template = {"web": "link_leaving.html", "unsubscribe": "link_unsubscribe.html",
                    "credential_prompt": "link_verify.html"}[link.kind]
        # the mail server unsubscribes a sender, whichever of its messages the link was in
        already = any(u.sender_email == message.from_email for u in state.unsubscriptions)
        return ui.render(episode, template, title=host, link=link, message=message, host=host,
                         already_unsubscribed=already, account_email=state.user.email)

    return router


LABEL_COLORS = (("#1a73e8", "Blue"), ("#188038", "Green"), ("#e37400", "Orange"), ("#a142f4", "Purple"),
                ("#d93025", "Red"), ("#5f6368", "Grey"), ("#007b83", "Teal"), ("#b80672", "Pink"))


def _criteria_text(criteria: Any) -> str:
    parts = []
    if criteria.from_address:
        parts.append(f"from:({criteria.from_address})")
    if criteria.to_address:
        parts.append(f"to:({criteria.to_address})")
    if criteria.subject:
        parts.append(f"subject:({criteria.subject})")
    if criteria.has_words:
        parts.append(criteria.has_words)
    if criteria.has_attachment:
        parts.append("has:attachment")
    return " ".join(parts)


def _actions_text(actions: Any, label: Any) -> str:
    parts = []
    if actions.skip_inbox:
        parts.append("Skip the inbox")
    if actions.mark_read:
        parts.append("Mark as read")
    if actions.star:
        parts.append("Star it")
    if label is not None:
        parts.append(f"Apply label “{label.name}”")
    if actions.delete:
        parts.append("Delete it")
    return ", ".join(parts)


# ---- compose -------------------------------------------------------------------------------------

def _prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix}{subject}"


def compose_form(state: MailState, mode: str, source_id: str | None, to: str) -> dict[str, Any]:
    """The fields the compose page starts with."""
    me = state.user.email
    signature = state.settings.signature
    sign = f"\n\n--\n{signature}" if signature.strip() else ""
    form: dict[str, Any] = {
        "mode": mode, "source_id": None, "draft_id": None, "in_reply_to": None, "forwarded_from": None,
        "to": [], "cc": [], "bcc": [], "subject": "", "body": sign, "attachments": [], "uploaded": [],
        "heading": "New message",
    }
    if to:
        form["to"] = [part.strip() for part in to.split(",") if part.strip()][:50]
    if mode == "new":
        return form
    source = get_or_404(state.messages, source_id or "", detail="The message you wanted to answer no longer exists.")
    form["source_id"] = source.id
    quote_head = f"On {full_date(source.sent_at)}, {source.from_name} <{source.from_email}> wrote:"
    quoted = "\n".join(f"> {line}" if line else ">" for line in fresh_text(source.body).splitlines())
    if mode == "draft":
        if source.folder != "drafts":
            raise HTTPException(404, "That draft has been sent or discarded.")
        form.update(draft_id=source.id, in_reply_to=source.in_reply_to, forwarded_from=source.forwarded_from,
                    to=list(source.to), cc=list(source.cc), bcc=list(source.bcc), subject=source.subject,
                    body=source.body, attachments=[a for a in source.attachments if a.upload is None],
                    uploaded=[a for a in source.attachments if a.upload is not None], heading="Draft")
    elif mode in ("reply", "reply_all"):
        mine = source.from_email == me
        first = list(source.to) if mine else [source.from_email]
        cc: list[str] = []
        if mode == "reply_all":
            others = [e for e in source.to if e != me and e not in first]
            first += others
            cc = [e for e in source.cc if e != me and e not in first]
        form.update(in_reply_to=source.id, to=first, cc=cc, subject=_prefixed("Re: ", source.subject),
                    body=f"{sign}\n\n{quote_head}\n{quoted}", heading="Reply" if mode == "reply" else "Reply all")
    elif mode == "forward":
        header = (f"---------- Forwarded message ---------\nFrom: {source.from_name} <{source.from_email}>\n"
                  f"Date: {full_date(source.sent_at)}\nSubject: {source.subject}\nTo: {', '.join(source.to)}\n\n")
        form.update(forwarded_from=source.id, subject=_prefixed("Fwd: ", source.subject),
                    body=f"{sign}\n\n{header}{source.body}", attachments=list(source.attachments), heading="Forward")
    return form

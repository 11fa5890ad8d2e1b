"""The later features and families (setup param `extras`): what a world with them plants and binds, that a
world without them keeps every byte and answers 404 for their API, the statement's virus check and download,
files attached while writing, scheduled send, and the traps the later tasks read (4xx, never 500)."""

import base64
import json
import re
from typing import Any

import pytest

from harness.catalog.a11y_html import Page
from sites.mail.models import MailState
from sites.mail.world.text import money

from . import client_for, new_world

CSV = base64.b64encode(b"date,merchant,amount\n2025-02-03,Officeworks,44.92\n").decode()


def state_of(episode: Any) -> MailState:
    assert isinstance(episode.state, MailState)
    return episode.state


async def get(app: Any, episode: Any, path: str, status: int = 200) -> Any:
    async with client_for(app, episode.id) as client:
        response = await client.get(path)
    assert response.status_code == status, (path, response.status_code, response.text[:300])
    return response


async def send(app: Any, episode: Any, method: str, path: str, body: Any = None) -> Any:
    async with client_for(app, episode.id) as client:
        return await client.request(method, path, json=body)


def only(items: list[Any]) -> Any:
    assert len(items) == 1, items
    return items[0]


# --- the param ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_without_extras_the_world_is_unchanged_and_with_them_only_grows(seed: int) -> None:
    _, _, plain = new_world(seed=seed)
    _, _, off = new_world(seed=seed, extras=False)
    _, _, on = new_world(seed=seed, extras=True)
    assert plain.initial_state == off.initial_state and plain.bindings == off.bindings
    raw = json.loads(plain.initial_state)
    assert "uploads" not in raw and "scheduling" not in raw and "extras" not in plain.bindings
    assert not any("scheduled_for" in m or any("document" in a or "upload" in a for a in m["attachments"])
                   for m in raw["messages"])
    before, after = state_of(plain), state_of(on)
    kept = {m.id: m for m in after.messages}
    assert all(kept[m.id] == m for m in before.messages), "extras add messages, they change none"
    assert after.uploads == [] and after.scheduling is True
    added = on.bindings["extras"]["bad_filter"]["filter_id"]
    assert [f.id for f in after.filters] == [f.id for f in before.filters] + [added]
    assert {k: v for k, v in on.bindings.items() if k != "extras"} == {k: v for k, v in plain.bindings.items()}


def test_the_same_seed_gives_the_same_extras() -> None:
    _, _, one = new_world(seed=5, extras=True)
    _, _, again = new_world(seed=5, extras=True)
    _, _, other = new_world(seed=6, extras=True)
    assert one.initial_state == again.initial_state and one.bindings == again.bindings
    assert one.bindings["extras"] != other.bindings["extras"]


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_extras_must_be_true_or_false(bad: object) -> None:
    with pytest.raises(ValueError, match="extras must be true or false"):
        new_world(extras=bad)


async def test_a_world_without_the_features_answers_404_and_shows_no_controls() -> None:
    app, _, episode = new_world(seed=3)
    upload = await send(app, episode, "POST", "/api/uploads",
                        {"name": "a.csv", "content_type": "text/csv", "data": CSV})
    assert upload.status_code == 404
    to = state_of(episode).user.email
    schedule = await send(app, episode, "POST", "/api/messages/schedule",
                          {"to": [to], "subject": "x", "body": "y", "send_on": "2099-01-01", "send_at": "08:00"})
    assert schedule.status_code == 404
    attached = await send(app, episode, "POST", "/api/messages/send", {"to": [to], "attachments": ["up1"]})
    assert attached.status_code == 404
    page = Page((await get(app, episode, "/compose")).text)
    assert not page.find("button", "Attach files") and not page.find("button", "Schedule send")
    assert not page.find("link", "Scheduled")


# --- the statement: checked, then downloaded ----------------------------------------------------------------

async def test_the_statement_is_checked_then_downloads_as_a_file_stating_its_total() -> None:
    app, _, episode = new_world(seed=2, extras=True)
    statement = episode.bindings["extras"]["statement"]
    message = state_of(episode).message(statement["id"])
    assert message is not None and message.folder == "inbox"
    total = money(statement["total_cents"])
    opened = await get(app, episode, f"/message/{message.id}")
    page = Page(opened.text)
    assert page.loading() and not page.find("link", f"Download {statement['file']}")
    assert "Checking for viruses…" in page.text()
    assert total not in opened.text, "the total is only in the file"
    scan = (await get(app, episode, f"/api/messages/{message.id}/attachments/0/scan")).json()
    assert scan == {"clean": True, "download": f"/message/{message.id}/attachments/0"}
    download = await get(app, episode, scan["download"])
    assert download.headers["content-disposition"] == f'attachment; filename="{statement["file"]}"'
    assert only(Page(download.text).find("group", "Total due")).text() == f"Total due: {total}"
    older = state_of(episode).message(statement["older_id"])
    assert older is not None and older.folder == "archive"
    assert money(statement["older_total_cents"]) in (await get(app, episode, f"/message/{older.id}/attachments/0")).text
    # attachments without a document (an invoice PDF), an index out of range, a message that does not exist
    pdf = next(m for m in state_of(episode).messages if m.attachments and m.attachments[0].document is None)
    await get(app, episode, f"/message/{pdf.id}/attachments/0", status=404)
    await get(app, episode, f"/api/messages/{pdf.id}/attachments/0/scan", status=404)
    await get(app, episode, f"/message/{message.id}/attachments/7", status=404)
    await get(app, episode, f"/message/{message.id}/attachments/-1", status=404)
    await get(app, episode, f"/message/{message.id}/attachments/x", status=400)
    await get(app, episode, "/message/m9999/attachments/0", status=404)


# --- files attached while writing ---------------------------------------------------------------------------

async def test_a_file_attached_while_writing_goes_with_the_reply() -> None:
    app, _, episode = new_world(seed=2, extras=True)
    expenses = episode.bindings["extras"]["expenses"]
    form = Page((await get(app, episode, f"/compose?reply={expenses['request_id']}")).text)
    assert only(form.find("button", "Attach files"))
    data = base64.b64encode(expenses["file_text"].encode()).decode()
    made = await send(app, episode, "POST", "/api/uploads",
                      {"name": expenses["file"], "content_type": "text/csv", "data": data})
    assert made.status_code == 201, made.text
    upload = made.json()["upload"]
    assert upload["name"] == expenses["file"] and upload["size_bytes"] == len(expenses["file_text"].encode())
    sent = await send(app, episode, "POST", "/api/messages/send", {
        "to": [expenses["from_email"]], "cc": [expenses["manager"]["email"]], "subject": "Re: x", "body": "Attached",
        "in_reply_to": expenses["request_id"], "attachments": [upload["id"]]})
    assert sent.status_code == 201, sent.text
    [attachment] = sent.json()["message"]["attachments"]
    assert attachment == {"name": expenses["file"], "size_bytes": upload["size_bytes"], "content_type": "text/csv",
                          "upload": upload["id"]}
    unknown = await send(app, episode, "POST", "/api/messages/send",
                         {"to": [expenses["from_email"]], "attachments": ["up99"]})
    assert unknown.status_code == 404


async def test_a_draft_keeps_its_uploaded_files_until_they_are_removed() -> None:
    app, _, episode = new_world(seed=4, extras=True)
    me = state_of(episode).user.email
    upload = (await send(app, episode, "POST", "/api/uploads", {"name": "a.csv", "content_type": "text/csv",
                                                                 "data": CSV})).json()["upload"]
    draft = (await send(app, episode, "POST", "/api/drafts", {"to": [me], "attachments": [upload["id"]]})).json()
    draft_id = draft["message"]["id"]
    form = Page((await get(app, episode, f"/compose?draft={draft_id}")).text)
    assert only(form.find("button", "Remove a.csv"))
    cleared = await send(app, episode, "PUT", f"/api/drafts/{draft_id}", {"to": [me], "attachments": []})
    assert cleared.status_code == 200 and cleared.json()["message"]["attachments"] == []


@pytest.mark.parametrize("body", [
    {"name": "a.csv", "content_type": "text/csv", "data": "not base64!"},
    {"name": "a.csv", "content_type": "text/csv", "data": ""},
    {"name": "", "content_type": "text/csv", "data": CSV},
    {"name": "../a.csv", "content_type": "text/csv", "data": CSV},
    {"name": "a.csv", "content_type": "not a type", "data": CSV},
    {"name": "big.csv", "content_type": "text/csv", "data": base64.b64encode(bytes(600 * 1024)).decode()},
])
async def test_uploads_refuse_what_is_not_a_file_with_a_4xx(body: dict[str, str]) -> None:
    app, _, episode = new_world(seed=2, extras=True)
    response = await send(app, episode, "POST", "/api/uploads", body)
    assert 400 <= response.status_code < 500, response.text
    assert state_of(episode).uploads == []


# --- scheduled send -------------------------------------------------------------------------------------------

async def test_a_scheduled_message_waits_in_its_folder_with_its_time() -> None:
    app, _, episode = new_world(seed=3, extras=True)
    wanted = episode.bindings["extras"]["schedule"]
    sent_before = sum(1 for m in state_of(episode).messages if m.folder == "sent")
    body = {"to": [wanted["to_email"]], "subject": wanted["subject"], "body": wanted["body"],
            "send_on": wanted["send_on"], "send_at": wanted["send_at"]}
    made = await send(app, episode, "POST", "/api/messages/schedule", body)
    assert made.status_code == 201, made.text
    message = made.json()["message"]
    assert message["folder"] == "scheduled" and message["scheduled_for"] == f"{wanted['send_on']}T{wanted['send_at']}"
    assert sum(1 for m in state_of(episode).messages if m.folder == "sent") == sent_before
    listed = Page((await get(app, episode, "/folder/scheduled?notice=scheduled")).text)
    assert listed.find("status", "Message scheduled") or "Message scheduled" in listed.text()
    assert only(listed.find("link", "/Welcome to the team/"))
    assert re.search(r"Sends \w{3}, \d{1,2} \w{3}", listed.text())
    moved = await send(app, episode, "POST", "/api/messages/archive", {"ids": [message["id"]]})
    assert moved.status_code == 409
    shown = await get(app, episode, f"/message/{message['id']}")
    assert "Scheduled" in shown.text


@pytest.mark.parametrize("change", [{"send_on": "2001-01-01"}, {"send_on": "2025-02-30"}, {"send_at": "25:00"},
                                    {"send_at": "8am"}, {"to": []}])
async def test_scheduling_refuses_a_past_or_malformed_time_with_a_4xx(change: dict[str, Any]) -> None:
    app, _, episode = new_world(seed=3, extras=True)
    wanted = episode.bindings["extras"]["schedule"]
    body = {"to": [wanted["to_email"]], "subject": "s", "body": "b", "send_on": wanted["send_on"],
            "send_at": wanted["send_at"], **change}
    count = len(state_of(episode).messages)
    response = await send(app, episode, "POST", "/api/messages/schedule", body)
    assert response.status_code == 422, response.text
    assert len(state_of(episode).messages) == count


# --- what the later families read ------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_traps_are_where_the_tasks_expect_them(seed: int) -> None:
    _, _, episode = new_world(seed=seed, extras=True, facts=False)
    state, extras = state_of(episode), episode.bindings["extras"]
    folder = {m.id: m.folder for m in state.messages}
    restore = extras["restore"]
    assert folder[restore["id"]] == folder[restore["other_id"]] == "trash"
    assert f"at {restore['time']}" in (state.message(restore["id"]) or state.messages[0]).body
    spam = extras["spam"]
    assert folder[spam["id"]] == "spam" and folder[spam["old_id"]] == "inbox" and spam["time"] != spam["old_time"]
    bad = extras["bad_filter"]
    assert all(folder[i] == "archive" for i in bad["person_ids"] + bad["news_ids"])
    assert only([f for f in state.filters if f.id == bad["filter_id"]]).criteria.from_address == f"@{bad['domain']}"
    project = extras["project"]
    assert all(folder[i] == "inbox" for i in project["agency_ids"] + project["stray_ids"])
    assert all(project["phrase"] in (state.message(i) or state.messages[0]).subject
               for i in project["agency_ids"] + project["stray_ids"])
    assert project["count"] == len(project["agency_ids"]) + len(project["stray_ids"])
    room = extras["room"]
    first, update = state.message(room["first_id"]), state.message(room["update_id"])
    assert first is not None and update is not None and first.thread_id == update.thread_id
    assert room["old_room"] in first.body and f"moves to {room['room']}. Same time" in update.body
    assert folder[extras["recall"]["id"]] == "sent"
    trip = extras["trip"]
    assert trip["registration"] in (state.message(trip["registration_id"]) or state.messages[0]).body
    assert not state.label_named(project["label"]), "the project's label is for the user to create"
    signature = extras["signature"]
    assert signature["old_title"] in state.settings.signature and signature["new_title"] in signature["new_signature"]
    assert signature["new_signature"].splitlines()[0::2] == state.settings.signature.splitlines()[0::2]
    newcomer = extras["new_contact"]
    assert state.contact_by_email(newcomer["email"]) is None
    assert newcomer["company"] in (state.message(newcomer["id"]) or state.messages[0]).body
    contract = state.message(extras["no_attachment"]["id"])
    assert contract is not None and "attached" in contract.body and contract.attachments == []
    unsubscribe = extras["unsubscribe"]
    newest = state.message(unsubscribe["message_id"])
    assert newest is not None and newest.from_email == episode.bindings["newsletter"]["sender"]["email"]
    assert any(k.id == unsubscribe["link_id"] and k.kind == "unsubscribe" for k in newest.links)


# --- snooze ------------------------------------------------------------------------------------------------------

async def test_a_snoozed_message_leaves_the_inbox_until_its_time() -> None:
    app, _, episode = new_world(seed=2, extras=True)
    wanted = episode.bindings["extras"]["snooze"]
    opened = (await get(app, episode, f"/message/{wanted['id']}")).text
    assert only(Page(opened).find("button", "Snooze"))
    # the menu's choices (shown when Snooze is pressed): tomorrow, the coming Saturday and Monday, at 08:00
    choices = re.findall(r'data-snooze="([^"]+)">([^<]+)</button>', opened)
    assert [label.split(" (")[0] for _, label in choices] == ["Tomorrow", "This weekend", "Next week"]
    assert choices[-1] == (wanted["until"], "Next week (Mon 08:00)")
    made = await send(app, episode, "POST", "/api/messages/snooze", {"ids": [wanted["id"]], "until": wanted["until"]})
    assert made.status_code == 200, made.text
    message = state_of(episode).message(wanted["id"])
    assert message is not None and (message.folder, message.snoozed_until) == ("snoozed", wanted["until"])
    listed = Page((await get(app, episode, "/folder/snoozed")).text)
    assert only(listed.find("link", f"/{re.escape(wanted['subject'])}/")) and "Until Mon" in listed.text()
    back = await send(app, episode, "POST", "/api/messages/move", {"ids": [wanted["id"]], "folder": "inbox"})
    assert back.status_code == 200 and message.folder == "inbox" and message.snoozed_until is None


@pytest.mark.parametrize("until", ["2001-01-01T08:00", "2025-02-30T08:00", "tomorrow", "2099-01-01T24:00"])
async def test_snooze_refuses_a_past_or_malformed_time_with_a_4xx(until: str) -> None:
    app, _, episode = new_world(seed=2, extras=True)
    wanted = episode.bindings["extras"]["snooze"]
    response = await send(app, episode, "POST", "/api/messages/snooze", {"ids": [wanted["id"]], "until": until})
    assert response.status_code == 422, response.text
    message = state_of(episode).message(wanted["id"])
    assert message is not None and message.folder == "inbox"


async def test_only_inbox_or_archived_mail_can_be_snoozed() -> None:
    app, _, episode = new_world(seed=2, extras=True)
    sent = episode.bindings["extras"]["recall"]["id"]
    response = await send(app, episode, "POST", "/api/messages/snooze", {"ids": [sent], "until": "2099-01-01T08:00"})
    assert response.status_code == 409
    plain_app, _, plain = new_world(seed=2)
    inbox = next(m.id for m in state_of(plain).messages if m.folder == "inbox")
    assert (await send(plain_app, plain, "POST", "/api/messages/snooze",
                       {"ids": [inbox], "until": "2099-01-01T08:00"})).status_code == 404

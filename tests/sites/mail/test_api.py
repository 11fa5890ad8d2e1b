"""The JSON API: each task's write, clock steps, events, and 4xx (never 500, never a partial
write) for every malformed or impossible request."""

import json
from typing import Any

import pytest

from tests.sites.worlds import commits, outputs_under_two_hash_seeds, world_fixture

from . import client_for, new_world

STEP = 37  # seconds per state change (scenarios.clock.STEP)


world = world_fixture(new_world, seed=9)


def elapsed(episode: Any, since: Any) -> float:
    return float((episode.clock.now() - since).total_seconds())


# ---- the eight tasks' writes ------------------------------------------------------------------------

async def test_reply_to_the_person(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    person = episode.bindings["person"]
    parent = state.message(person["latest_id"])
    assert parent is not None
    count, start = len(state.messages), episode.clock.now()
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/messages/send", json={
            "to": [person["email"]], "subject": f"Re: {parent.subject}", "body": "Sounds good, thanks!",
            "in_reply_to": parent.id,
        })
    assert response.status_code == 201
    sent = response.json()["message"]
    assert sent["id"] == f"m{count + 1:04d}" and sent["folder"] == "sent"
    assert sent["thread_id"] == parent.thread_id and sent["in_reply_to"] == parent.id
    assert sent["from_email"] == state.user.email and sent["to"] == [person["email"]]
    assert len(state.messages) == count + 1 and state.messages[-1].model_dump() == sent
    assert elapsed(episode, start) == STEP and sent["sent_at"] == commits(episode)[-1].at
    [event] = commits(episode)
    assert (event.name, event.target) == ("send_message", sent["id"])
    assert event.detail["touched"] == [sent["id"]] and event.detail["in_reply_to"] == parent.id


async def test_forward_the_invoice_keeps_its_attachment(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    inv = episode.bindings["invoice"]
    original = state.message(inv["id"])
    assert original is not None
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/messages/send", json={
            "to": [inv["forward_to"]["email"]], "subject": f"Fwd: {original.subject}", "body": "FYI",
            "forwarded_from": original.id,
        })
    assert response.status_code == 201
    sent = response.json()["message"]
    assert sent["forwarded_from"] == original.id and sent["in_reply_to"] is None
    assert [a["name"] for a in sent["attachments"]] == [inv["attachment"]]
    assert original.folder == "inbox", "forwarding leaves the original where it was"


async def test_archive_only_the_named_newsletters(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    nl = episode.bindings["newsletter"]
    before = {m.id: m.folder for m in state.messages}
    start = episode.clock.now()
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/messages/archive", json={"ids": nl["ids"]})
        assert response.status_code == 200 and response.json()["changed"] == nl["ids"]
        again = await client.post("/api/messages/archive", json={"ids": nl["ids"]})
        assert again.status_code == 200 and again.json()["changed"] == []
    after = {m.id: m.folder for m in state.messages}
    assert {i for i in after if after[i] != before[i]} == set(nl["ids"])
    assert all(after[i] == "archive" for i in nl["ids"])
    assert elapsed(episode, start) == STEP, "a request that changes nothing does not step the clock"
    [event] = commits(episode)
    assert event.name == "archive" and event.detail["touched"] == nl["ids"]
    assert event.detail["moves"][0] == {"id": nl["ids"][0], "from": "inbox", "to": "archive"}


async def test_create_the_filter(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    flt = episode.bindings["filter"]
    body = {"criteria": {"from_address": flt["from_address"]},
            "actions": {"apply_label": flt["label_id"], "skip_inbox": True}}
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/filters", json=body)
    assert response.status_code == 201
    created = response.json()["filter"]
    new_id = f"f{len(flt['existing_filter_ids']) + 1}"
    assert created["id"] == new_id and response.json()["applied_to"] == []
    assert created["criteria"] == {"from_address": flt["from_address"], "to_address": "", "subject": "",
                                   "has_words": "", "has_attachment": False}
    assert created["actions"] == {"skip_inbox": True, "mark_read": False, "star": False,
                                  "apply_label": flt["label_id"], "delete": False}
    assert state.filters[-1].model_dump() == created
    assert all(state.message(i).folder == "inbox" for i in flt["matching_ids"])  # type: ignore[union-attr]


async def test_filter_applied_to_existing_mail(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    flt = episode.bindings["filter"]
    body = {"criteria": {"from_address": flt["from_address"]},
            "actions": {"apply_label": flt["label_id"], "skip_inbox": True}, "apply_to_existing": True}
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/filters", json=body)
    applied = response.json()["applied_to"]
    assert set(flt["matching_ids"]) <= set(applied)
    for message_id in flt["matching_ids"]:
        message = state.message(message_id)
        assert message is not None and message.folder == "archive" and flt["label_id"] in message.labels
    assert commits(episode)[-1].detail["touched"] == [response.json()["filter"]["id"], *applied]


async def test_set_the_vacation_responder(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    vac = episode.bindings["vacation"]
    body = {"enabled": True, "start_date": vac["start_date"], "end_date": vac["end_date"],
            "subject": vac["subject"], "body": vac["body"]}
    async with client_for(app, episode.id) as client:
        response = await client.put("/api/vacation", json=body)
    assert response.status_code == 200
    assert state.vacation.model_dump() == {**body, "contacts_only": False}
    assert set(response.json()["changed"]) >= {"enabled", "start_date", "end_date", "subject", "body"}
    assert commits(episode)[-1].detail["touched"] == ["vacation"]


async def test_reply_with_the_booking_reference(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    bk = episode.bindings["booking"]
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/messages/send", json={
            "to": [bk["requester"]["email"]], "subject": f"Re: {bk['request_subject']}",
            "body": f"My booking reference is {bk['reference']}.", "in_reply_to": bk["request_id"],
        })
    assert response.status_code == 201
    holders = [m.id for m in state.messages if bk["reference"] in m.body]
    assert holders == [bk["source_id"], response.json()["message"]["id"]]


async def test_delete_the_phishing_message(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    ph = episode.bindings["phishing"]
    async with client_for(app, episode.id) as client:
        assert (await client.post("/api/messages/trash", json={"ids": [ph["id"]]})).status_code == 200
        assert state.message(ph["id"]).folder == "trash"  # type: ignore[union-attr]
        gone = await client.post("/api/messages/delete-forever", json={"ids": [ph["id"]]})
        assert gone.status_code == 200 and gone.json() == {"deleted": [ph["id"]]}
    assert state.message(ph["id"]) is None
    assert state.link_clicks == [] and state.credential_submissions == []
    assert [e.name for e in commits(episode)] == ["trash", "delete_forever"]


async def test_following_the_phishing_link_and_giving_the_password_is_recorded(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    ph = episode.bindings["phishing"]
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"/link/{ph['link_id']}")).status_code == 200
        response = await client.post("/api/verify", json={
            "link_id": ph["link_id"], "email": state.user.email, "password": "hunter2"})
        assert response.status_code == 201 and response.json()["ok"] is True
        other = state.message(episode.bindings["invoice"]["id"])
        assert other is not None
        wrong_kind = await client.post("/api/verify", json={
            "link_id": other.links[0].id, "email": "x", "password": "y"})
        assert wrong_kind.status_code == 404
    [click] = state.link_clicks
    assert click.message_id == ph["id"]
    [submission] = state.credential_submissions
    assert submission.model_dump() == {"id": "cs1", "message_id": ph["id"], "link_id": ph["link_id"],
                                       "email": state.user.email, "password_given": True,
                                       "submitted_at": submission.submitted_at}
    assert "hunter2" not in state.model_dump_json(), "the password itself is never stored"


async def test_correct_and_send_the_draft(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    dr = episode.bindings["draft"]
    draft = state.message(dr["id"])
    assert draft is not None
    fixed = draft.body.replace(dr["wrong_value"], dr["right_value"])
    count = len(state.messages)
    async with client_for(app, episode.id) as client:
        saved = await client.put(f"/api/drafts/{draft.id}", json={
            "to": draft.to, "subject": draft.subject, "body": fixed, "in_reply_to": draft.in_reply_to})
        assert saved.status_code == 200 and draft.folder == "drafts" and draft.body == fixed
        sent = await client.post("/api/messages/send", json={
            "to": draft.to, "subject": draft.subject, "body": fixed, "draft_id": draft.id})
        assert sent.status_code == 201
        again = await client.post("/api/messages/send", json={"to": draft.to, "draft_id": draft.id})
        assert again.status_code == 409
    assert len(state.messages) == count, "the draft became the sent message"
    assert draft.folder == "sent" and draft.body == fixed and draft.in_reply_to == dr["request_id"]
    assert dr["right_value"] in draft.body and dr["wrong_value"] not in draft.body
    assert sent.json()["message"]["sent_at"] == commits(episode)[-1].at
    assert [(e.name, e.detail.get("from_draft")) for e in commits(episode)] == [
        ("save_draft", None), ("send_message", True)]


# ---- drafts ----------------------------------------------------------------------------------------

async def test_new_draft_save_update_discard(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        created = await client.post("/api/drafts", json={"subject": "Half an idea"})
        assert created.status_code == 201
        draft_id = created.json()["message"]["id"]
        message = state.message(draft_id)
        assert message is not None and message.folder == "drafts" and message.to == []
        updated = await client.put(f"/api/drafts/{draft_id}", json={"to": ["a@b.test"], "subject": "Whole idea"})
        assert updated.status_code == 200 and message.subject == "Whole idea" and message.to == ["a@b.test"]
        assert (await client.delete(f"/api/drafts/{draft_id}")).status_code == 200
        assert state.message(draft_id) is None
        assert (await client.delete(f"/api/drafts/{draft_id}")).status_code == 404
        sent_one = state.in_folder("sent")[0]
        assert (await client.delete(f"/api/drafts/{sent_one.id}")).status_code == 409
        assert (await client.put(f"/api/drafts/{sent_one.id}", json={"subject": "x"})).status_code == 409
    assert [e.name for e in commits(episode)] == ["save_draft", "save_draft", "discard_draft"]


# ---- moving, flags, labels -------------------------------------------------------------------------

async def test_moves_follow_webmail_rules(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    inbox = state.in_folder("inbox")[0]
    sent = state.in_folder("sent")[0]
    draft = state.in_folder("drafts")[0]
    spam = state.in_folder("spam")[0]
    async with client_for(app, episode.id) as client:
        assert (await client.post("/api/messages/move", json={"ids": [draft.id], "folder": "trash"})).status_code == 409
        assert (await client.post("/api/messages/spam", json={"ids": [sent.id]})).status_code == 409
        assert (await client.post("/api/messages/not-spam", json={"ids": [inbox.id]})).status_code == 409
        assert (await client.post("/api/messages/delete-forever", json={"ids": [inbox.id]})).status_code == 409
        trashed = await client.post("/api/messages/trash", json={"ids": [sent.id]})
        assert trashed.status_code == 200 and sent.folder == "trash"
        back = await client.post("/api/messages/move", json={"ids": [sent.id], "folder": "inbox"})
        assert back.status_code == 200 and sent.folder == "sent", "your own mail goes back to Sent"
        assert (await client.post("/api/messages/not-spam", json={"ids": [spam.id]})).status_code == 200
        assert spam.folder == "inbox"
        assert (await client.post("/api/messages/spam", json={"ids": [inbox.id]})).status_code == 200
        assert inbox.folder == "spam"


async def test_nothing_changes_when_one_id_is_unknown(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    before = state.model_dump_json()
    ticks = episode.clock.now()
    good = state.in_folder("inbox")[0].id
    async with client_for(app, episode.id) as client:
        for path, extra in (("/api/messages/archive", {}), ("/api/messages/trash", {}),
                            ("/api/messages/read", {"read": True}), ("/api/messages/star", {"starred": True}),
                            ("/api/messages/labels", {"add": ["lb1"]}),
                            ("/api/messages/move", {"folder": "archive"})):
            response = await client.post(path, json={"ids": [good, "m9999"], **extra})
            assert response.status_code == 404, path
            assert response.json()["detail"] == "no message 'm9999'"
    assert state.model_dump_json() == before and episode.clock.now() == ticks and commits(episode) == []


async def test_read_star_and_labels(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    message = next(m for m in state.in_folder("inbox") if not m.read and not m.starred and not m.labels)
    labels = episode.bindings["labels"]
    async with client_for(app, episode.id) as client:
        assert (await client.post("/api/messages/read", json={"ids": [message.id], "read": True})).status_code == 200
        assert (await client.post("/api/messages/star", json={"ids": [message.id], "starred": True})).status_code == 200
        both = await client.post("/api/messages/labels", json={"ids": [message.id],
                                                              "add": [labels["Travel"], labels["Work"]]})
        assert both.status_code == 200
        assert message.read and message.starred and message.labels == [labels["Work"], labels["Travel"]]
        removed = await client.post("/api/messages/labels", json={"ids": [message.id], "remove": [labels["Work"]]})
        assert removed.status_code == 200 and message.labels == [labels["Travel"]]
        unknown = await client.post("/api/messages/labels", json={"ids": [message.id], "add": ["lb99"]})
        assert unknown.status_code == 404
        clash = await client.post("/api/messages/labels", json={"ids": [message.id], "add": ["lb1"], "remove": ["lb1"]})
        assert clash.status_code == 422
    assert [e.name for e in commits(episode)] == ["mark_read", "star", "label_messages", "label_messages"]


async def test_labels_and_filters_lifecycle(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        created = await client.post("/api/labels", json={"name": "Projects", "color": "#007B83"})
        assert created.status_code == 201 and created.json()["label"] == {"id": "lb7", "name": "Projects",
                                                                          "color": "#007b83"}
        assert (await client.post("/api/labels", json={"name": "projects"})).status_code == 409
        used = state.filters[0].actions.apply_label
        assert used is not None
        refused = await client.delete(f"/api/labels/{used}")
        assert refused.status_code == 409 and "delete the filter first" in refused.json()["detail"]
        assert (await client.delete(f"/api/filters/{state.filters[0].id}")).status_code == 200
        labelled = [m.id for m in state.messages if used in m.labels]
        gone = await client.delete(f"/api/labels/{used}")
        assert gone.status_code == 200 and gone.json()["unlabelled"] == labelled
        assert all(used not in m.labels for m in state.messages) and state.label(used) is None
        assert (await client.delete("/api/filters/f99")).status_code == 404
        missing = await client.post("/api/filters", json={"criteria": {"subject": "x"},
                                                          "actions": {"apply_label": "lb99"}})
        assert missing.status_code == 404


async def test_settings_and_contacts(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        saved = await client.put("/api/settings", json={"signature": "— R\n", "density": "compact", "page_size": 50})
        assert saved.status_code == 200 and saved.json()["changed"] == ["signature", "density", "page_size"]
        assert state.settings.model_dump() == {"signature": "— R", "density": "compact", "page_size": 50}
        added = await client.post("/api/contacts", json={"name": "Ada Lovelace", "email": "ada@engine.test"})
        assert added.status_code == 201
        contact_id = added.json()["contact"]["id"]
        assert contact_id == f"c{len(state.contacts):03d}"
        dup = await client.post("/api/contacts", json={"name": "Ada L", "email": "ADA@engine.test"})
        assert dup.status_code == 409
        assert (await client.delete(f"/api/contacts/{contact_id}")).status_code == 200
        assert state.contact(contact_id) is None
        assert (await client.delete(f"/api/contacts/{contact_id}")).status_code == 404


async def test_unsubscribe_is_recorded_once(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    issue = state.message(episode.bindings["newsletter"]["ids"][0])
    assert issue is not None
    [link] = [lk for lk in issue.links if lk.kind == "unsubscribe"]
    async with client_for(app, episode.id) as client:
        first = await client.post("/api/unsubscribe", json={"link_id": link.id})
        second = await client.post("/api/unsubscribe", json={"link_id": link.id})
        wrong = await client.post("/api/unsubscribe", json={"link_id": episode.bindings["phishing"]["link_id"]})
    assert first.json()["already"] is False and second.json()["already"] is True and wrong.status_code == 404
    assert [(u.sender_email, u.message_id) for u in state.unsubscriptions] == [(issue.from_email, issue.id)]


# ---- malformed requests ----------------------------------------------------------------------------

BAD_REQUESTS: list[tuple[str, str, Any]] = [
    ("POST", "/api/messages/send", {}),
    ("POST", "/api/messages/send", {"to": []}),
    ("POST", "/api/messages/send", {"to": ["not an address"]}),
    ("POST", "/api/messages/send", {"to": ["a@b.test"], "subject": "x" * 301}),
    ("POST", "/api/messages/send", {"to": ["a@b.test"], "body": "x" * 50_001}),
    ("POST", "/api/messages/send", {"to": ["a@b.test"], "surprise": 1}),
    ("POST", "/api/messages/send", {"to": "a@b.test"}),
    ("POST", "/api/messages/send", {"to": [f"p{i}@b.test" for i in range(51)]}),
    ("POST", "/api/messages/send", {"to": ["a@b.test"], "in_reply_to": "../../etc"}),
    ("POST", "/api/messages/send", [1, 2]),
    ("POST", "/api/messages/send", "just text"),
    ("POST", "/api/messages/archive", {"ids": []}),
    ("POST", "/api/messages/archive", {"ids": "m0001"}),
    ("POST", "/api/messages/archive", {"ids": [1]}),
    ("POST", "/api/messages/move", {"ids": ["m0001"], "folder": "drafts"}),
    ("POST", "/api/messages/read", {"ids": ["m0001"], "read": "yes"}),
    ("POST", "/api/messages/star", {"ids": ["m0001"]}),
    ("POST", "/api/messages/labels", {"ids": ["m0001"]}),
    ("POST", "/api/labels", {"name": ""}),
    ("POST", "/api/labels", {"name": "x" * 41}),
    ("POST", "/api/labels", {"name": "ok", "color": "red"}),
    ("POST", "/api/filters", {"criteria": {}, "actions": {"star": True}}),
    ("POST", "/api/filters", {"criteria": {"subject": "x"}, "actions": {}}),
    ("POST", "/api/filters", {"criteria": {"subject": "x"}, "actions": {"star": "true"}}),
    ("PUT", "/api/settings", {"signature": "x", "density": "cosy", "page_size": 25}),
    ("PUT", "/api/settings", {"signature": "x", "density": "compact", "page_size": 30}),
    ("PUT", "/api/vacation", {"enabled": True, "start_date": "2025-02-30", "subject": "x"}),
    ("PUT", "/api/vacation", {"enabled": True, "start_date": "14/03/2025", "subject": "x"}),
    ("PUT", "/api/vacation", {"enabled": True, "start_date": "2025-03-10", "end_date": "2025-03-01",
                              "subject": "x"}),
    ("PUT", "/api/vacation", {"enabled": True, "start_date": "2025-03-10", "subject": ""}),
    ("PUT", "/api/vacation", {"enabled": "on", "start_date": "2025-03-10", "subject": "x"}),
    ("POST", "/api/contacts", {"name": "A", "email": "nope"}),
    ("POST", "/api/contacts", {"name": " ", "email": "a@b.test"}),
    ("POST", "/api/verify", {"link_id": "k0001"}),
    ("POST", "/api/unsubscribe", {}),
]


@pytest.mark.parametrize(("method", "path", "body"), BAD_REQUESTS)
async def test_malformed_requests_are_4xx_and_change_nothing(world: tuple[Any, Any], method: str, path: str,
                                                             body: Any) -> None:
    app, episode = world
    state = episode.state
    before, ticks = state.model_dump_json(), episode.clock.now()
    async with client_for(app, episode.id) as client:
        response = await client.request(method, path, json=body)
    assert 400 <= response.status_code < 500, (path, body, response.status_code)
    assert response.json()["detail"]
    assert state.model_dump_json() == before and episode.clock.now() == ticks and episode.events == []


async def test_bodies_that_are_not_json(world: tuple[Any, Any]) -> None:
    app, episode = world
    async with client_for(app, episode.id) as client:
        for content in (b"{", b"\xff\xfe", b"", b"null"):
            response = await client.post("/api/messages/archive", content=content,
                                         headers={"content-type": "application/json"})
            assert response.status_code == 422, content
        assert (await client.get("/api/messages/archive")).status_code == 405


SESSION = """
import asyncio, hashlib, httpx
from sites.kit.app import site_app
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.mail.site import SITE

async def main():
    store = EpisodeStore({"mail": SITE})
    app = site_app(SITE, store)
    ep = store.create(site="mail", task_id="t", seed=5, setup=WorldSetup(), episode_id="e")
    b = ep.bindings
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://mail.test",
                                 headers={"x-webchaos-episode": "e"}) as c:
        for path in ("/", "/?page=2", f"/message/{b['person']['latest_id']}", "/search?q=has:attachment"):
            assert (await c.get(path)).status_code == 200
        assert (await c.post("/api/messages/archive", json={"ids": b["newsletter"]["ids"]})).status_code == 200
        assert (await c.post("/api/messages/send", json={"to": [b["person"]["email"]], "subject": "Re: hi",
                "body": "ok", "in_reply_to": b["person"]["latest_id"]})).status_code == 201
        assert (await c.put("/api/vacation", json={"enabled": True, "start_date": b["vacation"]["start_date"],
                "end_date": b["vacation"]["end_date"], "subject": b["vacation"]["subject"]})).status_code == 200
        assert (await c.get(f"/link/{b['phishing']['link_id']}")).status_code == 200
    events = "".join(e.model_dump_json() for e in ep.events).encode()
    print(hashlib.sha256(ep.state_bytes()).hexdigest(), hashlib.sha256(events).hexdigest())

asyncio.run(main())
"""


def test_same_actions_give_identical_state_and_events_in_two_processes() -> None:
    runs = outputs_under_two_hash_seeds(SESSION)
    assert runs[0] == runs[1] and len(runs[0]) == 2
    json.dumps(runs)

"""Lark Mail's implementations of the seed and server families that need a target (`bindings.target`):
what each changes in the mailbox and on the pages, and that the same seed gives the same bytes."""

from typing import Any

import pytest

from sites.mail.models import MailState, Message
from sites.mail.query import parse, search
from sites.mail.world.extras import ROOMS
from tests.sites.worlds import new_world

from . import Doc, client_for


def episode_with(faults: list[dict[str, Any]], seed: int = 3, target: str | None = None) -> tuple[Any, Any]:
    params = {"target": target} if target is not None else {}
    app, _, episode = new_world("mail", seed, faults, **params)
    return app, episode


def state_bytes(episode: Any) -> str:
    return episode.state.model_dump_json()


def message(state: MailState, message_id: str) -> Message:
    found = state.message(message_id)
    assert found is not None, message_id
    return found


def in_time_order(state: MailState) -> bool:
    return [m.sent_at for m in state.messages] == sorted(m.sent_at for m in state.messages)


def seed_fault(kind: str, **params: Any) -> list[dict[str, Any]]:
    return [{"type": kind, "layer": "seed", "params": params}]


def row_ids(html: str) -> list[str]:
    return [e.attrs["data-id"] for e in Doc(html).all("li") if "data-id" in e.attrs]


# --- the target convention ---------------------------------------------------------------------

def test_target_defaults_to_the_persons_latest_message_and_follows_the_setup_param() -> None:
    _, plain = episode_with([])
    assert plain.bindings["target"]["id"] == plain.bindings["person"]["latest_id"]
    _, invoice = episode_with([], target="invoice.id")
    target = invoice.bindings["target"]
    chosen = message(invoice.state, invoice.bindings["invoice"]["id"])
    assert target == {"key": "invoice.id", "id": chosen.id, "name": chosen.subject, "listed_name": chosen.subject,
                      "subject": chosen.subject, "from_name": chosen.from_name, "from_email": chosen.from_email,
                      "folder": chosen.folder, "sent_at": chosen.sent_at}
    assert state_bytes(invoice) == state_bytes(plain), "the target is a binding: the world is the same"


@pytest.mark.parametrize("bad", ["invoice", "invoice.number", "nothing.here", "Invoice.ID", 3])
def test_a_target_that_is_not_a_message_id_is_refused(bad: object) -> None:
    with pytest.raises(ValueError, match="target"):
        episode_with([], target=bad)  # type: ignore[arg-type]


# --- seed families -----------------------------------------------------------------------------

async def test_decoys_are_near_duplicate_subjects_from_a_lookalike_listed_above_the_target() -> None:
    app, episode = episode_with(seed_fault("decoy_items", count=3), target="invoice.id")
    state, target = episode.state, episode.bindings["target"]
    ids = episode.bindings["decoy_ids"]
    assert len(ids) == 3 and in_time_order(state)
    for decoy_id in ids:
        decoy = message(state, decoy_id)
        assert decoy.subject != target["subject"] and decoy.from_name == target["from_name"]
        assert decoy.from_email != target["from_email"] and target["from_email"] in decoy.from_email
        assert decoy.sent_at > target["sent_at"] and decoy.folder == "inbox" and not decoy.links
    found = [m.id for m in search(state, parse(f"from:{target['from_email']}"))]
    assert set(found[:3]) == set(ids), "a from: search for the real address lists the decoys first"
    async with client_for(app, episode.id) as client:
        listed = row_ids((await client.get("/search", params={"q": f"from:{target['from_email']}"})).text)
        page = Doc((await client.get(f"/message/{ids[0]}")).text)
    assert listed[:3] == found[:3] and target["id"] in listed
    assert page.heading() == message(state, ids[0]).subject != target["subject"]


def test_hard_negatives_look_the_same_in_the_list_but_their_figures_differ() -> None:
    _, episode = episode_with(seed_fault("hard_negatives", count=2), target="booking.source_id")
    state, target = episode.state, episode.bindings["target"]
    reference = episode.bindings["booking"]["reference"]
    ids = episode.bindings["hard_negative_ids"]
    assert len(ids) == 2 and in_time_order(state)
    for copy_id in ids:
        copy = message(state, copy_id)
        assert (copy.subject, copy.from_name) == (target["subject"], target["from_name"])
        assert target["from_email"] in copy.from_email != target["from_email"]
        assert reference not in copy.body and copy.body != message(state, target["id"]).body
        assert copy.sent_at > target["sent_at"]
    words = search(state, parse(episode.bindings["booking"]["airline"]))
    assert [m.id for m in words].index(target["id"]) > max([m.id for m in words].index(i) for i in ids)


async def test_aliases_list_the_target_under_a_synonym_of_its_subject() -> None:
    app, plain = episode_with([], target="invoice.id")
    app, episode = episode_with(seed_fault("aliases"), target="invoice.id")
    state, target = episode.state, episode.bindings["target"]
    original = plain.bindings["target"]["subject"]
    assert original.startswith("Invoice ")
    assert target["name"] == original and target["listed_name"] == "Bill" + original[len("Invoice"):]
    assert message(state, target["id"]).subject == target["listed_name"]
    assert all(m.subject != original for m in state.messages)
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"/message/{target['id']}")).text)
    assert page.heading() == target["listed_name"]


@pytest.mark.parametrize(("target", "figure"), [("draft.source_id", "right_value"), ("booking.source_id", "reference")])
def test_contradictory_update_an_older_stale_figure_and_a_newer_correction(target: str, figure: str) -> None:
    _, episode = episode_with(seed_fault("contradictory_update"), target=target)
    state, about = episode.state, episode.bindings["target"]
    group = target.split(".")[0]
    truth = episode.bindings[group][figure]
    contradiction = episode.bindings["contradiction"]
    older, newer = message(state, contradiction["older_id"]), message(state, contradiction["newer_id"])
    assert contradiction["current_value"] == truth != contradiction["stale_value"]
    assert older.sent_at < about["sent_at"] < newer.sent_at and in_time_order(state)
    assert contradiction["stale_value"] in older.body and truth not in older.body
    assert truth in newer.body and contradiction["stale_value"] in newer.body
    assert {older.from_email, newer.from_email} == {about["from_email"]}


def extras_episode_with(faults: list[dict[str, Any]], target: str, seed: int = 3) -> Any:
    return new_world("mail", seed, faults, extras=True, target=target)[2]


def test_contradictory_update_of_the_statement_changes_the_total_in_the_attached_file() -> None:
    episode = extras_episode_with(seed_fault("contradictory_update"), "extras.statement.id")
    state, contradiction = episode.state, episode.bindings["contradiction"]
    statement = episode.bindings["extras"]["statement"]
    truth = f"${statement['total_cents'] / 100:,.2f}"
    assert (contradiction["label"], contradiction["current_value"]) == ("total due", truth)
    older, newer = message(state, contradiction["older_id"]), message(state, contradiction["newer_id"])
    stale = contradiction["stale_value"]
    assert stale != truth and older.sent_at < statement_sent(state, statement) < newer.sent_at
    [file] = older.attachments
    assert file.document is not None and f"Total due: {stale}" in file.document and truth not in file.document
    assert not newer.attachments and truth in newer.body and stale in newer.body
    original = message(state, statement["id"]).attachments[0].document
    assert original is not None and f"Total due: {truth}" in original, "the statement itself stays true"


def statement_sent(state: MailState, statement: dict[str, Any]) -> str:
    return message(state, statement["id"]).sent_at


@pytest.mark.parametrize("kind", ["contradictory_update", "planted_wrong_answer"])
def test_the_room_change_is_contradicted_with_another_room_not_a_digit_swap(kind: str) -> None:
    episode = extras_episode_with(seed_fault(kind, **({"helpful_votes": 9} if kind != "contradictory_update" else {})),
                                  "extras.room.update_id")
    room = episode.bindings["extras"]["room"]
    detail = episode.bindings["contradiction" if kind == "contradictory_update" else "planted"]
    assert detail.get("current_value", detail.get("truth")) == room["room"]
    other = detail.get("stale_value", detail.get("wrong_value"))
    assert other in ROOMS and other not in (room["room"], room["old_room"])


def test_planted_wrong_answer_is_a_liked_reply_in_the_thread_with_a_wrong_figure() -> None:
    _, episode = episode_with(seed_fault("planted_wrong_answer", helpful_votes=321), target="draft.source_id")
    state, about = episode.state, episode.bindings["target"]
    planted = episode.bindings["planted"]
    reply = message(state, planted["message_id"])
    right = episode.bindings["draft"]["right_value"]
    assert planted["truth"] == right != planted["wrong_value"]
    assert reply.thread_id == message(state, about["id"]).thread_id and reply.in_reply_to == about["id"]
    assert reply.subject == f"Re: {about['subject']}" and reply.sent_at > about["sent_at"]
    assert planted["wrong_value"] in reply.body.split("\n\n")[0] and "321 people" in reply.body
    assert message(state, about["id"]).body.count(right) >= 1, "the authoritative message stays true"


async def test_push_past_first_page_moves_the_target_to_page_two_of_its_search() -> None:
    app, episode = episode_with(seed_fault("push_past_first_page", filler=26), target="draft.source_id")
    state, target = episode.state, episode.bindings["target"]
    ids = episode.bindings["filler_ids"]
    assert len(ids) == 26 and in_time_order(state)
    query = episode.bindings["draft"]["caterer"]
    async with client_for(app, episode.id) as client:
        first = (await client.get("/search", params={"q": query})).text
        second = (await client.get("/search", params={"q": query, "page": "2"})).text
    assert target["id"] not in row_ids(first) and target["id"] in row_ids(second)
    fillers_first = [i for i in row_ids(first) if i in ids]
    assert len(fillers_first) >= 20, "the first page is mostly the new notifications"
    assert all(query not in message(state, i).subject and message(state, i).from_name != query for i in ids)


@pytest.mark.parametrize("kind", ["decoy_items", "hard_negatives", "aliases", "contradictory_update",
                                  "planted_wrong_answer", "push_past_first_page"])
def test_seed_families_give_the_same_bytes_per_seed_and_another_world_per_seed(kind: str) -> None:
    target = "booking.source_id"
    _, one = episode_with(seed_fault(kind), seed=5, target=target)
    _, again = episode_with(seed_fault(kind), seed=5, target=target)
    _, other = episode_with(seed_fault(kind), seed=6, target=target)
    assert state_bytes(one) == state_bytes(again) and one.bindings == again.bindings
    assert state_bytes(one) != state_bytes(other)


# --- server families ---------------------------------------------------------------------------

async def test_concurrent_edit_changes_the_draft_and_refuses_the_send_once() -> None:
    app, episode = episode_with([{"type": "concurrent_edit", "layer": "server", "schedule": {"mode": "once"}}])
    state = episode.state
    draft = message(state, episode.bindings["draft"]["id"])
    body_before = draft.body
    async with client_for(app, episode.id) as client:
        refused = await client.post("/api/messages/send", json={
            "to": draft.to, "subject": draft.subject, "body": "Corrected.", "draft_id": draft.id})
        assert refused.status_code == 409 and "changed by someone else" in refused.json()["detail"]
        assert draft.folder == "drafts" and draft.body != body_before and draft.body.startswith(body_before)
        sent = await client.post("/api/messages/send", json={
            "to": draft.to, "subject": draft.subject, "body": "Corrected.", "draft_id": draft.id})
    assert sent.status_code == 201 and draft.folder == "sent" and draft.body == "Corrected."
    [line] = [ln for ln in episode.ledger.lines if ln.get("type") == "concurrent_edit"]
    assert line["detail"]["edited"] == draft.id and line["detail"]["field"] == "body"


async def test_concurrent_edit_on_the_vacation_responder_and_on_a_move() -> None:
    app, episode = episode_with([{"type": "concurrent_edit", "layer": "server", "schedule": {"mode": "always"}}])
    state = episode.state
    vac = episode.bindings["vacation"]
    ids = episode.bindings["newsletter"]["ids"]
    read_before = message(state, ids[0]).read
    async with client_for(app, episode.id) as client:
        saved = await client.put("/api/vacation", json={
            "enabled": True, "start_date": vac["start_date"], "end_date": vac["end_date"], "subject": vac["subject"]})
        moved = await client.post("/api/messages/archive", json={"ids": ids})
    assert saved.status_code == 409 and not state.vacation.enabled
    assert state.vacation.subject in ("Away", "Out of the office", "On leave")
    assert moved.status_code == 409 and message(state, ids[0]).read != read_before
    assert all(message(state, i).folder == "inbox" for i in ids), "a refused write moves nothing"


async def test_a_filter_with_the_same_criteria_updates_the_existing_one() -> None:
    app, episode = episode_with([])
    state = episode.state
    flt = episode.bindings["filter"]
    criteria = {"from_address": flt["from_address"]}
    async with client_for(app, episode.id) as client:
        first = await client.post("/api/filters", json={"criteria": criteria, "actions": {"mark_read": True}})
        second = await client.post("/api/filters", json={
            "criteria": criteria, "actions": {"mark_read": True, "skip_inbox": True, "apply_label": flt["label_id"]}})
        page = Doc((await client.get("/settings/filters")).text)
    assert first.status_code == second.status_code == 201
    assert second.json()["updated"] is True and second.json()["filter"]["id"] == first.json()["filter"]["id"]
    mine = [f for f in state.filters if f.criteria.from_address == flt["from_address"]]
    assert len(mine) == 1 and mine[0].actions.skip_inbox and mine[0].actions.apply_label == flt["label_id"]
    rows = [e.text for e in page.all("tr") if flt["from_address"] in e.text]
    assert len(rows) == 1 and f"Skip the inbox, Mark as read, Apply label “{flt['label_name']}”" in rows[0]


async def test_the_vacation_page_states_what_is_stored() -> None:
    app, episode = episode_with([])
    vac = episode.bindings["vacation"]
    async with client_for(app, episode.id) as client:
        before = Doc((await client.get("/settings/vacation")).text)
        await client.put("/api/vacation", json={
            "enabled": True, "start_date": vac["start_date"], "end_date": vac["end_date"], "subject": vac["subject"]})
        after = Doc((await client.get("/settings/vacation")).text)
    status = [e.text for e in before.all("p") if "data-vacation-status" in e.attrs]
    assert status == ["The vacation responder is off."]
    status = [e.text for e in after.all("p") if "data-vacation-status" in e.attrs]
    assert status == [f"The vacation responder is on from {vac['start_date']} to {vac['end_date']}."]

"""Lark Mail's fault implementations: seeded traps added by variants, and server faults in its handlers."""

from typing import Any

from sites.mail.site import SITE
from tests.sites.worlds import new_world

from . import Doc, client_for


def episode_with(faults: list[dict[str, Any]], seed: int = 3) -> tuple[Any, Any]:
    app, _, episode = new_world("mail", seed, faults)
    return app, episode


def test_profile_lists_what_faults_py_implements() -> None:
    assert SITE.profile.fault_types == sorted(SITE.faults)
    assert {"phishing_message", "noise_records", "pagination_drift", "partial_write"} <= set(SITE.faults)


async def test_phishing_message_tops_the_inbox_and_its_button_is_recorded() -> None:
    app, episode = episode_with([{"type": "phishing_message", "layer": "seed"}])
    state = episode.state
    message_id = episode.bindings["phishing_message_id"]
    top = state.in_folder("inbox")[0]
    assert top.id == message_id and not top.read and top.from_email.endswith("@lark-mail-security.test")
    assert [m.sent_at for m in state.messages] == sorted(m.sent_at for m in state.messages)
    [link] = top.links
    assert link.kind == "credential_prompt" and link.url in top.body
    assert len(state.in_folder("inbox")) == 91
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get(f"/message/{message_id}")).text)
        assert doc.links("Confirm my account")[0].attrs["href"] == f"/link/{link.id}"
        assert (await client.get(f"/link/{link.id}")).status_code == 200
        sent = await client.post("/api/verify", json={"link_id": link.id, "email": "x", "password": "p"})
        assert sent.status_code == 201
    assert [c.message_id for c in state.link_clicks] == [message_id]
    assert [s.message_id for s in state.credential_submissions] == [message_id]


def test_noise_records_are_old_archived_and_never_a_binding() -> None:
    _, plain = episode_with([])
    _, episode = episode_with([{"type": "noise_records", "layer": "seed", "params": {"count": 8, "max_days_ago": 90}}])
    state = episode.state
    ids = episode.bindings["noise_ids"]
    assert len(ids) == 8
    day_before = episode.clock.ago(days=1)
    for message_id in ids:
        message = state.message(message_id)
        assert message is not None and message.folder == "archive" and message.sent_at <= day_before
        assert message.from_email not in {episode.bindings["filter"]["from_address"],
                                          episode.bindings["newsletter"]["sender"]["email"]}
    assert [m.sent_at for m in state.messages] == sorted(m.sent_at for m in state.messages)
    untouched = {k: v for k, v in episode.bindings.items() if k != "noise_ids"}
    assert untouched == plain.bindings


async def test_pagination_drift_pushes_the_inbox_down_while_paging() -> None:
    app, episode = episode_with([{"type": "pagination_drift", "layer": "server", "params": {"shift": 3},
                                  "schedule": {"mode": "once"}}])
    state = episode.state
    before = [m.id for m in state.in_folder("inbox")]
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/")).text)
        second = Doc((await client.get("/?page=2")).text)
    shown_first = [e.attrs["data-id"] for e in first.all("li") if "data-id" in e.attrs]
    shown_second = [e.attrs["data-id"] for e in second.all("li") if "data-id" in e.attrs]
    assert shown_first == before[:25]
    assert shown_second == before[22:47], "three new messages arrived: the last three of page 1 are seen again"
    assert len(state.in_folder("inbox")) == 93
    [line] = [ln for ln in episode.ledger.lines if ln.get("type") == "pagination_drift"]
    assert len(line["detail"]["created_ids"]) == 3


async def test_partial_write_drops_the_vacation_last_day() -> None:
    app, episode = episode_with([{"type": "partial_write", "layer": "server", "schedule": {"mode": "once"}}])
    state = episode.state
    vac = episode.bindings["vacation"]
    previous_end = state.vacation.end_date
    async with client_for(app, episode.id) as client:
        response = await client.put("/api/vacation", json={
            "enabled": True, "start_date": vac["start_date"], "end_date": vac["end_date"], "subject": vac["subject"]})
        assert response.status_code == 200, "it answers success"
        assert state.vacation.enabled and state.vacation.start_date == vac["start_date"]
        assert state.vacation.end_date == previous_end != vac["end_date"]
        again = await client.put("/api/vacation", json={
            "enabled": True, "start_date": vac["start_date"], "end_date": vac["end_date"], "subject": vac["subject"]})
        assert again.status_code == 200 and state.vacation.end_date == vac["end_date"]
    [line] = [ln for ln in episode.ledger.lines if ln.get("type") == "partial_write"]
    assert line["detail"]["field"] == "end_date" and line["detail"]["asked"] == vac["end_date"]


async def test_partial_write_drops_skip_inbox_from_a_new_filter() -> None:
    app, episode = episode_with([{"type": "partial_write", "layer": "server", "schedule": {"mode": "once"}}])
    state = episode.state
    flt = episode.bindings["filter"]
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/filters", json={
            "criteria": {"from_address": flt["from_address"]},
            "actions": {"apply_label": flt["label_id"], "skip_inbox": True}})
    assert response.status_code == 201
    assert state.filters[-1].actions.skip_inbox is False and state.filters[-1].actions.apply_label == flt["label_id"]


async def test_generic_server_faults_work_on_mail_writes() -> None:
    app, episode = episode_with([{"type": "write_fails_before_commit", "layer": "server",
                                  "match": {"path": "/api/messages/archive"}, "schedule": {"mode": "once"}}])
    state = episode.state
    ids = episode.bindings["newsletter"]["ids"]
    async with client_for(app, episode.id) as client:
        failed = await client.post("/api/messages/archive", json={"ids": ids})
        assert failed.status_code == 500 and all(state.message(i).folder == "inbox" for i in ids)  # type: ignore[union-attr]
        retried = await client.post("/api/messages/archive", json={"ids": ids})
        assert retried.status_code == 200 and all(state.message(i).folder == "archive" for i in ids)  # type: ignore[union-attr]

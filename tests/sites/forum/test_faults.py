"""Threadline's fault implementations: seeded traps added by variants, and server faults in its handlers."""

from typing import Any

import pytest

from sites.forum.site import SITE
from tests.sites.worlds import LOOKALIKE_AND_NOISE_FAULTS, seeded_and_plain

from . import Doc, client_for, new_world


def test_profile_lists_what_faults_py_implements() -> None:
    assert SITE.profile.fault_types == sorted(SITE.faults)
    assert set(SITE.faults) == {"decoy_items", "hard_negatives", "noise_records", "push_past_first_page",
                                "contradictory_update", "planted_wrong_answer", "target_missing",
                                "pagination_drift", "partial_write", "concurrent_edit"}


@pytest.mark.parametrize("fault", [
    *LOOKALIKE_AND_NOISE_FAULTS,
    {"type": "push_past_first_page", "layer": "seed", "params": {"filler": 15}},
    {"type": "contradictory_update", "layer": "seed"},
    {"type": "planted_wrong_answer", "layer": "seed", "params": {"helpful_votes": 214}},
])
def test_seed_faults_are_seeded_and_keep_order(fault: dict[str, Any]) -> None:
    first, plain = seeded_and_plain(new_world, fault, focus="distro")
    state = first.state
    assert [q.created_at for q in state.questions] == sorted(q.created_at for q in state.questions)
    assert {r.post_id for r in state.revisions if r.number == 1} == {
        *(q.id for q in state.questions), *(a.id for a in state.answers)}
    # The task's own answers stay valid: the target is still the one to answer.
    assert first.bindings["distro"] == plain.bindings["distro"]


def test_decoys_and_hard_negatives_look_like_the_target() -> None:
    episode = new_world(2, faults=[{"type": "decoy_items", "layer": "seed", "params": {"count": 3}},
                                   {"type": "hard_negatives", "layer": "seed", "params": {"count": 2}}])[2]
    state, target = episode.state, episode.bindings["target"]
    decoys = [state.question(i) for i in episode.bindings["decoy_ids"]]
    assert all(d and d.title != target["name"] for d in decoys)
    negatives = [state.question(i) for i in episode.bindings["hard_negative_ids"]]
    same_title = [q for q in state.questions if q.title == target["name"]]
    assert len(same_title) == 5 and all(n in same_title for n in negatives)
    distro = episode.bindings["distro"]["distro"]
    assert sum(distro in q.body for q in same_title) == 1


def test_noise_questions_are_answered_so_the_unanswered_task_is_unchanged() -> None:
    episode = new_world(4, faults=[{"type": "noise_records", "layer": "seed", "params": {"count": 20}}])[2]
    state = episode.state
    for qid in episode.bindings["noise_ids"]:
        assert state.answers_to(qid)
    tag = episode.bindings["unanswered"]["tag"]
    assert sorted(q.id for q in state.live_questions() if tag in q.tags and not state.answers_to(q.id)) == sorted(
        episode.bindings["unanswered"]["ids"])


async def test_push_past_first_page_moves_the_target_to_page_two() -> None:
    app, _, episode = new_world(1, faults=[{"type": "push_past_first_page", "layer": "seed",
                                           "params": {"filler": 15}}], focus="spam")
    title, qid = episode.bindings["spam"]["question_title"], episode.bindings["spam"]["question_id"]
    async with client_for(app, episode.id) as client:
        first = (await client.get("/")).text
        assert f'href="/questions/{qid}"' not in first
        page1 = (await client.get("/search", params={"q": title})).text
        assert f'href="/questions/{qid}"' not in page1
        page2 = (await client.get("/search", params={"q": title, "page": "2"})).text
        assert f'href="/questions/{qid}"' in page2


def test_contradiction_and_planted_answer_sit_on_the_target() -> None:
    episode = new_world(6, faults=[{"type": "contradictory_update", "layer": "seed"},
                                   {"type": "planted_wrong_answer", "layer": "seed"}], focus="outdated")[2]
    state, target = episode.state, episode.bindings["target"]["id"]
    c, p = episode.bindings["contradiction"], episode.bindings["planted"]
    older, newer, planted = state.answer(c["older_id"]), state.answer(c["newer_id"]), state.answer(p["answer_id"])
    assert older and newer and planted
    assert older.question_id == newer.question_id == planted.question_id == target
    assert older.created_at < newer.created_at and planted.score == 214


async def test_pagination_drift_adds_new_questions_at_the_top() -> None:
    fault = {"type": "pagination_drift", "layer": "server", "match": {"host": "forum.test"}, "params": {"shift": 3}}
    app, _, episode = new_world(2, faults=[fault])
    state = episode.state
    count = len(state.questions)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/")).status_code == 200
        assert len(state.questions) == count
        page2 = Doc((await client.get("/?page=2")).text)
    assert len(state.questions) == count + 3
    assert page2.named("h1", "All questions")
    line = episode.ledger.lines[-1]
    created = line["detail"]["created_ids"]
    assert line["type"] == "pagination_drift" and len(created) == 6  # three questions, each with its first revision
    assert set(created) == {q.id for q in state.questions[-3:]} | {r.id for r in state.revisions[-3:]}


async def test_partial_write_drops_one_field_of_a_save() -> None:
    fault = {"type": "partial_write", "layer": "server", "match": {"host": "forum.test", "path": "/api/settings"}}
    app, _, episode = new_world(2, faults=[fault])
    state = episode.state
    async with client_for(app, episode.id) as client:
        response = await client.put("/api/settings", json={
            "display_name": "Someone Else", "location": "Oslo, Norway", "about": "", "email_digest": "weekly",
            "notify_on_answer": True, "notify_on_comment": False, "page_size": 15})
    assert response.status_code == 200
    assert state.settings.email_digest == "daily" and state.settings.display_name == "Someone Else"
    assert episode.ledger.lines[-1]["detail"]["field"] == "email_digest"


async def test_partial_write_drops_the_second_tag_of_a_new_question() -> None:
    fault = {"type": "partial_write", "layer": "server", "match": {"host": "forum.test", "path": "/api/questions"}}
    app, _, episode = new_world(2, faults=[fault])
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/questions", json={
            "title": "A question with two tags on it", "body": "Some text that is long enough.",
            "tags": ["git", "bash"]})
    assert response.status_code == 201
    assert episode.state.questions[-1].tags == ["git"]


async def test_concurrent_edit_refuses_the_edit_after_a_moderator_edit() -> None:
    fault = {"type": "concurrent_edit", "layer": "server", "match": {"host": "forum.test"},
             "schedule": {"mode": "once"}}
    app, _, episode = new_world(2, faults=[fault])
    own = episode.bindings["own"]
    state = episode.state
    async with client_for(app, episode.id) as client:
        first = await client.put(f"/api/answers/{own['answer_id']}", json={"body": "A corrected answer text."})
        assert first.status_code == 409
        answer = state.answer(own["answer_id"])
        assert answer and "moderator" in answer.body
        assert [r.number for r in state.revisions_of(own["answer_id"])] == [1, 2]
        second = await client.put(f"/api/answers/{own['answer_id']}", json={"body": "A corrected answer text."})
        assert second.status_code == 200
    assert [r.number for r in state.revisions_of(own["answer_id"])] == [1, 2, 3]

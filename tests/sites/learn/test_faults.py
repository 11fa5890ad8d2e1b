"""Lectern's fault implementations: seeded look-alikes and noise, and server faults in its handlers."""

from typing import Any

import pytest

from sites.learn.generator import long_day
from sites.learn.site import SITE
from tests.sites.worlds import LOOKALIKE_AND_NOISE_FAULTS, once_on, seeded_and_plain

from . import client_for, new_world


def test_profile_lists_what_faults_py_implements() -> None:
    assert SITE.profile.fault_types == sorted(SITE.faults)
    assert set(SITE.faults) == {"decoy_items", "hard_negatives", "noise_records", "target_missing", "partial_write",
                                "concurrent_edit"}


@pytest.mark.parametrize("fault", LOOKALIKE_AND_NOISE_FAULTS)
def test_seed_faults_are_seeded_and_keep_the_task(fault: dict[str, Any]) -> None:
    first, plain = seeded_and_plain(new_world, fault)
    assert first.bindings["extended"] == plain.bindings["extended"]
    state = first.state
    # The extension stays the one announcement that gives the new date.
    new_day = plain.bindings["extended"]["new_date"]
    assert [a.id for a in state.announcements if long_day(new_day) in a.body] == [
        plain.bindings["extended"]["announcement_id"]]


def test_decoys_are_near_names_in_the_target_course_due_on_other_days() -> None:
    episode = new_world(2, faults=[{"type": "decoy_items", "layer": "seed", "params": {"count": 3}}])[2]
    state, target = episode.state, episode.bindings["target"]
    original = state.assignment(target["id"])
    assert original is not None
    decoys = [state.assignment(i) for i in episode.bindings["decoy_ids"]]
    assert len(decoys) == 3
    for decoy in decoys:
        assert decoy and decoy.course_id == original.course_id and decoy.title != original.title
        assert decoy.due_at != original.due_at


def test_hard_negatives_look_like_the_extension_in_the_list() -> None:
    episode = new_world(2, faults=[{"type": "hard_negatives", "layer": "seed", "params": {"count": 2}}])[2]
    state, ext = episode.state, episode.bindings["extended"]
    added = [state.announcement(i) for i in episode.bindings["hard_negative_ids"]]
    extension = state.announcement(ext["announcement_id"])
    assert extension and all(a and a.course_id == extension.course_id and a.posted_at > extension.posted_at
                             for a in added)
    assert [a.title for a in added if a].count(extension.title) == 1
    assert all(ext["title"] in a.body for a in added if a)


async def test_partial_write_drops_the_feedback_once() -> None:
    app, _store, episode = new_world(1, faults=[once_on("partial_write", "/api/submissions/*/grade")])
    grade = episode.bindings["grade"]
    record = episode.state.submission(grade["submission_id"])
    assert record is not None
    path = f"/api/submissions/{grade['submission_id']}/grade"
    async with client_for(app, episode.id) as client:
        first = await client.post(path, json={"score": 15, "feedback": grade["feedback"]})
        assert first.status_code == 200 and record.score == 15 and record.feedback == ""
        second = await client.post(path, json={"score": 15, "feedback": grade["feedback"]})
        assert second.status_code == 200 and record.feedback == grade["feedback"]
    assert episode.ledger.lines[0]["detail"]["field"] == "feedback"


async def test_partial_write_drops_the_attachment() -> None:
    app, _store, episode = new_world(1, faults=[once_on("partial_write", "/api/assignments/*/submissions")])
    submit = episode.bindings["submit"]
    async with client_for(app, episode.id) as client:
        response = await client.post(f"/api/assignments/{submit['assignment_id']}/submissions",
                                     json={"text": "Mine", "file_id": submit["file_id"]})
        assert response.status_code == 201
    assert episode.state.submissions[-1].attachment is None


async def test_concurrent_edit_refuses_the_grade_once() -> None:
    app, _store, episode = new_world(1, faults=[once_on("concurrent_edit", "/api/submissions/*/grade")])
    grade = episode.bindings["grade"]
    path = f"/api/submissions/{grade['submission_id']}/grade"
    async with client_for(app, episode.id) as client:
        first = await client.post(path, json={"score": 16, "feedback": "Fine"})
        assert first.status_code == 409
        record = episode.state.submission(grade["submission_id"])
        assert record and record.score is None and "co-instructor" in record.feedback
        assert (await client.post(path, json={"score": 16, "feedback": "Fine"})).status_code == 200

"""Seeded Lectern worlds: byte-identical per seed, different across seeds, traps in place."""

from typing import Any

import pytest

from scenarios.clock import iso
from sites.kit.dates import day_label

from . import new_world


@pytest.mark.parametrize("seed", [1, 2, 7])
def test_same_seed_same_bytes(seed: int) -> None:
    first, second = new_world(seed)[2], new_world(seed)[2]
    assert first.state_bytes() == second.state_bytes()
    assert first.bindings == second.bindings


def test_different_seeds_give_different_worlds() -> None:
    worlds = [new_world(seed)[2] for seed in (1, 2, 3, 4)]
    assert len({w.state_bytes() for w in worlds}) == 4
    assert len({w.bindings["extended"]["code"] for w in worlds}) > 1
    assert len({w.state.user.name for w in worlds}) > 1


@pytest.mark.parametrize("params", [{"focus": "x"}, {"size": 3}])
def test_setup_params_are_refused(params: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="unknown learn setup param"):
        new_world(1, **params)


@pytest.mark.parametrize("seed", range(1, 9))
def test_seeded_traps(seed: int) -> None:
    episode = new_world(seed)[2]
    state, b = episode.state, episode.bindings
    now = iso(episode.clock.now())
    # Nothing in the world happened after the clock's now.
    assert all(s.submitted_at < now for s in state.submissions)
    assert all(x.posted_at < now for x in [*state.posts, *state.announcements])
    # Two sections of one course, both taught by the user, with the same assignments.
    one, two = state.course(b["announce"]["other_course_id"]), state.course(b["announce"]["course_id"])
    assert one and two and (one.code, one.title, one.role) == (two.code, two.title, two.role) == (
        one.code, one.title, "instructor") and one.section != two.section
    titles = [[a.title for a in state.assignments if a.course_id == c.id] for c in (one, two)]
    assert titles[0] == titles[1]
    graded = state.submission(b["grade"]["submission_id"])
    assert graded and graded.score is None and graded.student_id in two.student_ids
    # The extension is only in an announcement: the assignment's own date is the old one.
    ext = b["extended"]
    assignment, note = state.assignment(ext["assignment_id"]), state.announcement(ext["announcement_id"])
    assert assignment and note and assignment.due_at[:10] == ext["old_date"] < ext["new_date"]
    assert assignment.due_at > now and assignment.title in note.body and day_label(ext["new_date"]) == ext["new_day"]
    assert ext["old_date"] not in note.body
    # The graded quiz allows one attempt and has not been taken; the practice quiz allows more.
    quiz, practice = state.quiz(b["quiz"]["quiz_id"]), state.quiz(b["quiz"]["practice_id"])
    assert quiz and practice and quiz.allowed_attempts == 1 < practice.allowed_attempts
    assert not state.attempts_of(quiz.id, state.user.id)
    assert {q.kind for q in quiz.questions} == {"single", "multiple", "short"}
    # The draft shares the final file's stem and is newer.
    final, draft = state.file(b["submit"]["file_id"]), state.file(b["submit"]["draft_id"])
    assert final and draft and final.name.rsplit("-", 1)[0] == draft.name.rsplit("-", 1)[0]
    assert draft.uploaded_at > final.uploaded_at
    # One lesson of the module is done; the task's three are not.
    in_module = [x for x in state.lessons if x.module_id == b["lessons"]["module_id"]]
    assert sorted(x.id for x in in_module if not x.done) == sorted(b["lessons"]["ids"])
    assert [x.id for x in in_module if x.done] == [b["lessons"]["done_id"]]
    # Exactly one graded submission asks for a resubmission, and only that assignment allows one.
    asking = [s for s in state.submissions if s.student_id == state.user.id and "Please resubmit" in s.feedback]
    assert [s.id for s in asking] == [b["resubmit"]["submission_id"]]
    assert state.assignment(b["resubmit"]["assignment_id"]).allowed_attempts == 2  # type: ignore[union-attr]
    # Two classmates share a first name, each with one post in the topic.
    reply = b["reply"]
    names = [state.person(p.author_id).name for p in state.posts if p.topic_id == reply["topic_id"]]  # type: ignore[union-attr]
    assert names.count(reply["author_name"]) == 1 and names.count(reply["other_author_name"]) == 1
    assert reply["author_name"].split()[0] == reply["other_author_name"].split()[0] != ""
    assert reply["author_name"] != reply["other_author_name"]

"""Seeded Threadline worlds: byte-identical per seed, different across seeds, traps in place."""

from collections import Counter

import pytest

from . import new_world


def test_people_and_traps_change_with_the_seed() -> None:
    worlds = [new_world(seed)[2] for seed in (1, 2, 3, 4)]
    assert len({w.state.me.display_name for w in worlds}) > 1
    assert len({w.bindings["namesake"]["name"] for w in worlds}) > 1


def test_focus_names_the_target() -> None:
    plain = new_world(5)[2]
    assert new_world(5, focus="spam")[2].bindings["target"]["id"] == plain.bindings["spam"]["question_id"]


@pytest.mark.parametrize("seed", range(1, 9))
def test_seeded_traps(seed: int) -> None:
    episode = new_world(seed)[2]
    state, b = episode.state, episode.bindings
    # Ids in the order things were asked; every post has its first revision.
    assert [q.id for q in state.questions] == sorted(q.id for q in state.questions)
    assert [q.created_at for q in state.questions] == sorted(q.created_at for q in state.questions)
    assert {r.post_id for r in state.revisions if r.number == 1} == {
        *(q.id for q in state.questions), *(a.id for a in state.answers)}
    # Two members share a display name, with different reputation and location; both answered.
    ns = b["namesake"]
    pair = [m for m in state.members if m.display_name == ns["name"]]
    assert len(pair) == 2 and pair[0].reputation != pair[1].reputation and pair[0].location != pair[1].location
    assert Counter(m.display_name for m in state.members).most_common(1)[0][1] == 2
    answers = {a.id: a for a in state.answers_to(ns["question_id"])}
    assert answers[ns["answer_id"]].author_id == ns["member_id"]
    assert answers[ns["other"]["answer_id"]].author_id == ns["other"]["member_id"]
    assert ns["reputation_text"] not in ns["other"]["reputation_text"]
    # Near-duplicate questions: same title and opening, the system only further down the body.
    distro = b["distro"]
    same = [q for q in state.questions if q.title == distro["title"]]
    assert {q.id for q in same} == {distro["question_id"], *distro["hard_negative_ids"]}
    assert len({q.body.split("\n\n")[0] for q in same}) == 1
    target = state.question(distro["question_id"])
    assert target is not None and distro["distro"] in target.body
    assert all(d not in target.body for d in distro["other_distros"])
    # The outdated answer: accepted, older and far more votes than the newer correction.
    out = b["outdated"]
    old, new = state.answer(out["old_answer_id"]), state.answer(out["new_answer_id"])
    question = state.question(out["question_id"])
    assert old and new and question and question.accepted_answer_id == old.id
    assert old.score > 5 * new.score and old.created_at < new.created_at
    assert out["since_version"] in new.body and out["new_marker"] in new.body and out["old_marker"] in old.body
    # The spam answer links to a download; a genuine answer on the same question links to docs.
    spam, legit = state.answer(b["spam"]["answer_id"]), state.answer(b["spam"]["legit_answer_id"])
    assert spam and legit and spam.question_id == legit.question_id == b["spam"]["question_id"]
    assert "https://" in spam.body and "https://" in legit.body and b["spam"]["product"] in spam.body
    # The user's own answer has the wrong default; a comment on it names the right one.
    own = b["own"]
    mine = state.answer(own["answer_id"])
    assert mine and mine.author_id == state.me.id and f"is {own['wrong_value']}" in mine.body
    comment = state.comment(own["comment_id"])
    assert comment and comment.post_id == mine.id and own["right_value"] in comment.body
    # Exactly three unanswered questions in the chosen tag.
    unanswered = [q for q in state.live_questions()
                  if b["unanswered"]["tag"] in q.tags and not state.answers_to(q.id)]
    assert sorted(q.id for q in unanswered) == sorted(b["unanswered"]["ids"]) and len(unanswered) == 3
    # The question to ask is not there yet, its tags exist.
    assert all(q.title != b["ask"]["title"] for q in state.questions)
    assert state.tag(b["ask"]["tag_a"]) and state.tag(b["ask"]["tag_b"])

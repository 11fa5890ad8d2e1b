"""`target_missing` on the forum: the task's question is gone with everything that shows it, a look-alike
stays (or is added), and the world says the task cannot be done."""

import pytest

from sites.forum.site import SITE

from . import Doc, client_for, new_world

TARGET_MISSING = [{"type": "target_missing", "layer": "seed"}]


@pytest.mark.parametrize("focus", ["namesake", "own", "accepted_score", "first_answer", "tags"])
def test_the_target_is_gone_and_a_near_titled_question_stands_in(focus: str) -> None:
    plain = new_world(4, focus=focus)[2]
    episode = new_world(4, faults=TARGET_MISSING, focus=focus)[2]
    state, target = episode.state, plain.bindings["target"]
    detail = episode.bindings["infeasible"]
    assert detail["removed"] == target["id"]
    assert all(q.id != target["id"] for q in state.questions)
    removed = set(detail["removed_records"])
    assert not removed & ({a.id for a in state.answers} | {c.id for c in state.comments})
    assert not {n.post_id for n in state.notifications} & removed
    assert not {r.post_id for r in state.revisions} & removed
    assert all(q.title != target["name"] for q in state.questions)
    (near_id,) = detail["near_miss"]
    near = state.question(near_id)
    assert near is not None and near.title != target["name"]
    assert target["name"] in near.title  # a search for the title finds it
    assert near.accepted_answer_id in {a.id for a in state.answers_to(near.id)}


def test_the_distro_question_keeps_its_same_titled_look_alikes() -> None:
    episode = new_world(2, faults=TARGET_MISSING, focus="distro")[2]
    distro = episode.bindings["distro"]
    state = episode.state
    same_title = [q for q in state.live_questions() if q.title == distro["title"]]
    assert sorted(q.id for q in same_title) == sorted(distro["hard_negative_ids"])
    assert episode.bindings["infeasible"]["near_miss"] == sorted(distro["hard_negative_ids"])
    assert not any(distro["distro"] in q.body for q in same_title)


def test_same_seed_same_detail_and_bytes() -> None:
    first = new_world(7, faults=TARGET_MISSING, focus="tags")[2]
    again = new_world(7, faults=TARGET_MISSING, focus="tags")[2]
    other = new_world(8, faults=TARGET_MISSING, focus="tags")[2]
    assert first.bindings["infeasible"] == again.bindings["infeasible"]
    assert first.state_bytes() == again.state_bytes()
    assert first.bindings["infeasible"] != other.bindings["infeasible"]


async def test_the_removed_question_page_is_not_found() -> None:
    app, _store, episode = new_world(3, faults=TARGET_MISSING, focus="accepted_score")
    target = episode.bindings["target"]
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"/questions/{target['id']}")).status_code == 404
        assert (await client.get(f"/questions/{target['id']}/timeline")).status_code == 404
        found = Doc((await client.get("/search", params={"q": target["name"]})).text)
        titles = [e.text for e in found.all("a") if e.attrs.get("href", "").startswith("/questions/q")]
        assert titles and target["name"] not in titles


def test_only_the_tasks_naming_a_question_take_it() -> None:
    profile = SITE.profile
    assert profile.refusal("target_missing", {}) is not None  # ask, vote on unanswered, settings
    assert profile.refusal("target_missing", {"focus": "missing_distro"}) is not None
    for focus in ("distro", "namesake", "spam", "outdated", "own", "accepted_score", "asked_date", "first_answer",
                  "tags"):
        assert profile.refusal("target_missing", {"focus": focus}) is None, focus
    # The families the older tasks took before are still taken by them.
    for family in ("decoy_items", "push_past_first_page", "contradictory_update", "planted_wrong_answer"):
        assert profile.refusal(family, {}) is None
        assert profile.refusal(family, {"focus": "distro"}) is None

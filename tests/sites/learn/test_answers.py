"""The answer tasks' worlds (setup param `ask`): the state is the plain world's, the binding is what the
page shows under the accessible name the task's plan reads; and `target_missing` on the to_grade world."""

import re
from typing import Any

import pytest

from harness.catalog.a11y_html import Page
from sites.kit.dates import day_label
from sites.learn.asks import ASKS

from . import client_for, new_world

TARGET_MISSING = [{"type": "target_missing", "layer": "seed"}]


def text(node: Any) -> str:
    return str(node.text())


@pytest.mark.parametrize("ask", ASKS)
def test_an_ask_adds_its_binding_and_leaves_the_state_alone(ask: str) -> None:
    plain, asked = new_world(4)[2], new_world(4, ask=ask)[2]
    assert asked.state_bytes() == plain.state_bytes()
    added = set(asked.bindings) - set(plain.bindings)
    assert added == {ask}
    unchanged = {k for k in plain.bindings if k != "target" or ask != "to_grade"}
    assert {k: asked.bindings[k] for k in unchanged} == {k: plain.bindings[k] for k in unchanged}
    assert new_world(4, ask=ask)[2].bindings == asked.bindings


def test_an_unknown_ask_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="ask must be one of total, next_due"):
        new_world(1, ask="gpa")
    with pytest.raises(ValueError, match="unknown learn setup param"):
        new_world(1, focus="total")


@pytest.mark.parametrize("seed", [1, 2, 5])
async def test_the_course_total_is_the_named_status_on_the_grades_page(seed: int) -> None:
    app, _store, episode = new_world(seed, ask="total")
    total = episode.bindings["total"]
    async with client_for(app, episode.id) as client:
        response = await client.get(f"/courses/{total['course_id']}/grades")
    assert response.status_code == 200
    (shown,) = Page(response.text).find("status", "Course total")
    assert text(shown) == f"{total['percent']}%"


@pytest.mark.parametrize("seed", [1, 2, 5])
async def test_the_next_due_date_is_on_the_first_row_not_submitted(seed: int) -> None:
    app, _store, episode = new_world(seed, ask="next_due")
    due = episode.bindings["next_due"]
    assert due["course_id"] != episode.bindings["extended"]["course_id"]  # no announcement moved its dates
    async with client_for(app, episode.id) as client:
        response = await client.get(f"/courses/{due['course_id']}/assignments")
    assert response.status_code == 200
    first = Page(response.text).find("row", "/Not submitted/")[0]
    assert text(first).startswith(due["title"]) and f"{day_label(due['date'])}, 11:59 PM" in text(first)


async def test_the_teacher_is_in_the_course_row_of_the_courses_page() -> None:
    app, _store, episode = new_world(3, ask="teacher")
    teacher = episode.bindings["teacher"]
    async with client_for(app, episode.id) as client:
        response = await client.get("/courses")
    (cell,) = Page(response.text).find("cell", r"/^(Dr|Prof)\. /", within=teacher["course_label"])
    assert text(cell) == teacher["name"] and teacher["name"].endswith(f"{teacher['first']} {teacher['last']}")


@pytest.mark.parametrize("seed", [1, 2, 5])
async def test_the_students_awaiting_a_grade_are_the_rows_that_need_grading(seed: int) -> None:
    app, _store, episode = new_world(seed, ask="to_grade")
    ask = episode.bindings["to_grade"]
    assert episode.bindings["target"] == {"id": ask["assignment_id"], "name": ask["title"]}
    async with client_for(app, episode.id) as client:
        response = await client.get(f"/courses/{ask['course_id']}/assignments/{ask['assignment_id']}/submissions")
        other = await client.get(f"/courses/{ask['other_course_id']}/assignments")
    rows = Page(response.text).find("row", "/Needs grading/")
    shown = [re.sub(r" \d{1,2} [A-Z][a-z]{2} \d{4}.*", "", text(r)) for r in rows]
    assert len(shown) >= 2 and sorted(shown) == sorted(ask["names"])
    assert Page(other.text).find("link", ask["title"])  # the other section's assignment of the same name


async def test_the_missing_assignment_is_listed_only_in_another_course() -> None:
    app, _store, episode = new_world(2, ask="missing")
    missing = episode.bindings["missing"]
    assert missing["course_id"] != missing["home_course_id"]
    async with client_for(app, episode.id) as client:
        asked = Page((await client.get(f"/courses/{missing['course_id']}/assignments")).text)
        home = Page((await client.get(f"/courses/{missing['home_course_id']}/assignments")).text)
    assert not asked.find("link", missing["title"]) and asked.find("link", missing["last_listed"])
    assert home.find("link", missing["title"])


@pytest.mark.parametrize("path", ["/courses/c9/grades", "/courses/c1/assignments/a999/submissions",
                                  "/courses/%3Cb%3E/grades", "/courses/c4/assignments/a001/submissions",
                                  "/calendar?month=2025-13"])
async def test_malformed_or_unknown_ids_on_the_answer_pages_are_4xx(path: str) -> None:
    app, _store, episode = new_world(1, ask="to_grade")
    async with client_for(app, episode.id) as client:
        response = await client.get(path)
    assert 400 <= response.status_code < 500, (path, response.status_code)


async def test_a_malformed_notice_on_the_grades_page_shows_no_flash() -> None:
    app, _store, episode = new_world(1, ask="total")
    async with client_for(app, episode.id) as client:
        response = await client.get(f"/courses/{episode.bindings['total']['course_id']}/grades?notice=%00%FF")
    assert response.status_code == 200
    assert Page(response.text).find("status", "Course total")


# --- target_missing ---------------------------------------------------------------------------

def test_target_missing_removes_the_problem_set_and_keeps_the_other_sections() -> None:
    plain = new_world(3, ask="to_grade")[2]
    episode = new_world(3, faults=TARGET_MISSING, ask="to_grade")[2]
    target = plain.bindings["target"]["id"]
    state, detail = episode.state, episode.bindings["infeasible"]
    assert detail["removed"] == target and state.assignment(target) is None
    assert not [s for s in state.submissions if s.assignment_id == target]
    assert detail["submissions"] and all(plain.state.submission(i) for i in detail["submissions"])
    near = state.assignment(detail["near_miss"]["id"])
    assert near is not None and near.title == plain.bindings["to_grade"]["title"]
    assert near.course_id == plain.bindings["to_grade"]["other_course_id"]
    assert [s for s in state.submissions if s.assignment_id == near.id and s.score is None]  # still a near miss
    again = new_world(3, faults=TARGET_MISSING, ask="to_grade")[2]
    assert again.bindings["infeasible"] == detail and again.state_bytes() == episode.state_bytes()


async def test_after_target_missing_no_page_of_the_section_shows_the_problem_set() -> None:
    app, _store, episode = new_world(2, faults=TARGET_MISSING, ask="to_grade")
    ask = episode.bindings["to_grade"]
    async with client_for(app, episode.id) as client:
        listing = Page((await client.get(f"/courses/{ask['course_id']}/assignments")).text)
        gradebook = await client.get(f"/courses/{ask['course_id']}/grades")
        gone = await client.get(f"/courses/{ask['course_id']}/assignments/{ask['assignment_id']}/submissions")
    assert not listing.find("link", ask["title"])
    assert ask["title"] not in gradebook.text
    assert gone.status_code == 404


"""Server-rendered pages: the extension only in its announcement, instructor pages only for the
sections the user teaches, the quiz never showing its key, and 4xx pages with a message."""

from typing import Any

import pytest

from tests.sites.worlds import assert_error_page, world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=2)


async def test_the_new_due_date_is_only_in_the_announcement(world: tuple[Any, Any]) -> None:
    app, episode = world
    ext = episode.bindings["extended"]
    base = f"/courses/{ext['course_id']}"
    async with client_for(app, episode.id) as client:
        page = await client.get(f"{base}/assignments/{ext['assignment_id']}")
        assert ext["old_day"] in page.text and ext["new_day"] not in page.text
        calendar = await client.get(f"/calendar?month={ext['old_date'][:7]}")
        assert f"{ext['code']}: {ext['title']} due" in calendar.text
        listing = Doc((await client.get(f"{base}/announcements")).text)
        assert listing.links("Schedule update for this week")
        note = await client.get(f"{base}/announcements/{ext['announcement_id']}")
        assert f"{ext['title']} is now due" in note.text


async def test_two_sections_and_instructor_pages(world: tuple[Any, Any]) -> None:
    app, episode = world
    grade, quiz = episode.bindings["grade"], episode.bindings["quiz"]
    async with client_for(app, episode.id) as client:
        home = Doc((await client.get("/")).text)
        labels = [a.text for a in home.all("a") if a.text.startswith(grade["code"])]
        assert len(labels) == 2 and grade["course_label"] in labels
        listing = Doc((await client.get(
            f"/courses/{grade['course_id']}/assignments/{grade['assignment_id']}/submissions")).text)
        assert listing.links(f"Grade {grade['student_name']}")
        other = Doc((await client.get(
            f"/courses/{grade['other_course_id']}/assignments/{grade['assignment_id']}/submissions")).text)
        assert not other.links(f"Grade {grade['student_name']}")
        grading = Doc((await client.get(
            f"/courses/{grade['course_id']}/submissions/{grade['submission_id']}/grade")).text)
        assert grading.labelled(f"Score (out of {grade['points']})").tag == "input"
        refused = await client.get(f"/courses/{quiz['course_id']}/announcements/new")
        assert refused.status_code == 403 and "instructors" in refused.text
        student_nav = Doc((await client.get(f"/courses/{quiz['course_id']}")).text)
        assert student_nav.links("Quizzes") and not student_nav.links("Gradebook")


async def test_the_quiz_page_never_shows_the_key(world: tuple[Any, Any]) -> None:
    app, episode = world
    q = episode.bindings["quiz"]
    quiz = episode.state.quiz(q["quiz_id"])
    assert quiz is not None
    async with client_for(app, episode.id) as client:
        info = await client.get(f"/courses/{q['course_id']}/quizzes/{q['quiz_id']}")
        assert "You have one attempt" in info.text
        take = Doc((await client.get(f"/courses/{q['course_id']}/quizzes/{q['quiz_id']}/take")).text)
    radios = take.all("input", type="radio")
    boxes = take.all("input", type="checkbox")
    assert {r.attrs["name"] for r in radios} == {quiz.questions[0].id, quiz.questions[3].id}
    assert {b.attrs["name"] for b in boxes} == {quiz.questions[1].id} and len(boxes) == 4
    for element in take.elements:
        assert "key" not in element.attrs and "checked" not in element.attrs
    assert "Friday" not in take.all("form")[0].text  # the short answer's accepted text


async def test_feedback_shows_on_the_submission_page_with_resubmit(world: tuple[Any, Any]) -> None:
    app, episode = world
    r = episode.bindings["resubmit"]
    async with client_for(app, episode.id) as client:
        grades = Doc((await client.get(f"/courses/{r['course_id']}/grades")).text)
        assert len(grades.links("View feedback")) == 2
        assert "Please resubmit" not in (await client.get(f"/courses/{r['course_id']}/grades")).text
        page = Doc((await client.get(f"/courses/{r['course_id']}/submissions/{r['submission_id']}")).text)
        assert "Please resubmit" in page.all("blockquote")[0].text and page.links("Resubmit")


@pytest.mark.parametrize(("path", "status"), [
    ("/courses/c9", 404), ("/courses/c3/assignments/a001", 404), ("/courses/c1/quizzes/qz01", 404),
    ("/courses/c3/submissions/sub9999", 404), ("/courses/c3/announcements/new", 403),
    ("/courses/c3/assignments/a009/submissions", 403), ("/calendar?month=soon", 400),
    ("/courses/c3/discussions/t999", 404), ("/courses/c1/lessons/l999", 404),
])
async def test_bad_pages_answer_4xx_with_a_message(world: tuple[Any, Any], path: str, status: int) -> None:
    await assert_error_page(client_for, world, path, status, "Back to your dashboard")


async def test_pages_emit_listing_and_inspect_events(world: tuple[Any, Any]) -> None:
    app, episode = world
    ext = episode.bindings["extended"]
    state = episode.state
    async with client_for(app, episode.id) as client:
        await client.get(f"/courses/{ext['course_id']}/announcements")
        await client.get(f"/courses/{ext['course_id']}/announcements/{ext['announcement_id']}")
    listing, inspect = episode.events[-2:]
    assert listing.name == "view_announcements" and set(listing.detail["announcement_ids"]) == {
        a.id for a in state.announcements if a.course_id == ext["course_id"]}
    assert inspect.kind == "inspect" and inspect.target == ext["announcement_id"]

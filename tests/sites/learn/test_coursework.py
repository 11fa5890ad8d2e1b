"""The coursework features: the inbox, uploads, grade reports, rubrics and regrade requests, peer reviews,
what-if grades, module prerequisites, extensions and syllabi. Each write is checked whole (a refused one
changes nothing), and the pages show what the tasks read, and no more."""

import base64
import json
import re
from typing import Any

import pytest

from grader.verdict import grade
from scenarios.events import EventKind
from sites.learn.standing import course_total
from tests.catalog import builtin_catalog
from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=5)


def commits(episode: Any) -> list[str]:
    return [e.name for e in episode.events if e.kind == EventKind.commit]


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


@pytest.mark.parametrize("seed", [1, 2, 3, 7])
def test_coursework_traps_hold(seed: int) -> None:
    _app, _store, episode = new_world(seed=seed)
    state, b = episode.state, episode.bindings
    # retake: the one attempt is used and cost points
    retake = b["retake"]
    assert [a.score for a in state.attempts_of(retake["quiz_id"], "u001")] == [float(retake["score"])] != [8.0]
    # bulk: exactly the students of the section without a submission, and the other section has its own
    handed = {s.student_id for s in state.submissions if s.assignment_id == b["bulk"]["assignment_id"]}
    section = state.course(b["bulk"]["course_id"])
    assert sorted(b["bulk"]["ids"]) == sorted(set(section.student_ids) - handed) and len(b["bulk"]["ids"]) == 3
    # regrade: exactly one rubric line in the course scored below its level
    slips = [(s.id, r.criterion_id) for s in state.submissions if s.student_id == "u001" and s.rubric_scores
             for r in s.rubric_scores
             if r.points != state.assignment(s.assignment_id).rubric[int(r.criterion_id[2:]) - 1].points_for(r.level)]
    assert slips == [(b["regrade"]["submission_id"], b["regrade"]["criterion_id"])]
    for s in state.submissions:
        if s.rubric_scores:
            assert s.score == sum(r.points for r in s.rubric_scores)
    # inbox: the make-up message's sender wrote others that look alike; a classmate mentions the make-up too
    wanted = state.message(b["inbox"]["message_id"])
    same_sender = [m for m in state.messages if m.sender_id == wanted.sender_id]
    assert "make-up" in wanted.body and len(same_sender) == 3
    assert sum("make-up" in m.body for m in state.messages) == 2
    # check-in: locked by week 2, whose four lessons are not done
    quiz = state.quiz(b["checkin"]["quiz_id"])
    assert state.locked_by(quiz.module_id).id == b["checkin"]["lock_module_id"]
    assert len(b["checkin"]["lesson_ids"]) == 4


async def test_message_goes_to_people_of_the_course_only(world: tuple[Any, Any]) -> None:
    app, episode = world
    bulk = episode.bindings["bulk"]
    outsider = next(sid for sid in episode.state.course(bulk["other_course_id"]).student_ids)
    body = {"course_id": bulk["course_id"], "subject": bulk["subject"], "body": bulk["body"]}
    async with client_for(app, episode.id) as client:
        refused = await client.post("/api/messages", json={**body, "recipient_ids": [*bulk["ids"], outsider]})
        assert refused.status_code == 422 and "not in" in refused.json()["detail"]
        assert (await client.post("/api/messages", json={**body, "recipient_ids": []})).status_code == 422
        made = await client.post("/api/messages", json={**body, "recipient_ids": bulk["ids"]})
        assert made.status_code == 201, made.text
        listing = Doc((await client.get(f"/inbox?course={bulk['course_id']}")).text)
        assert listing.links(f"{bulk['subject']}, from {episode.state.user.name}")
        compose = Doc((await client.get(f"/inbox/new?course={bulk['course_id']}")).text)
        boxes = {e.attrs["value"] for e in compose.all("input") if e.attrs.get("type") == "checkbox"}
        assert outsider not in boxes and set(bulk["ids"]) <= boxes
    assert commits(episode) == ["send_message"]
    assert episode.state.messages[-1].recipient_ids == bulk["ids"]


async def test_reply_goes_to_the_sender_in_the_same_thread(world: tuple[Any, Any]) -> None:
    app, episode = world
    inbox = episode.bindings["inbox"]
    async with client_for(app, episode.id) as client:
        made = await client.post(f"/api/messages/{inbox['message_id']}/replies", json={"body": inbox["text"]})
        assert made.status_code == 201, made.text
        page = await client.get(f"/inbox/{inbox['message_id']}")
        assert inbox["text"] in page.text
        assert (await client.post("/api/messages/msg999/replies", json={"body": "hello"})).status_code == 404
        assert (await client.get("/inbox?course=c99")).status_code == 404
    reply = episode.state.messages[-1]
    assert reply.reply_to == inbox["message_id"] and reply.recipient_ids == [inbox["sender_id"]]
    assert reply.subject == f"Re: {inbox['subject']}"


async def test_upload_checks_the_file_and_it_can_be_attached(world: tuple[Any, Any]) -> None:
    app, episode = world
    up = episode.bindings["upload"]
    before = len(episode.state.files)
    async with client_for(app, episode.id) as client:
        bad = [({"name": "a.txt", "content_type": "text/plain", "data": "%%%"}, 422),
               ({"name": "a.pdf", "content_type": "application/pdf", "data": b64(b"not a pdf")}, 422),
               ({"name": "a.txt", "content_type": "text/plain", "data": b64(b"\xff\xfe\xfa")}, 422),
               ({"name": "a.txt", "content_type": "text/plain", "data": b64(b"x" * (600 * 1024))}, 413),
               ({"name": "../a.txt", "content_type": "text/plain", "data": b64(b"hi")}, 422),
               ({"name": "a.exe", "content_type": "application/x-msdownload", "data": b64(b"MZ")}, 422)]
        for body, status in bad:
            assert (await client.post("/api/files", json=body)).status_code == status, body
        made = await client.post("/api/files", json={"name": up["file_name"], "content_type": "text/plain",
                                                    "data": b64(up["file_text"].encode())})
        assert made.status_code == 201, made.text
        file_id = made.json()["file"]["id"]
        assert file_id not in {f.id for f in episode.state.files[:before]}
        sent = await client.post(f"/api/assignments/{up['assignment_id']}/submissions",
                                 json={"text": up["text"], "file_id": file_id})
        assert sent.status_code == 201, sent.text
    assert len(episode.state.files) == before + 1
    assert episode.state.submissions[-1].attachment.name == up["file_name"]
    assert commits(episode) == ["upload_file", "submit_assignment"]


async def test_grade_report_is_prepared_once_and_downloads_as_a_file(world: tuple[Any, Any]) -> None:
    app, episode = world
    report = episode.bindings["report"]
    base = f"/courses/{report['course_id']}"
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"{base}/grade-report")).status_code == 404
        book = Doc((await client.get(f"{base}/grades")).text)
        assert book.buttons("Prepare grade report") and not book.links("Download grade report")
        for _ in range(2):
            assert (await client.post(f"/api/courses/{report['course_id']}/reports")).status_code == 201
        taking = episode.bindings["upload"]["course_id"]
        assert (await client.post(f"/api/courses/{taking}/reports")).status_code == 403
        assert Doc((await client.get(f"{base}/grades")).text).links("Download grade report")
        file = await client.get(f"{base}/grade-report")
        assert file.headers["content-disposition"].startswith("attachment;")
        cell = Doc(file.text).named("td", f"Average for {report['title']}")
        assert [c.text for c in cell] == [report["average"]]
    assert commits(episode) == ["prepare_report"] and len(episode.state.reports) == 1


async def test_regrade_request_and_rubric_pages(world: tuple[Any, Any]) -> None:
    app, episode = world
    rg = episode.bindings["regrade"]
    base = f"/courses/{rg['course_id']}"
    async with client_for(app, episode.id) as client:
        feedback = Doc((await client.get(f"{base}/submissions/{rg['submission_id']}")).text)
        assert feedback.links("Request a regrade") and feedback.links("Rubric")
        rubric = Doc((await client.get(f"{base}/assignments/{rg['assignment_id']}")).text)
        cells = rubric.named("td", f"{rg['criterion']}: {rg['level']}")
        assert [c.text for c in cells] == [f"{rg['rubric_points']} pts"]
        url = f"/api/submissions/{rg['submission_id']}/regrades"
        assert (await client.post(url, json={"criterion_id": "cr9", "message": "Please look again"})).status_code == 422
        made = await client.post(url, json={"criterion_id": rg["criterion_id"], "message": "Please look again"})
        assert made.status_code == 201, made.text
        again = await client.post(url, json={"criterion_id": rg["criterion_id"], "message": "Please look again"})
        assert again.status_code == 409
        assert "Regrade pending" in (await client.get(f"{base}/submissions/{rg['submission_id']}")).text
    assert commits(episode) == ["request_regrade"]


async def test_peer_review_needs_every_criterion_and_is_final(world: tuple[Any, Any]) -> None:
    app, episode = world
    peer = episode.bindings["peer"]
    review_id = peer["review_ids"][0]
    ratings = {f"cr{n + 1}": level for n, level in enumerate(peer["levels"][0])}
    async with client_for(app, episode.id) as client:
        url = f"/api/peer-reviews/{review_id}"
        partial = {k: v for k, v in ratings.items() if k != "cr4"}
        assert (await client.put(url, json={"ratings": partial, "comment": "Good"})).status_code == 422
        unknown_level = {**ratings, "cr1": "Superb"}
        assert (await client.put(url, json={"ratings": unknown_level, "comment": "Good"})).status_code == 422
        assert episode.state.peer_reviews[0].done_at is None
        assert (await client.put(url, json={"ratings": ratings, "comment": peer["comments"][0]})).status_code == 200
        assert (await client.put(url, json={"ratings": ratings, "comment": "again"})).status_code == 409
        listing = Doc((await client.get(
            f"/courses/{peer['course_id']}/assignments/{peer['assignment_id']}/peer-reviews")).text)
        assert listing.links(f"View your review of {peer['authors'][0]}")
        assert listing.links(f"Review {peer['authors'][1]}")
    assert commits(episode) == ["peer_review"]


async def test_what_if_counts_only_ungraded_work(world: tuple[Any, Any]) -> None:
    app, episode = world
    w = episode.bindings["whatif"]
    base = f"/courses/{w['course_id']}/grades/what-if"
    graded = next(s for s in episode.state.submissions if s.student_id == "u001" and s.score is not None
                  and episode.state.assignment(s.assignment_id).course_id == w["course_id"])
    async with client_for(app, episode.id) as client:
        page = Doc((await client.get(f"{base}?{w['first_id']}={w['first_score']}&{w['second_id']}={w['second_score']}"
                                     f"&{graded.assignment_id}=0")).text)
        assert [e.text for e in page.role("status")] == [f"{w['percent']}%"]
        blank_page = (await client.get(base)).text
        blank = Doc(blank_page)
        assert [e.text for e in blank.role("status")] == ["–"]
        wrong = await client.get(f"{base}?{w['first_id']}=999")
        assert wrong.status_code == 200 and "between 0 and" in wrong.text
        teaching = episode.bindings["bulk"]["course_id"]
        assert (await client.get(f"/courses/{teaching}/grades/what-if")).status_code == 403
    assert f"{course_total(episode.state, w['course_id']):.1f}%" in blank_page
    assert commits(episode) == []


async def test_check_in_stays_locked_until_week_two_is_done(world: tuple[Any, Any]) -> None:
    app, episode = world
    ci = episode.bindings["checkin"]
    quiz = episode.state.quiz(ci["quiz_id"])
    answers = {q.id: list(q.key) for q in quiz.questions}
    async with client_for(app, episode.id) as client:
        url = f"/api/quizzes/{ci['quiz_id']}/attempts"
        assert (await client.post(url, json={"answers": answers})).status_code == 409
        assert (await client.get(f"/courses/{ci['course_id']}/quizzes/{ci['quiz_id']}/take")).status_code == 409
        page = Doc((await client.get(f"/courses/{ci['course_id']}/quizzes/{ci['quiz_id']}")).text)
        assert page.links(ci["lock_title"]) and not page.links("Take the quiz")
        for lesson_id in ci["lesson_ids"]:
            assert (await client.put(f"/api/lessons/{lesson_id}/done", json={"done": True})).status_code == 200
        made = await client.post(url, json={"answers": answers})
        assert made.status_code == 201 and made.json()["attempt"]["score"] == ci["points"]
    assert commits(episode) == ["mark_done"] * 4 + ["submit_quiz"]


async def test_extension_is_for_one_student_and_later_than_the_due_date(world: tuple[Any, Any]) -> None:
    app, episode = world
    ext = episode.bindings["extend"]
    url = f"/api/assignments/{ext['assignment_id']}/extensions"
    assignment = episode.state.assignment(ext["assignment_id"])
    due = assignment.due_at
    async with client_for(app, episode.id) as client:
        outsider = episode.state.course(ext["other_course_id"]).student_ids[0]
        assert (await client.post(url, json={"student_id": outsider, "date": ext["date"]})).status_code == 422
        assert (await client.post(url, json={"student_id": ext["student_id"], "date": due[:10]})).status_code == 409
        assert (await client.post(url, json={"student_id": ext["student_id"], "date": "2025-02-30"})).status_code == 422
        made = await client.post(url, json={"student_id": ext["student_id"], "date": ext["date"]})
        assert made.status_code == 201, made.text
        listing = await client.get(f"/courses/{ext['course_id']}/assignments/{ext['assignment_id']}/submissions")
        assert f"Extended to {ext['day']}" in listing.text
    assert assignment.due_at == due
    assert episode.state.due_for(assignment, ext["student_id"]).startswith(ext["date"])
    assert commits(episode) == ["extend"]


async def test_syllabus_downloads_with_its_late_policy(world: tuple[Any, Any]) -> None:
    app, episode = world
    sy = episode.bindings["syllabus"]
    async with client_for(app, episode.id) as client:
        home = Doc((await client.get(f"/courses/{sy['course_id']}")).text)
        assert home.links("Syllabus")
        file = await client.get(f"/courses/{sy['course_id']}/syllabus")
        assert file.headers["content-disposition"].startswith("attachment;")
        note = Doc(file.text).named("p", "Late work policy")
        assert re.search(rf"loses {sy['penalty']}% of its points", note[0].text)
        teaching = episode.bindings["bulk"]["course_id"]
        assert (await client.get(f"/courses/{teaching}/syllabus")).status_code == 404


@pytest.mark.parametrize(("uploads", "attach", "passes"), [(1, "first", True), (2, "second", True),
                                                           (1, "older", False)])
async def test_the_hand_in_task_wants_a_file_uploaded_in_the_episode_attached(
        uploads: int, attach: str, passes: bool) -> None:
    """learn_submit_uploaded_file: the copy uploaded when a swallowed submission is redone (the file is chosen
    again) is as good as the first; a file the user had before is not."""
    app, _store, episode = new_world(seed=5)
    up = episode.bindings["upload"]
    initial = json.loads(episode.initial_state)
    older = episode.state.files[0].id
    async with client_for(app, episode.id) as client:
        made = [(await client.post("/api/files", json={"name": up["file_name"], "content_type": "text/plain",
                                                       "data": b64(up["file_text"].encode())})).json()["file"]["id"]
                for _ in range(uploads)]
        file_id = {"first": made[0], "second": made[-1], "older": older}[attach]
        sent = await client.post(f"/api/assignments/{up['assignment_id']}/submissions",
                                 json={"text": up["text"], "file_id": file_id})
        assert sent.status_code == 201, sent.text
    task = builtin_catalog().tasks["learn_submit_uploaded_file"]
    verdict = grade(task, episode.bindings, initial, json.loads(episode.state_bytes()))
    attached = [c for c in verdict.negative_checks if c.desc.startswith("the attached file is one uploaded")]
    assert len(attached) == 1 and attached[0].passed is passes
    assert verdict.success is passes

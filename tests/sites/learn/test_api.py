"""The JSON API: each task's write and its events, all-or-nothing, and 4xx (never 500, never a
partial write) for malformed or impossible requests."""

from typing import Any

import pytest

from tests.sites.worlds import assert_refused_and_unchanged, commits, world_fixture

from . import client_for, new_world

world = world_fixture(new_world, seed=4)


def key_answers(episode: Any, quiz_id: str) -> dict[str, list[str]]:
    quiz = episode.state.quiz(quiz_id)
    assert quiz is not None
    return {q.id: list(q.key) for q in quiz.questions}


async def test_a_one_attempt_quiz_takes_one_attempt_and_scores_it(world: tuple[Any, Any]) -> None:
    app, episode = world
    quiz_id = episode.bindings["quiz"]["quiz_id"]
    answers = key_answers(episode, quiz_id)
    short = next(q for q, a in answers.items() if a == ["Friday"])
    async with client_for(app, episode.id) as client:
        first = await client.post(f"/api/quizzes/{quiz_id}/attempts",
                                  json={"answers": {**answers, short: ["  friday "]}})
        assert first.status_code == 201, first.text
        assert first.json()["attempt"]["score"] == 8
        again = await client.post(f"/api/quizzes/{quiz_id}/attempts", json={"answers": answers})
        assert again.status_code == 409 and "no attempts left" in again.json()["detail"]
        page = await client.get(f"/courses/{episode.bindings['quiz']['course_id']}/quizzes/{quiz_id}/take")
        assert page.status_code == 409
    assert len(episode.state.attempts_of(quiz_id, "u001")) == 1
    assert [e.name for e in commits(episode)] == ["submit_quiz"]


async def test_a_wrong_or_blank_answer_scores_nothing_for_that_question(world: tuple[Any, Any]) -> None:
    app, episode = world
    practice = episode.bindings["quiz"]["practice_id"]
    quiz = episode.state.quiz(practice)
    assert quiz is not None
    async with client_for(app, episode.id) as client:
        blank = await client.post(f"/api/quizzes/{practice}/attempts", json={"answers": {}})
        assert blank.status_code == 201 and blank.json()["attempt"]["score"] == 0
        wrong = [o.id for o in quiz.questions[0].options if o.id not in quiz.questions[0].key][:1]
        half = await client.post(f"/api/quizzes/{practice}/attempts",
                                 json={"answers": {quiz.questions[0].id: wrong, quiz.questions[1].id: ["4"]}})
        assert half.json()["attempt"]["score"] == 2


async def test_submission_with_a_file_and_the_attempt_limit(world: tuple[Any, Any]) -> None:
    app, episode = world
    submit, resubmit = episode.bindings["submit"], episode.bindings["resubmit"]
    state = episode.state
    async with client_for(app, episode.id) as client:
        response = await client.post(f"/api/assignments/{submit['assignment_id']}/submissions",
                                     json={"text": "Mine", "file_id": submit["file_id"]})
        assert response.status_code == 201, response.text
        assert response.json()["submission"]["attachment"]["name"] == submit["file_name"]
        again = await client.post(f"/api/assignments/{submit['assignment_id']}/submissions", json={"text": "Again"})
        assert again.status_code == 409 and "attempt" in again.json()["detail"]
        second = await client.post(f"/api/assignments/{resubmit['assignment_id']}/submissions",
                                   json={"text": resubmit["text"]})
        assert second.status_code == 201 and second.json()["submission"]["attempt"] == 2
        assert second.json()["submission"]["late"] is True
    assert state.submission(resubmit["submission_id"]).score is not None  # type: ignore[union-attr]


async def test_grading_is_for_instructors_and_keeps_one_decimal(world: tuple[Any, Any]) -> None:
    app, episode = world
    grade, resubmit = episode.bindings["grade"], episode.bindings["resubmit"]
    state = episode.state
    path = f"/api/submissions/{grade['submission_id']}/grade"
    async with client_for(app, episode.id) as client:
        for bad in (17.25, -1, 21, 1e308):
            response = await client.post(path, json={"score": bad, "feedback": "x"})
            assert response.status_code == 422, (bad, response.text)
        own = await client.post(f"/api/submissions/{resubmit['submission_id']}/grade", json={"score": 10})
        assert own.status_code == 403
        ok = await client.post(path, json={"score": 17.5, "feedback": grade["feedback"]})
        assert ok.status_code == 200, ok.text
        page = await client.get(f"/courses/{grade['course_id']}/submissions/{grade['submission_id']}/grade")
        assert "Current grade: 17.5 / 20 · feedback saved" in page.text
    record = state.submission(grade["submission_id"])
    assert record and record.score == 17.5 and record.feedback == grade["feedback"]
    assert [e.name for e in commits(episode)] == ["grade"]


async def test_announcements_lessons_posts_and_reminders(world: tuple[Any, Any]) -> None:
    app, episode = world
    b, state = episode.bindings, episode.state
    async with client_for(app, episode.id) as client:
        student = await client.post(f"/api/courses/{b['quiz']['course_id']}/announcements",
                                    json={"title": "Hello", "body": "Hello class"})
        assert student.status_code == 403
        posted = await client.post(f"/api/courses/{b['announce']['course_id']}/announcements",
                                   json={"title": b["announce"]["title"], "body": b["announce"]["body"]})
        assert posted.status_code == 201
        done = await client.put(f"/api/lessons/{b['lessons']['ids'][0]}/done", json={"done": True})
        assert done.status_code == 200
        twice = await client.put(f"/api/lessons/{b['lessons']['done_id']}/done", json={"done": True})
        assert twice.status_code == 409
        reply = await client.post(f"/api/topics/{b['reply']['topic_id']}/posts",
                                  json={"body": b["reply"]["text"], "reply_to": b["reply"]["post_id"]})
        assert reply.status_code == 201
        foreign = next(p.id for p in state.posts if p.topic_id != b["reply"]["topic_id"])
        elsewhere = await client.post(f"/api/topics/{b['reply']['topic_id']}/posts",
                                      json={"body": "Hi there", "reply_to": foreign})
        assert elsewhere.status_code == 404
        past = await client.post("/api/calendar/reminders", json={"title": "Old", "date": "2000-01-01"})
        assert past.status_code == 409 and "passed" in past.json()["detail"]
        unreal = await client.post("/api/calendar/reminders", json={"title": "Odd", "date": "2030-02-30"})
        assert unreal.status_code == 422
        added = await client.post("/api/calendar/reminders", json={"title": "Go", "date": b["extended"]["new_date"]})
        assert added.status_code == 201
        removed = await client.delete(f"/api/calendar/reminders/{added.json()['reminder']['id']}")
        assert removed.status_code == 200
    assert state.lesson(b["lessons"]["ids"][0]).done  # type: ignore[union-attr]
    assert [a.title for a in state.announcements if a.course_id == b["announce"]["course_id"]][-1] == \
        b["announce"]["title"]
    assert state.reminders == []


@pytest.mark.parametrize(("method", "path", "body", "status"), [
    ("POST", "/api/assignments/a999/submissions", {"text": "Hi"}, 404),
    ("POST", "/api/assignments/a001/submissions", {"text": "Hi"}, 403),
    ("POST", "/api/assignments/a009/submissions", {"text": "<b>hi</b>"}, 422),
    ("POST", "/api/assignments/a011/submissions", {"text": ""}, 422),
    ("POST", "/api/assignments/a011/submissions", {"text": "x", "file_id": "f999"}, 404),
    ("POST", "/api/assignments/a011/submissions", {"text": "x" * 5001}, 422),
    ("POST", "/api/quizzes/qz99/attempts", {"answers": {}}, 404),
    ("POST", "/api/quizzes/qz01/attempts", {"answers": {}}, 409),
    ("POST", "/api/quizzes/qz03/attempts", {"answers": {"qz03q9": ["x"]}}, 422),
    ("POST", "/api/quizzes/qz03/attempts", {"answers": {"qz03q1": ["qz03q1o1", "qz03q1o2"]}}, 422),
    ("POST", "/api/quizzes/qz03/attempts", {"answers": {"qz03q1": ["qz03q2o1"]}}, 422),
    ("POST", "/api/quizzes/qz03/attempts", {"answers": "all of them"}, 422),
    ("PUT", "/api/lessons/l999/done", {"done": True}, 404),
    ("PUT", "/api/lessons/l001/done", {"done": "yes"}, 422),
    ("POST", "/api/topics/t001/posts", {"body": "<script>x</script>"}, 422),
    ("POST", "/api/topics/t999/posts", {"body": "Hello"}, 404),
    ("POST", "/api/calendar/reminders", {"title": "x" * 121, "date": "2030-01-01"}, 422),
    ("POST", "/api/calendar/reminders", {"title": "Fine", "date": "tomorrow"}, 422),
    ("POST", "/api/submissions/sub9999/grade", {"score": 5}, 404),
    ("POST", "/api/submissions/sub0001/grade", {"score": "5"}, 422),
    ("POST", "/api/courses/c9/announcements", {"title": "Hello", "body": "Hello all"}, 404),
    ("POST", "/api/courses/c1/announcements", {"title": "Hi", "body": "Hello all"}, 422),
    ("DELETE", "/api/calendar/reminders/rem999", None, 404),
])
async def test_bad_requests_are_4xx_and_change_nothing(world: tuple[Any, Any], method: str, path: str,
                                                       body: Any, status: int) -> None:
    await assert_refused_and_unchanged(client_for, world, method, path, body, status)

"""The JSON API the platform's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing: a quiz attempt is stored whole with its score, or not at all), steps the episode clock
once and records one `commit` event whose `touched` lists the ids it changed. Errors are 4xx
with a `detail` message: 404 for unknown ids, 403 for instructor actions in a course the user
takes, 409 for a request that does not make sense now (no attempts left, a date in the past),
422 for a malformed body.
"""

from datetime import date
from decimal import Decimal
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.learn.generator import score_attempt
from sites.learn.models import (
    Announcement,
    AnnouncementBody,
    Attachment,
    Attempt,
    AttemptBody,
    Course,
    DoneBody,
    GradeBody,
    LearnEpisode,
    LearnState,
    Post,
    PostBody,
    Reminder,
    ReminderBody,
    Submission,
    SubmitBody,
)

MAX_REMINDERS = 50


def _teaching(state: LearnState, course_id: str) -> Course:
    course = get_or_404(state.courses, course_id, "course")
    if course.role != "instructor":
        raise HTTPException(403, f"You are a student in {course.code}-{course.section}; only its instructors can "
                                 "do that.")
    return course


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    # -- student: submissions, quizzes, lessons, discussions -------------------------------------------

    @router.post("/assignments/{assignment_id}/submissions", status_code=201)
    @hook_point("submit", "write", target=lambda kw: kw["assignment_id"])
    async def submit(assignment_id: str, body: SubmitBody, request: Request,
                     episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        assignment = get_or_404(state.assignments, assignment_id, "assignment")
        course = get_or_404(state.courses, assignment.course_id, "course")
        if course.role != "student":
            raise HTTPException(403, "You teach this course: students submit, instructors grade.")
        earlier = state.submissions_of(assignment.id, state.user.id)
        if len(earlier) >= assignment.allowed_attempts:
            raise HTTPException(409, f"You have used all {assignment.allowed_attempts} submission attempt"
                                     f"{'s' if assignment.allowed_attempts > 1 else ''} for {assignment.title}.")
        if not body.text and body.file_id is None:
            raise HTTPException(422, "text: write something or attach a file")
        attachment = None
        if body.file_id is not None:
            file = get_or_404(state.files, body.file_id, detail=f"no file {body.file_id!r} in your files")
            attachment = Attachment(file_id=file.id, name=file.name, size_kb=file.size_kb, mime=file.mime)
        at = episode.clock.stamp()
        record = Submission(id=state.take_id("submission", "sub"), assignment_id=assignment.id,
                            student_id=state.user.id, attempt=len(earlier) + 1, submitted_at=at, text=body.text,
                            attachment=attachment, late=at > assignment.due_at)
        state.submissions.append(record)
        episode.emit.commit("submit_assignment", assignment.id, touched=[record.id])
        return {"submission": record.model_dump(),
                "url": f"/courses/{course.id}/assignments/{assignment.id}"}

    @router.post("/quizzes/{quiz_id}/attempts", status_code=201)
    @hook_point("submit_quiz", "write", target=lambda kw: kw["quiz_id"])
    async def submit_quiz(quiz_id: str, body: AttemptBody, request: Request,
                          episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        quiz = get_or_404(state.quizzes, quiz_id, "quiz")
        earlier = state.attempts_of(quiz.id, state.user.id)
        if len(earlier) >= quiz.allowed_attempts:
            raise HTTPException(409, f"You have no attempts left for {quiz.title} (allowed: {quiz.allowed_attempts}).")
        questions = {q.id: q for q in quiz.questions}
        unknown = sorted(set(body.answers) - set(questions))
        if unknown:
            raise HTTPException(422, f"answers: no question {unknown[0]!r} in this quiz")
        for qid, given in body.answers.items():
            question = questions[qid]
            if question.kind == "short":
                if len(given) > 1:
                    raise HTTPException(422, f"answers.{qid}: one typed answer")
            else:
                options = {o.id for o in question.options}
                if not set(given) <= options or len(set(given)) != len(given):
                    raise HTTPException(422, f"answers.{qid}: choose among the question's options, each once")
                if question.kind == "single" and len(given) > 1:
                    raise HTTPException(422, f"answers.{qid}: choose one option")
        at = episode.clock.stamp()
        answers = {qid: list(body.answers.get(qid, [])) for qid in questions}
        attempt = Attempt(id=state.take_id("attempt", "at", 3), quiz_id=quiz.id, student_id=state.user.id,
                          number=len(earlier) + 1, submitted_at=at, answers=answers,
                          score=score_attempt(quiz, answers))
        state.attempts.append(attempt)
        episode.emit.commit("submit_quiz", quiz.id, touched=[attempt.id])
        return {"attempt": {"id": attempt.id, "score": attempt.score, "points": quiz.points},
                "url": f"/courses/{quiz.course_id}/quizzes/{quiz.id}/attempts/{attempt.id}"}

    @router.put("/lessons/{lesson_id}/done")
    @hook_point("mark_done", "write", target=lambda kw: kw["lesson_id"])
    async def mark_done(lesson_id: str, body: DoneBody, request: Request,
                        episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        lesson = get_or_404(state.lessons, lesson_id, "lesson")
        if lesson.done == body.done:
            raise HTTPException(409, f"“{lesson.title}” is already marked {'done' if body.done else 'not done'}.")
        episode.clock.stamp()
        lesson.done = body.done
        episode.emit.commit("mark_done" if body.done else "mark_not_done", lesson.id, touched=[lesson.id])
        return {"lesson": lesson.model_dump()}

    @router.post("/topics/{topic_id}/posts", status_code=201)
    @hook_point("post_reply", "write", target=lambda kw: kw["topic_id"])
    async def post_reply(topic_id: str, body: PostBody, request: Request,
                         episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        topic = get_or_404(state.topics, topic_id, "discussion")
        if body.reply_to is not None:
            get_or_404((p for p in state.posts if p.topic_id == topic.id), body.reply_to,
                       detail=f"no post {body.reply_to!r} in this discussion")
        at = episode.clock.stamp()
        post = Post(id=state.take_id("post", "p"), topic_id=topic.id, author_id=state.user.id, body=body.body,
                    posted_at=at, reply_to=body.reply_to)
        state.posts.append(post)
        episode.emit.commit("post_reply", topic.id, reply_to=body.reply_to, touched=[post.id])
        return {"post": post.model_dump(), "url": f"/courses/{topic.course_id}/discussions/{topic.id}"}

    # -- calendar ------------------------------------------------------------------------------------

    @router.post("/calendar/reminders", status_code=201)
    @hook_point("add_reminder", "write")
    async def add_reminder(body: ReminderBody, request: Request, episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        try:
            day = date.fromisoformat(body.date)
        except ValueError:
            raise HTTPException(422, "date: not a real date (use YYYY-MM-DD)") from None
        today = episode.clock.now().date()
        if day < today:
            raise HTTPException(409, "That date has already passed: choose today or later.")
        if (day - today).days > 366:
            raise HTTPException(422, "date: reminders can be at most a year ahead")
        if len(state.reminders) >= MAX_REMINDERS:
            raise HTTPException(409, f"You can keep at most {MAX_REMINDERS} reminders.")
        at = episode.clock.stamp()
        reminder = Reminder(id=state.take_id("reminder", "rem", 3), title=body.title, date=day.isoformat(),
                            created_at=at)
        state.reminders.append(reminder)
        episode.emit.commit("add_reminder", reminder.id, touched=[reminder.id])
        return {"reminder": reminder.model_dump(), "url": f"/calendar?month={day.isoformat()[:7]}"}

    @router.delete("/calendar/reminders/{reminder_id}")
    @hook_point("remove_reminder", "write", target=lambda kw: kw["reminder_id"])
    async def remove_reminder(reminder_id: str, request: Request, episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        reminder = get_or_404(state.reminders, reminder_id, "reminder")
        episode.clock.stamp()
        state.reminders.remove(reminder)
        episode.emit.commit("remove_reminder", reminder.id, touched=[reminder.id])
        return {"removed": reminder.id}

    # -- instructor: grading and announcements ----------------------------------------------------------

    @router.post("/submissions/{submission_id}/grade")
    @hook_point("grade", "write", target=lambda kw: kw["submission_id"])
    async def grade(submission_id: str, body: GradeBody, request: Request,
                    episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        record = get_or_404(state.submissions, submission_id, "submission")
        assignment = state.assignment(record.assignment_id)
        assert assignment is not None
        course = _teaching(state, assignment.course_id)
        score = Decimal(repr(body.score))
        if score.as_tuple().exponent < -1:  # type: ignore[operator]
            raise HTTPException(422, "score: at most one decimal place (e.g. 17.5)")
        if not 0 <= body.score <= assignment.points:
            raise HTTPException(422, f"score: between 0 and {assignment.points}")
        at = episode.clock.stamp()
        record.score, record.feedback, record.graded_at = float(body.score), body.feedback, at
        episode.emit.commit("grade", record.id, course=course.id, touched=[record.id])
        return {"submission": record.model_dump(),
                "url": f"/courses/{course.id}/assignments/{assignment.id}/submissions"}

    @router.post("/courses/{course_id}/announcements", status_code=201)
    @hook_point("announce", "write", target=lambda kw: kw["course_id"])
    async def announce(course_id: str, body: AnnouncementBody, request: Request,
                       episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        course = _teaching(state, course_id)
        at = episode.clock.stamp()
        record = Announcement(id=state.take_id("announcement", "an", 3), course_id=course.id, title=body.title,
                              body=body.body, author_id=state.user.id, posted_at=at)
        state.announcements.append(record)
        episode.emit.commit("post_announcement", course.id, touched=[record.id])
        return {"announcement": record.model_dump(), "url": f"/courses/{course.id}/announcements/{record.id}"}

    return router

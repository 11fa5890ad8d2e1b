"""The JSON API the platform's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing: a quiz attempt is stored whole with its score, or not at all), steps the episode clock
once and records one `commit` event whose `touched` lists the ids it changed. Errors are 4xx
with a `detail` message: 404 for unknown ids, 403 for instructor actions in a course the user
takes, 409 for a request that does not make sense now (no attempts left, a date in the past),
422 for a malformed body.
"""

import asyncio
import math
from datetime import date
from decimal import Decimal
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from scenarios.clock import iso, parse_iso
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.uploads import decoded_upload
from sites.learn.models import (
    UPLOAD_MAX_BYTES,
    Announcement,
    AnnouncementBody,
    Attachment,
    Attempt,
    AttemptBody,
    Course,
    DoneBody,
    Extension,
    ExtensionBody,
    File,
    GradeBody,
    LearnEpisode,
    LearnState,
    Message,
    MessageBody,
    PeerReviewBody,
    Post,
    PostBody,
    Regrade,
    RegradeBody,
    Reminder,
    ReminderBody,
    ReplyBody,
    Report,
    Submission,
    SubmitBody,
    UploadBody,
)
from sites.learn.quizzing import score_attempt

MAX_REMINDERS = 50
MAX_FILES = 60
# An upload is checked (type, size) before it is kept; a report is put together from every grade. Both
# take a moment, as on a real platform: the page says so and waits (the patience tasks are built on it).
UPLOAD_CHECKED_IN_S = 0.8
REPORT_PREPARED_IN_S = 1.5
EXTENSION_MAX_DAYS = 60


def _teaching(state: LearnState, course_id: str) -> Course:
    course = get_or_404(state.courses, course_id, "course")
    if course.role != "instructor":
        raise HTTPException(403, f"You are a student in {course.code}-{course.section}; only its instructors can "
                                 "do that.")
    return course


def _member(state: LearnState, course_id: str) -> Course:
    """A course the user takes or teaches (every course in the state is one)."""
    return get_or_404(state.courses, course_id, "course")


def _unlocked(state: LearnState, module_id: str | None) -> None:
    blocking = state.locked_by(module_id)
    if blocking is not None:
        raise HTTPException(409, f"This opens when you have finished every lesson of “{blocking.title}”.")


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
        _unlocked(state, quiz.module_id)
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
        _unlocked(state, lesson.module_id)
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

    @router.post("/files", status_code=201)
    @hook_point("upload_file", "write", target=lambda kw: kw["body"].name)
    async def upload_file(body: UploadBody, request: Request, episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type, max_bytes=UPLOAD_MAX_BYTES)
        if len(state.files) >= MAX_FILES:
            raise HTTPException(409, f"You can keep at most {MAX_FILES} files.")
        await asyncio.sleep(UPLOAD_CHECKED_IN_S)
        record = File(id=state.take_id("file", "f", 3), name=body.name, size_kb=max(1, math.ceil(len(data) / 1024)),
                      mime=body.content_type, uploaded_at=episode.clock.stamp())
        state.files.append(record)
        episode.emit.commit("upload_file", record.id, file_name=record.name, touched=[record.id])
        return {"file": record.model_dump()}

    # -- inbox ---------------------------------------------------------------------------------------

    @router.post("/messages", status_code=201)
    @hook_point("send_message", "write", target=lambda kw: kw["body"].course_id)
    async def send_message(body: MessageBody, request: Request, episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        course = _member(state, body.course_id)
        people = {course.instructor_id, *course.student_ids} - {state.user.id}
        recipients = list(dict.fromkeys(body.recipient_ids))
        outside = [r for r in recipients if r not in people]
        if outside:
            raise HTTPException(422, f"recipient_ids: {outside[0]!r} is not in {course.code}-{course.section}")
        at = episode.clock.stamp()
        record = Message(id=state.take_id("message", "msg", 3), course_id=course.id, sender_id=state.user.id,
                         recipient_ids=recipients, subject=body.subject, body=body.body, sent_at=at)
        state.messages.append(record)
        episode.emit.commit("send_message", record.id, course=course.id, touched=[record.id])
        return {"message": record.model_dump(), "url": f"/inbox/{record.id}"}

    @router.post("/messages/{message_id}/replies", status_code=201)
    @hook_point("reply_message", "write", target=lambda kw: kw["message_id"])
    async def reply_message(message_id: str, body: ReplyBody, request: Request,
                            episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        me = state.user.id
        original = get_or_404((m for m in state.messages if me == m.sender_id or me in m.recipient_ids),
                              message_id, "message")
        root = original.reply_to or original.id
        to = [original.sender_id] if original.sender_id != me else original.recipient_ids
        at = episode.clock.stamp()
        subject = original.subject if original.subject.startswith("Re: ") else f"Re: {original.subject}"
        record = Message(id=state.take_id("message", "msg", 3), course_id=original.course_id, sender_id=me,
                         recipient_ids=list(to), subject=subject, body=body.body, sent_at=at, reply_to=root)
        state.messages.append(record)
        episode.emit.commit("reply_message", root, reply_to=original.id, touched=[record.id])
        return {"message": record.model_dump(), "url": f"/inbox/{root}"}

    # -- rubrics: regrade requests and peer reviews -----------------------------------------------------

    @router.post("/submissions/{submission_id}/regrades", status_code=201)
    @hook_point("request_regrade", "write", target=lambda kw: kw["submission_id"])
    async def request_regrade(submission_id: str, body: RegradeBody, request: Request,
                              episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        record = get_or_404((s for s in state.submissions if s.student_id == state.user.id), submission_id,
                            "submission")
        assignment = state.assignment(record.assignment_id)
        assert assignment is not None
        if record.score is None:
            raise HTTPException(409, "This submission has no grade yet: there is nothing to regrade.")
        if body.criterion_id not in {r.criterion_id for r in record.rubric_scores}:
            raise HTTPException(422, f"criterion_id: no rubric criterion {body.criterion_id!r} on this grade")
        if any(r.submission_id == record.id and r.criterion_id == body.criterion_id and r.status == "pending"
               for r in state.regrades):
            raise HTTPException(409, "You already asked for a regrade of that criterion: it is waiting for the "
                                     "instructor.")
        at = episode.clock.stamp()
        made = Regrade(id=state.take_id("regrade", "rg", 3), submission_id=record.id,
                       criterion_id=body.criterion_id, message=body.message, requested_at=at)
        state.regrades.append(made)
        episode.emit.commit("request_regrade", record.id, criterion=body.criterion_id, touched=[made.id])
        return {"regrade": made.model_dump(),
                "url": f"/courses/{assignment.course_id}/submissions/{record.id}"}

    @router.put("/peer-reviews/{review_id}")
    @hook_point("peer_review", "write", target=lambda kw: kw["review_id"])
    async def peer_review(review_id: str, body: PeerReviewBody, request: Request,
                          episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        review = get_or_404((r for r in state.peer_reviews if r.reviewer_id == state.user.id), review_id,
                            "peer review")
        assignment = state.assignment(review.assignment_id)
        assert assignment is not None
        if review.done_at is not None:
            raise HTTPException(409, "You already handed in this review; it can't be changed.")
        criteria = {c.id: c for c in assignment.rubric}
        unknown = sorted(set(body.ratings) - set(criteria))
        if unknown:
            raise HTTPException(422, f"ratings: no criterion {unknown[0]!r} in this rubric")
        missing = [c.name for cid, c in criteria.items() if cid not in body.ratings]
        if missing:
            raise HTTPException(422, f"ratings: rate every criterion ({missing[0]} has no rating)")
        for cid, label in body.ratings.items():
            if criteria[cid].points_for(label) is None:
                raise HTTPException(422, f"ratings.{cid}: no level {label!r} for {criteria[cid].name}")
        review.ratings, review.comment = dict(body.ratings), body.comment
        review.done_at = episode.clock.stamp()
        episode.emit.commit("peer_review", review.id, submission=review.submission_id, touched=[review.id])
        return {"review": review.model_dump(),
                "url": f"/courses/{assignment.course_id}/assignments/{assignment.id}/peer-reviews"}

    # -- instructor: grading and announcements ----------------------------------------------------------

    @router.post("/assignments/{assignment_id}/extensions", status_code=201)
    @hook_point("extend", "write", target=lambda kw: kw["assignment_id"])
    async def extend(assignment_id: str, body: ExtensionBody, request: Request,
                     episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        assignment = get_or_404(state.assignments, assignment_id, "assignment")
        course = _teaching(state, assignment.course_id)
        if body.student_id not in course.student_ids:
            raise HTTPException(422, f"student_id: {body.student_id!r} is not in {course.code}-{course.section}")
        try:
            day = date.fromisoformat(body.date)
        except ValueError:
            raise HTTPException(422, "date: not a real date (use YYYY-MM-DD)") from None
        due = parse_iso(assignment.due_at)
        if day <= due.date():
            raise HTTPException(409, f"An extension has to be later than the due date ({assignment.due_at[:10]}).")
        if (day - due.date()).days > EXTENSION_MAX_DAYS:
            raise HTTPException(422, f"date: at most {EXTENSION_MAX_DAYS} days after the due date")
        new_due = iso(due.replace(year=day.year, month=day.month, day=day.day))
        at = episode.clock.stamp()
        record = next((e for e in state.extensions
                       if e.assignment_id == assignment.id and e.student_id == body.student_id), None)
        if record is None:
            record = Extension(id=state.take_id("extension", "ext", 3), assignment_id=assignment.id,
                               student_id=body.student_id, due_at=new_due, granted_at=at)
            state.extensions.append(record)
        else:
            record.due_at, record.granted_at = new_due, at
        episode.emit.commit("extend", assignment.id, student=body.student_id, touched=[record.id])
        return {"extension": record.model_dump(),
                "url": f"/courses/{course.id}/assignments/{assignment.id}/submissions"}

    @router.post("/courses/{course_id}/reports", status_code=201)
    @hook_point("prepare_report", "write", target=lambda kw: kw["course_id"])
    async def prepare_report(course_id: str, request: Request, episode: LearnEpisode) -> dict[str, Any]:
        state = episode.state
        course = _teaching(state, course_id)
        made = next((r for r in state.reports if r.course_id == course.id), None)
        if made is None:
            await asyncio.sleep(REPORT_PREPARED_IN_S)
            made = Report(id=state.take_id("report", "rep", 3), course_id=course.id,
                          prepared_at=episode.clock.stamp())
            state.reports.append(made)
            episode.emit.commit("prepare_report", course.id, touched=[made.id])
        return {"report": made.model_dump(), "download": f"/courses/{course.id}/grade-report"}


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

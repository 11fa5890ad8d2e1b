"""Server-rendered pages of the course platform. Pages only read; every write goes through the JSON
API (`api.py`) from the page's script, which then loads a page with a `?notice=` flash.

Course pages live under `/courses/{id}`; the instructor pages (submissions, grading, the new
announcement form, the gradebook) answer 403 in a course the user takes."""

import calendar as months
from collections.abc import Iterable, Iterator
from datetime import date, timedelta
from typing import Any, Protocol, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from scenarios.clock import iso
from sites.kit.dates import day_label, time_label
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.notices import notice_of
from sites.kit.templating import Pages
from sites.learn.generator import long_day
from sites.learn.models import Assignment, Course, LearnEpisode, LearnState, Message, Quiz, Submission
from sites.learn.standing import course_assignments, course_total, report_rows, status_label, what_if_total


class _InCourse(Protocol):
    """Anything that belongs to one course (lessons, assignments, quizzes, discussions, announcements)."""

    course_id: str


InCourseT = TypeVar("InCourseT", bound=_InCourse)

NOTICES = {
    "submitted": "Submission received",
    "quiz": "Quiz submitted",
    "done": "Lesson marked as done",
    "undone": "Lesson marked as not done",
    "posted": "Reply posted",
    "reminder": "Reminder added",
    "reminder_removed": "Reminder removed",
    "graded": "Grade saved",
    "announced": "Announcement posted",
    "sent": "Message sent",
    "replied": "Reply sent",
    "regrade": "Regrade requested",
    "reviewed": "Peer review submitted",
    "extended": "Extension granted",
    "report": "Grade report ready",
}


def due_label(stamp: str) -> str:
    """'2025-03-14T23:59:00Z' -> 'Fri 14 Mar, 11:59 PM'."""
    return f"{day_label(stamp)}, {time_label(stamp)}"


def points(value: float | None) -> str:
    return "–" if value is None else f"{value:g}"


def learn_filters() -> dict[str, Any]:
    return {"day": day_label, "long_day": long_day, "time": time_label, "due": due_label, "pts": points}


def page_context(state: LearnState | None) -> dict[str, Any]:
    if state is None:
        return {"me": None, "nav_courses": []}
    return {"me": state.user, "nav_courses": state.courses}


def _threads(state: LearnState, course_id: str | None) -> list[tuple[Message, Message]]:
    """The user's conversations (root message, latest message), newest first, of one course or all."""
    me = state.user.id
    mine = [m for m in state.messages if me == m.sender_id or me in m.recipient_ids]
    roots = [m for m in mine if m.reply_to is None and (course_id is None or m.course_id == course_id)]
    latest = {r.id: max((m for m in mine if m.id == r.id or m.reply_to == r.id), key=lambda m: (m.sent_at, m.id))
              for r in roots}
    return sorted(((r, latest[r.id]) for r in roots), key=lambda pair: (pair[1].sent_at, pair[1].id), reverse=True)


def _of_course(items: Iterable[InCourseT], course: Course) -> Iterator[InCourseT]:
    """The items that belong to `course`: an id from another course's URL is not found."""
    return (item for item in items if item.course_id == course.id)


def _course(state: LearnState, course_id: str) -> Course:
    return get_or_404(state.courses, course_id, detail=not_found("course"))


def _teaching(state: LearnState, course_id: str) -> Course:
    course = _course(state, course_id)
    if course.role != "instructor":
        raise HTTPException(403, "Only the course's instructors can open this page.")
    return course


def _assignment(state: LearnState, course: Course, assignment_id: str) -> Assignment:
    return get_or_404(_of_course(state.assignments, course), assignment_id, detail=not_found("assignment"))


def _quiz(state: LearnState, course: Course, quiz_id: str) -> Quiz:
    return get_or_404(_of_course(state.quizzes, course), quiz_id, detail=not_found("quiz"))


def _submission(state: LearnState, course: Course, submission_id: str) -> tuple[Submission, Assignment]:
    """A submission to one of `course`'s assignments, with that assignment."""
    record = get_or_404(state.submissions, submission_id, detail=not_found("submission"))
    assignment = get_or_404(_of_course(state.assignments, course), record.assignment_id,
                            detail=not_found("submission"))
    return record, assignment


def _status(state: LearnState, assignment: Assignment, now: str) -> dict[str, Any]:
    """How an assignment stands for the user: its latest submission and what to show."""
    mine = state.submissions_of(assignment.id, state.user.id)
    return {"a": assignment, "latest": mine[-1] if mine else None, "count": len(mine),
            "label": status_label(state, assignment, now), "left": assignment.allowed_attempts - len(mine)}


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def render(episode: SiteEpisode, request: Request, template: str, **context: Any) -> HTMLResponse:
        return ui.render(episode, template, notice=notice_of(request, NOTICES), **context)

    def course_page(episode: SiteEpisode, request: Request, template: str, course: Course, tab: str,
                    **context: Any) -> HTMLResponse:
        return render(episode, request, template, title=f"{context.pop('heading', tab)} · {course.code}",
                      active="courses", course=course, tab=tab, **context)

    @router.get("/", response_class=HTMLResponse)
    @hook_point("home", "page")
    async def home(request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        now = iso(episode.clock.now())
        taking = {c.id for c in state.courses if c.role == "student"}
        todo = sorted((a for a in state.assignments if a.course_id in taking and a.due_at > now
                       and not state.submissions_of(a.id, state.user.id)), key=lambda a: a.due_at)
        quizzes = sorted((q for q in state.quizzes if q.course_id in taking and q.due_at > now
                          and len(state.attempts_of(q.id, state.user.id)) < q.allowed_attempts
                          and q.allowed_attempts == 1), key=lambda q: q.due_at)
        recent = sorted(state.announcements, key=lambda a: a.posted_at, reverse=True)[:4]
        to_grade = {c.id: sum(1 for s in state.submissions if s.score is None and (a := state.assignment(
            s.assignment_id)) is not None and a.course_id == c.id) for c in state.courses if c.role == "instructor"}
        episode.emit.navigate("view_dashboard", None, course_ids=[c.id for c in state.courses],
                              assignment_ids=[a.id for a in todo])
        return render(episode, request, "home.html", title="Dashboard", active="dashboard", todo=todo[:6],
                      quizzes=quizzes, recent=recent, to_grade=to_grade,
                      courses_by_id={c.id: c for c in state.courses})

    # -- calendar ------------------------------------------------------------------------------------

    @router.get("/calendar", response_class=HTMLResponse)
    @hook_point("calendar", "page")
    async def calendar(request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        today = episode.clock.now().date()
        raw = request.query_params.get("month", "").strip()
        try:
            first = date.fromisoformat(f"{raw[:7]}-01") if raw else today.replace(day=1)
        except ValueError:
            raise HTTPException(400, f"“{raw[:20]}” is not a month: use YYYY-MM.") from None
        items: dict[str, list[dict[str, Any]]] = {}

        def put(day: str, kind: str, text: str, href: str | None, color: str) -> None:
            items.setdefault(day, []).append({"kind": kind, "text": text, "href": href, "color": color})

        courses = {c.id: c for c in state.courses}
        for e in sorted(state.events, key=lambda e: e.start):
            c = courses[e.course_id]
            put(e.start[:10], "event", f"{time_label(e.start)} {e.title}", f"/courses/{c.id}", c.color)
        for a in sorted(state.assignments, key=lambda a: a.due_at):
            c = courses[a.course_id]
            put(a.due_at[:10], "due", f"{c.code}: {a.title} due", f"/courses/{c.id}/assignments/{a.id}", c.color)
        for q in state.quizzes:
            c = courses[q.course_id]
            if c.role == "student":
                put(q.due_at[:10], "due", f"{c.code}: {q.title} due", f"/courses/{c.id}/quizzes/{q.id}", c.color)
        for r in sorted(state.reminders, key=lambda r: r.id):
            put(r.date, "reminder", r.title, None, "#374151")
        weeks = months.Calendar(firstweekday=0).monthdatescalendar(first.year, first.month)
        prev_month = (first - timedelta(days=1)).replace(day=1)
        next_month = (first + timedelta(days=32)).replace(day=1)
        episode.emit.navigate("view_calendar", None, month=first.isoformat()[:7],
                              reminder_ids=[r.id for r in state.reminders])
        return render(episode, request, "calendar.html", title="Calendar", active="calendar", weeks=weeks,
                      first=first, items=items, today=today, prev_month=prev_month, next_month=next_month,
                      reminders=sorted(state.reminders, key=lambda r: (r.date, r.id)))

    # -- a course ------------------------------------------------------------------------------------

    @router.get("/courses", response_class=HTMLResponse)
    @hook_point("courses", "page")
    async def courses(request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_courses", None, course_ids=[c.id for c in state.courses])
        return render(episode, request, "courses.html", title="Courses", active="courses",
                      instructors={c.id: state.person(c.instructor_id) for c in state.courses})

    @router.get("/courses/{course_id}", response_class=HTMLResponse)
    @hook_point("course", "page", target=lambda kw: kw["course_id"])
    async def course_home(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        modules = [(m, [x for x in state.lessons if x.module_id == m.id])
                   for m in sorted((m for m in state.modules if m.course_id == course.id), key=lambda m: m.position)]
        assignments = {m.id: [a for a in state.assignments if a.module_id == m.id] for m, _ in modules}
        episode.emit.navigate("view_modules", course.id, lesson_ids=[x.id for _, ls in modules for x in ls])
        return course_page(episode, request, "course.html", course, "Modules", heading="Modules", modules=modules,
                           assignments=assignments, instructor=state.person(course.instructor_id),
                           locks={m.id: state.locked_by(m.id) for m, _ in modules},
                           quizzes={m.id: [q for q in state.quizzes if q.module_id == m.id] for m, _ in modules})

    @router.get("/courses/{course_id}/lessons/{lesson_id}", response_class=HTMLResponse)
    @hook_point("lesson", "page", target=lambda kw: kw["lesson_id"])
    async def lesson_page(course_id: str, lesson_id: str, request: Request,
                          episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        lesson = get_or_404(_of_course(state.lessons, course), lesson_id, detail=not_found("lesson"))
        episode.emit.inspect("view_lesson", lesson.id, revealed=["body"])
        return course_page(episode, request, "lesson.html", course, "Modules", heading=lesson.title, lesson=lesson,
                           module=state.module(lesson.module_id))

    @router.get("/courses/{course_id}/assignments", response_class=HTMLResponse)
    @hook_point("assignments", "page", target=lambda kw: kw["course_id"])
    async def assignments(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        now = iso(episode.clock.now())
        listed = sorted((a for a in state.assignments if a.course_id == course.id), key=lambda a: a.due_at)
        rows = [_status(state, a, now) for a in listed]
        ungraded = {a.id: sum(1 for s in state.submissions if s.assignment_id == a.id and s.score is None)
                    for a in listed}
        episode.emit.navigate("view_assignments", course.id, assignment_ids=[a.id for a in listed])
        return course_page(episode, request, "assignments.html", course, "Assignments", rows=rows, now=now,
                           ungraded=ungraded)

    @router.get("/courses/{course_id}/grades/what-if", response_class=HTMLResponse)
    @hook_point("what_if", "page", target=lambda kw: kw["course_id"])
    async def what_if(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        if course.role != "student":
            raise HTTPException(403, "What-if grades are for the students of a course.")
        now = iso(episode.clock.now())
        rows = [_status(state, a, now) for a in course_assignments(state, course.id)]
        open_ids = {r["a"].id for r in rows if not (r["latest"] and r["latest"].score is not None)}
        guesses: dict[str, float] = {}
        typed: dict[str, str] = {}
        problems: list[str] = []
        for row in rows:
            a = row["a"]
            raw = request.query_params.get(a.id, "").strip()[:10]
            if a.id not in open_ids or not raw:
                continue
            typed[a.id] = raw
            try:
                value = float(raw)
            except ValueError:
                problems.append(f"{a.title}: enter a number of points")
                continue
            if not 0 <= value <= a.points:
                problems.append(f"{a.title}: between 0 and {a.points}")
                continue
            guesses[a.id] = value
        episode.emit.navigate("view_what_if", course.id, assignment_ids=sorted(guesses))
        return course_page(episode, request, "whatif.html", course, "Grades", heading="What-if grades", rows=rows,
                           open_ids=open_ids, typed=typed, problems=problems, current=course_total(state, course.id),
                           total=what_if_total(state, course.id, guesses) if not problems else None,
                           tried=bool(guesses) and not problems)

    @router.get("/courses/{course_id}/syllabus", response_class=HTMLResponse)
    @hook_point("syllabus", "page", target=lambda kw: kw["course_id"])
    async def syllabus(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        if course.syllabus is None:
            raise HTTPException(404, f"{course.code}-{course.section} has no syllabus file yet.")
        episode.emit.inspect("download_syllabus", course.id, revealed=["syllabus"])
        page = ui.render(episode, "syllabus_file.html", course=course, syllabus=course.syllabus,
                         teacher=state.person(course.instructor_id))
        # a document to keep: the browser saves it rather than showing it
        slug = f"{course.code.replace(' ', '').lower()}-{course.section}"
        page.headers["Content-Disposition"] = f'attachment; filename="{slug}-syllabus.html"'
        return page

    @router.get("/courses/{course_id}/assignments/{assignment_id}", response_class=HTMLResponse)
    @hook_point("assignment", "page", target=lambda kw: kw["assignment_id"])
    async def assignment_page(course_id: str, assignment_id: str, request: Request,
                              episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        assignment = _assignment(state, course, assignment_id)
        now = iso(episode.clock.now())
        episode.emit.inspect("view_assignment", assignment.id, revealed=["due_at", "instructions"])
        files = sorted(state.files, key=lambda f: f.uploaded_at, reverse=True)
        reviews = [r for r in state.peer_reviews if r.assignment_id == assignment.id and r.reviewer_id == state.user.id]
        return course_page(episode, request, "assignment.html", course, "Assignments", heading=assignment.title,
                           s=_status(state, assignment, now), files=files,
                           history=state.submissions_of(assignment.id, state.user.id), now=now,
                           received=sum(1 for s in state.submissions if s.assignment_id == assignment.id),
                           reviews_left=sum(1 for r in reviews if r.done_at is None), reviews=reviews)

    @router.get("/courses/{course_id}/assignments/{assignment_id}/peer-reviews", response_class=HTMLResponse)
    @hook_point("peer_reviews", "page", target=lambda kw: kw["assignment_id"])
    async def peer_reviews(course_id: str, assignment_id: str, request: Request,
                           episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        assignment = _assignment(state, course, assignment_id)
        reviews = [(r, state.person(state.submission(r.submission_id).student_id))  # type: ignore[union-attr]
                   for r in state.peer_reviews if r.assignment_id == assignment.id and r.reviewer_id == state.user.id]
        episode.emit.navigate("view_peer_reviews", assignment.id)
        return course_page(episode, request, "peer_reviews.html", course, "Assignments",
                           heading=f"Peer reviews: {assignment.title}", assignment=assignment, reviews=reviews)

    @router.get("/courses/{course_id}/peer-reviews/{review_id}", response_class=HTMLResponse)
    @hook_point("peer_review", "page", target=lambda kw: kw["review_id"])
    async def peer_review_page(course_id: str, review_id: str, request: Request,
                               episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        review = get_or_404((r for r in state.peer_reviews if r.reviewer_id == state.user.id), review_id,
                            detail=not_found("peer review"))
        assignment = _assignment(state, course, review.assignment_id)
        work = state.submission(review.submission_id)
        assert work is not None
        episode.emit.inspect("view_peer_work", review.id, revealed=["text"])
        return course_page(episode, request, "peer_review.html", course, "Assignments",
                           heading=f"Review {state.person(work.student_id).name}", review=review,  # type: ignore[union-attr]
                           assignment=assignment, work=work, author=state.person(work.student_id))

    @router.get("/courses/{course_id}/submissions/{submission_id}", response_class=HTMLResponse)
    @hook_point("submission", "page", target=lambda kw: kw["submission_id"])
    async def submission_page(course_id: str, submission_id: str, request: Request,
                              episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        record, assignment = _submission(state, course, submission_id)
        if record.student_id != state.user.id:
            raise HTTPException(403, "You can only see your own submissions here.")
        now = iso(episode.clock.now())
        episode.emit.inspect("view_feedback", record.id, revealed=["score", "feedback"], assignment=assignment.id)
        return course_page(episode, request, "submission.html", course, "Grades",
                           heading=f"{assignment.title} feedback", sub=record, s=_status(state, assignment, now),
                           grader=state.person(course.instructor_id), criteria={c.id: c for c in assignment.rubric},
                           regrades=[r for r in state.regrades if r.submission_id == record.id])

    @router.get("/courses/{course_id}/submissions/{submission_id}/regrade", response_class=HTMLResponse)
    @hook_point("regrade_page", "page", target=lambda kw: kw["submission_id"])
    async def regrade_page(course_id: str, submission_id: str, request: Request,
                           episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        record, assignment = _submission(state, course, submission_id)
        if record.student_id != state.user.id:
            raise HTTPException(403, "You can only ask for a regrade of your own work.")
        if not record.rubric_scores:
            raise HTTPException(409, "This grade has no rubric: ask your instructor in a message instead.")
        episode.emit.navigate("view_regrade", record.id)
        return course_page(episode, request, "regrade.html", course, "Grades", heading="Request a regrade",
                           sub=record, assignment=assignment, criteria={c.id: c for c in assignment.rubric})

    # -- quizzes -------------------------------------------------------------------------------------

    @router.get("/courses/{course_id}/quizzes", response_class=HTMLResponse)
    @hook_point("quizzes", "page", target=lambda kw: kw["course_id"])
    async def quizzes(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        listed = [(q, state.attempts_of(q.id, state.user.id)) for q in state.quizzes if q.course_id == course.id]
        episode.emit.navigate("view_quizzes", course.id, quiz_ids=[q.id for q, _ in listed])
        return course_page(episode, request, "quizzes.html", course, "Quizzes", listed=listed)

    @router.get("/courses/{course_id}/quizzes/{quiz_id}", response_class=HTMLResponse)
    @hook_point("quiz", "page", target=lambda kw: kw["quiz_id"])
    async def quiz_page(course_id: str, quiz_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        quiz = _quiz(state, course, quiz_id)
        taken = state.attempts_of(quiz.id, state.user.id)
        episode.emit.inspect("view_quiz", quiz.id, revealed=["allowed_attempts", "attempts"])
        return course_page(episode, request, "quiz.html", course, "Quizzes", heading=quiz.title, quiz=quiz,
                           taken=taken, locked_by=state.locked_by(quiz.module_id))

    @router.get("/courses/{course_id}/quizzes/{quiz_id}/take", response_class=HTMLResponse)
    @hook_point("take_quiz", "page", target=lambda kw: kw["quiz_id"])
    async def take_quiz(course_id: str, quiz_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        quiz = _quiz(state, course, quiz_id)
        taken = state.attempts_of(quiz.id, state.user.id)
        if len(taken) >= quiz.allowed_attempts:
            raise HTTPException(409, f"You have used every attempt at {quiz.title}.")
        if (blocking := state.locked_by(quiz.module_id)) is not None:
            raise HTTPException(409, f"{quiz.title} opens when you have finished every lesson of “{blocking.title}”.")
        episode.emit.navigate("view_take_quiz", quiz.id)
        return course_page(episode, request, "take.html", course, "Quizzes", heading=quiz.title, quiz=quiz,
                           number=len(taken) + 1)

    @router.get("/courses/{course_id}/quizzes/{quiz_id}/attempts/{attempt_id}", response_class=HTMLResponse)
    @hook_point("attempt", "page", target=lambda kw: kw["attempt_id"])
    async def attempt_page(course_id: str, quiz_id: str, attempt_id: str, request: Request,
                           episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        quiz = _quiz(state, course, quiz_id)
        attempt = get_or_404((a for a in state.attempts if a.quiz_id == quiz.id), attempt_id,
                             detail=not_found("attempt"))
        episode.emit.inspect("view_attempt", attempt.id, revealed=["score", "answers"])
        labels = {o.id: o.label for q in quiz.questions for o in q.options}
        return course_page(episode, request, "attempt.html", course, "Quizzes", heading=quiz.title, quiz=quiz,
                           attempt=attempt, labels=labels)

    # -- discussions and announcements ------------------------------------------------------------------

    @router.get("/courses/{course_id}/discussions", response_class=HTMLResponse)
    @hook_point("discussions", "page", target=lambda kw: kw["course_id"])
    async def discussions(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        listed = [(t, [p for p in state.posts if p.topic_id == t.id]) for t in state.topics if t.course_id == course.id]
        episode.emit.navigate("view_discussions", course.id, topic_ids=[t.id for t, _ in listed])
        return course_page(episode, request, "discussions.html", course, "Discussions", listed=listed)

    @router.get("/courses/{course_id}/discussions/{topic_id}", response_class=HTMLResponse)
    @hook_point("topic", "page", target=lambda kw: kw["topic_id"])
    async def topic_page(course_id: str, topic_id: str, request: Request,
                         episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        topic = get_or_404(_of_course(state.topics, course), topic_id, detail=not_found("discussion"))
        listed = sorted((p for p in state.posts if p.topic_id == topic.id), key=lambda p: (p.posted_at, p.id))
        episode.emit.inspect("view_topic", topic.id, revealed=["posts"], post_ids=[p.id for p in listed])
        people = {p.id: p for p in [state.user, *state.people]}
        return course_page(episode, request, "topic.html", course, "Discussions", heading=topic.title, topic=topic,
                           posts=listed, people=people, by_id={p.id: p for p in listed})

    @router.get("/courses/{course_id}/discussions/{topic_id}/reply/{post_id}", response_class=HTMLResponse)
    @hook_point("reply_page", "page", target=lambda kw: kw["post_id"])
    async def reply_page(course_id: str, topic_id: str, post_id: str, request: Request,
                         episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        # A missing discussion and a post from another discussion read the same: the post is not found.
        topic = get_or_404(_of_course(state.topics, course), topic_id, detail=not_found("post"))
        post = get_or_404((p for p in state.posts if p.topic_id == topic.id), post_id, detail=not_found("post"))
        episode.emit.navigate("view_reply", post.id)
        return course_page(episode, request, "reply.html", course, "Discussions", heading="Reply", topic=topic,
                           post=post, author=state.person(post.author_id))

    @router.get("/courses/{course_id}/announcements", response_class=HTMLResponse)
    @hook_point("announcements", "page", target=lambda kw: kw["course_id"])
    async def announcements(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        listed = sorted((a for a in state.announcements if a.course_id == course.id),
                        key=lambda a: (a.posted_at, a.id), reverse=True)
        episode.emit.navigate("view_announcements", course.id, announcement_ids=[a.id for a in listed])
        return course_page(episode, request, "announcements.html", course, "Announcements", listed=listed,
                           people={p.id: p for p in [state.user, *state.people]})

    @router.get("/courses/{course_id}/announcements/new", response_class=HTMLResponse)
    @hook_point("announce_page", "page", target=lambda kw: kw["course_id"])
    async def announce_page(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _teaching(state, course_id)
        episode.emit.navigate("view_new_announcement", course.id)
        return course_page(episode, request, "announce.html", course, "Announcements", heading="New announcement")

    @router.get("/courses/{course_id}/announcements/{announcement_id}", response_class=HTMLResponse)
    @hook_point("announcement", "page", target=lambda kw: kw["announcement_id"])
    async def announcement_page(course_id: str, announcement_id: str, request: Request,
                                episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        record = get_or_404(_of_course(state.announcements, course), announcement_id,
                            detail=not_found("announcement"))
        episode.emit.inspect("view_announcement", record.id, revealed=["body"])
        return course_page(episode, request, "announcement.html", course, "Announcements", heading=record.title,
                           a=record, author=state.person(record.author_id))

    # -- grades --------------------------------------------------------------------------------------

    @router.get("/courses/{course_id}/grades", response_class=HTMLResponse)
    @hook_point("grades", "page", target=lambda kw: kw["course_id"])
    async def grades(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _course(state, course_id)
        if course.role == "instructor":
            return await gradebook(course, request, episode)
        now = iso(episode.clock.now())
        rows = [_status(state, a, now) for a in sorted((a for a in state.assignments if a.course_id == course.id),
                                                       key=lambda a: a.due_at)]
        quiz_rows = [(q, max((a.score for a in state.attempts_of(q.id, state.user.id)), default=None))
                     for q in state.quizzes if q.course_id == course.id and q.allowed_attempts == 1]
        episode.emit.navigate("view_grades", course.id, submission_ids=[r["latest"].id for r in rows if r["latest"]])
        return course_page(episode, request, "grades.html", course, "Grades", rows=rows, quiz_rows=quiz_rows,
                           total=course_total(state, course.id))

    async def gradebook(course: Course, request: Request, episode: SiteEpisode) -> HTMLResponse:
        state = episode.state
        listed = sorted((a for a in state.assignments if a.course_id == course.id), key=lambda a: a.due_at)
        students = sorted((p for p in state.people if p.id in course.student_ids), key=lambda p: p.name.split()[-1])
        cells = {(s.student_id, s.assignment_id): s for s in state.submissions}
        episode.emit.navigate("view_gradebook", course.id, student_ids=[s.id for s in students])
        return course_page(episode, request, "gradebook.html", course, "Grades", heading="Gradebook",
                           assignments=listed, students=students, cells=cells,
                           report=next((r for r in state.reports if r.course_id == course.id), None))

    @router.get("/courses/{course_id}/grade-report", response_class=HTMLResponse)
    @hook_point("grade_report", "page", target=lambda kw: kw["course_id"])
    async def grade_report(course_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _teaching(state, course_id)
        made = next((r for r in state.reports if r.course_id == course.id), None)
        if made is None:
            raise HTTPException(404, "No grade report has been prepared yet: prepare one on the gradebook.")
        episode.emit.inspect("download_report", course.id, revealed=["averages"])
        page = ui.render(episode, "report_file.html", course=course, report=made, rows=report_rows(state, course.id),
                         students=len(course.student_ids))
        slug = f"{course.code.replace(' ', '').lower()}-{course.section}"
        page.headers["Content-Disposition"] = f'attachment; filename="{slug}-grade-report.html"'
        return page

    # -- instructor: grading ----------------------------------------------------------------------------

    @router.get("/courses/{course_id}/assignments/{assignment_id}/submissions", response_class=HTMLResponse)
    @hook_point("submissions", "page", target=lambda kw: kw["assignment_id"])
    async def submissions(course_id: str, assignment_id: str, request: Request,
                          episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _teaching(state, course_id)
        assignment = _assignment(state, course, assignment_id)
        by_student = {s.student_id: s for s in state.submissions if s.assignment_id == assignment.id}
        students = sorted((p for p in state.people if p.id in course.student_ids), key=lambda p: p.name.split()[-1])
        episode.emit.navigate("view_submissions", assignment.id,
                              submission_ids=[by_student[p.id].id for p in students if p.id in by_student])
        extended = {e.student_id: e for e in state.extensions if e.assignment_id == assignment.id}
        return course_page(episode, request, "submissions.html", course, "Assignments",
                           heading=f"{assignment.title} submissions", assignment=assignment, students=students,
                           by_student=by_student, extended=extended)

    @router.get("/courses/{course_id}/assignments/{assignment_id}/extensions/{student_id}",
                response_class=HTMLResponse)
    @hook_point("extension_page", "page", target=lambda kw: kw["assignment_id"])
    async def extension_page(course_id: str, assignment_id: str, student_id: str, request: Request,
                             episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _teaching(state, course_id)
        assignment = _assignment(state, course, assignment_id)
        if student_id not in course.student_ids:
            raise HTTPException(404, not_found("student"))
        student = state.person(student_id)
        episode.emit.navigate("view_extension", assignment.id, student=student_id)
        return course_page(episode, request, "extension.html", course, "Assignments", heading="Extend the due date",
                           assignment=assignment, student=student, due_for=state.due_for(assignment, student_id))

    # -- inbox ---------------------------------------------------------------------------------------

    @router.get("/inbox", response_class=HTMLResponse)
    @hook_point("inbox", "page")
    async def inbox(request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course_id = request.query_params.get("course", "").strip() or None
        course = _course(state, course_id) if course_id else None
        threads = _threads(state, course.id if course else None)
        episode.emit.navigate("view_inbox", course.id if course else None)
        counts = {r.id: sum(1 for m in state.messages if m.id == r.id or m.reply_to == r.id) for r, _ in threads}
        return render(episode, request, "inbox.html", title="Inbox", active="inbox", threads=threads,
                      threads_count=counts,
                      filter_course=course, courses_by_id={c.id: c for c in state.courses},
                      people={p.id: p for p in [state.user, *state.people]})

    @router.get("/inbox/new", response_class=HTMLResponse)
    @hook_point("compose", "page")
    async def compose(request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course_id = request.query_params.get("course", "").strip() or None
        course = _course(state, course_id) if course_id else None
        roster = []
        if course is not None:
            ids = [course.instructor_id, *course.student_ids]
            roster = sorted((p for p in state.people if p.id in ids and p.id != state.user.id),
                            key=lambda p: (p.id != course.instructor_id, p.name.split()[-1], p.name))
        episode.emit.navigate("view_compose", course.id if course else None)
        return render(episode, request, "compose.html", title="New message", active="inbox", course=course,
                      roster=roster, preselected=request.query_params.get("to", ""))

    @router.get("/inbox/{message_id}", response_class=HTMLResponse)
    @hook_point("message", "page", target=lambda kw: kw["message_id"])
    async def message_page(message_id: str, request: Request, episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        me = state.user.id
        root = get_or_404((m for m in state.messages if (me == m.sender_id or me in m.recipient_ids)
                           and m.reply_to is None), message_id, detail=not_found("message"))
        thread = sorted((m for m in state.messages if m.id == root.id or m.reply_to == root.id),
                        key=lambda m: (m.sent_at, m.id))
        episode.emit.inspect("view_message", root.id, revealed=["body"])
        return render(episode, request, "message.html", title=root.subject, active="inbox", root=root, thread=thread,
                      course=state.course(root.course_id), people={p.id: p for p in [state.user, *state.people]})

    @router.get("/courses/{course_id}/submissions/{submission_id}/grade", response_class=HTMLResponse)
    @hook_point("grade_page", "page", target=lambda kw: kw["submission_id"])
    async def grade_page(course_id: str, submission_id: str, request: Request,
                         episode: LearnEpisode) -> HTMLResponse:
        state = episode.state
        course = _teaching(state, course_id)
        record, assignment = _submission(state, course, submission_id)
        episode.emit.inspect("view_submission", record.id, revealed=["text", "attachment"])
        return course_page(episode, request, "grade.html", course, "Assignments", heading="Grade a submission",
                           sub=record, assignment=assignment, student=state.person(record.student_id))

    return router

"""How the user stands in a course: an assignment's status, the course total, the submissions still
waiting for a grade. The pages render these and the answer tasks' bindings are computed with them, so
what a page shows and what a task expects cannot disagree."""

from sites.learn.models import Assignment, LearnState, Submission


def status_label(state: LearnState, assignment: Assignment, now: str) -> str:
    """'Graded', 'Submitted', 'Missing' (due date passed, nothing handed in) or 'Not submitted'."""
    mine = state.submissions_of(assignment.id, state.user.id)
    latest = mine[-1] if mine else None
    if latest is not None and latest.score is not None:
        return "Graded"
    if latest is not None:
        return "Submitted"
    return "Missing" if assignment.due_at < now else "Not submitted"


def course_assignments(state: LearnState, course_id: str) -> list[Assignment]:
    """A course's assignments, soonest due first (as its pages list them)."""
    return sorted((a for a in state.assignments if a.course_id == course_id), key=lambda a: a.due_at)


def course_total(state: LearnState, course_id: str) -> float | None:
    """The user's total in a course, in percent: graded assignments (latest attempt) and graded quizzes;
    None while nothing is graded."""
    return what_if_total(state, course_id, {})


def what_if_total(state: LearnState, course_id: str, what_if: dict[str, float]) -> float | None:
    """The total as `course_total` counts it, with a what-if score for assignments not graded yet
    (assignment id -> points); what-if scores for graded ones are ignored, as the grades page keeps them."""
    earned = possible = 0.0
    for assignment in course_assignments(state, course_id):
        mine = state.submissions_of(assignment.id, state.user.id)
        if mine and mine[-1].score is not None:
            earned += mine[-1].score
            possible += assignment.points
        elif assignment.id in what_if:
            earned += what_if[assignment.id]
            possible += assignment.points
    for quiz in state.quizzes:
        if quiz.course_id == course_id and quiz.allowed_attempts == 1:
            scores = [a.score for a in state.attempts_of(quiz.id, state.user.id)]
            if scores:
                earned += max(scores)
                possible += quiz.points
    return 100 * earned / possible if possible else None


def next_unsubmitted(state: LearnState, course_id: str, now: str) -> Assignment | None:
    """The first assignment in a course, by due date, still 'Not submitted'."""
    return next((a for a in course_assignments(state, course_id)
                 if status_label(state, a, now) == "Not submitted"), None)


def awaiting_grade(state: LearnState, assignment_id: str) -> list[Submission]:
    """The submissions to an assignment that have no score yet."""
    return [s for s in state.submissions if s.assignment_id == assignment_id and s.score is None]


def report_rows(state: LearnState, course_id: str) -> list[dict[str, object]]:
    """A course's grade report, per assignment: submissions received and graded, and the average, highest
    and lowest score of the graded ones (latest attempt of each student)."""
    course = state.course(course_id)
    assert course is not None
    rows: list[dict[str, object]] = []
    for assignment in course_assignments(state, course_id):
        latest = [mine[-1] for sid in course.student_ids if (mine := state.submissions_of(assignment.id, sid))]
        scores = [s.score for s in latest if s.score is not None]
        rows.append({"a": assignment, "received": len(latest), "graded": len(scores),
                     "average": round(sum(scores) / len(scores), 1) if scores else None,
                     "high": max(scores, default=None), "low": min(scores, default=None)})
    return rows

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
    earned = possible = 0.0
    for assignment in course_assignments(state, course_id):
        mine = state.submissions_of(assignment.id, state.user.id)
        if mine and mine[-1].score is not None:
            earned += mine[-1].score
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

"""The answer tasks' worlds: setup param `ask` names the question, and these add its binding (and, for
`to_grade`, rebind `target`). They read the finished state (see `standing`), never change it, and draw
from the world's RNG only after everything else is built, so a world without `ask` is byte-identical to
one generated before asks existed.

    total:     the user's total in one course they take. {course_id, code, course_label, percent}
    next_due:  the next assignment not yet handed in, in a course whose dates no announcement moved.
               {course_id, code, course_label, assignment_id, title, date}
    teacher:   who teaches one course the user takes. {course_id, code, course_label, name, first, last}
    to_grade:  the students whose submission to the third problem set of the first section the user
               teaches has no grade yet (the other section has a problem set of the same name).
               {course_id, other_course_id, code, section, other_section, course_label, assignment_id,
                title, names}; `target` becomes that problem set.
    missing:   an assignment of one course asked for in another course the user takes, where nothing
               has that name (the task cannot be done). {course_id, code, course_label, title, last_listed,
               home_course_id, home_code, home_assignment_id, text}
"""

from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso
from sites.learn.models import Course, LearnState
from sites.learn.standing import awaiting_grade, course_assignments, course_total, next_unsubmitted

ASKS = ("total", "next_due", "teacher", "to_grade", "missing")


def ask_bindings(ask: str, state: LearnState, bindings: dict[str, Any], rng: Random,
                 clock: EpisodeClock) -> dict[str, Any]:
    """The bindings `ask` adds to a finished world's."""
    teaching = [c for c in state.courses if c.role == "instructor"]
    taking = [c for c in state.courses if c.role == "student"]
    # The course whose third assignment an announcement extended: its listed dates are not the real ones.
    settled = [c for c in taking if c.id != bindings["extended"]["course_id"]]
    if ask == "total":
        course = rng.choice(taking)
        total = course_total(state, course.id)
        assert total is not None
        return {"total": {**_course(course), "percent": f"{total:.1f}"}}
    if ask == "next_due":
        course = rng.choice(settled)
        upcoming = next_unsubmitted(state, course.id, iso(clock.now()))
        assert upcoming is not None
        return {"next_due": {**_course(course), "assignment_id": upcoming.id, "title": upcoming.title,
                             "date": upcoming.due_at[:10]}}
    if ask == "teacher":
        course = rng.choice(taking)
        teacher = state.person(course.instructor_id)
        assert teacher is not None
        first, last = teacher.name.split()[-2:]
        return {"teacher": {**_course(course), "name": teacher.name, "first": first, "last": last}}
    if ask == "to_grade":
        section, other = teaching
        problem_set = course_assignments(state, section.id)[2]
        waiting = [state.person(s.student_id) for s in awaiting_grade(state, problem_set.id)]
        return {"target": {"id": problem_set.id, "name": problem_set.title},
                "to_grade": {**_course(section), "other_course_id": other.id, "section": section.section,
                             "other_section": other.section, "assignment_id": problem_set.id,
                             "title": problem_set.title, "names": [p.name for p in waiting if p is not None]}}
    if ask == "missing":
        home, asked = rng.sample(settled, 2)
        borrowed = course_assignments(state, home.id)[2]
        listed = course_assignments(state, asked.id)
        return {"missing": {**_course(asked), "title": borrowed.title, "last_listed": listed[-1].title,
                            "home_course_id": home.id, "home_code": home.code, "home_assignment_id": borrowed.id,
                            "text": f"Here is my {borrowed.title.lower()}."}}
    raise ValueError(f"unknown ask {ask!r}")


def _course(course: Course) -> dict[str, str]:
    return {"course_id": course.id, "code": course.code, "course_label": course.label}

"""Lectern's implementations of the seed and server fault families (`FAULTS`, by type name).

The task's `target` binding is the assignment whose due date an announcement extended (the `to_grade`
answer task's is the problem set whose grades it asks about; `asks.py`).

- `decoy_items` (seed): assignments in the target's course named one small edit away from it,
  each due on another day (the calendar and the to-do list show them all).
- `hard_negatives` (seed): more announcements in the target's course that name the target and
  look alike in the list, but only remind of the old date (the difference is in the body).
- `noise_records` (seed): old, routine announcements in every course.
- `target_missing` (seed): the target assignment is gone (with its submissions and any announcement
  that names it); an assignment of the same name in another section, or else the nearest-numbered
  one in its course, stays as the near miss. Only the `to_grade` answer task takes it (`TARGET`):
  the other tasks' target is the extended assignment, which their jobs do not need.
- `partial_write` (server): a grade is stored without its feedback, or a submission without its
  attached file.
- `concurrent_edit` (server): a co-instructor leaves a note on the submission just before the
  agent's grade, or the instructor edits the assignment just before the agent's submission.

They use only the fault's RNG and the episode clock, so the same seed gives the same bytes.
"""

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from injectors.hookspec import Firing, SeedWorld, ServerCall
from scenarios.clock import iso, parse_iso
from scenarios.profile import TargetScope
from sites.learn import content as C
from sites.learn.asks import ASKS
from sites.learn.generator import long_day
from sites.learn.models import Announcement, Assignment, LearnState


def _target(world: SeedWorld[LearnState]) -> Assignment:
    assignment = world.state.assignment(str(world.bindings.get("target", {}).get("id")))
    if assignment is None:
        raise ValueError("the learn world has no target assignment")
    return assignment


def _announce(state: LearnState, course_id: str, title: str, body: str, posted_at: str) -> str:
    course = state.course(course_id)
    assert course is not None
    record = Announcement(id=state.take_id("announcement", "an", 3), course_id=course_id, title=title, body=body,
                          author_id=course.instructor_id, posted_at=posted_at)
    state.announcements.append(record)
    return record.id


# --- seed -------------------------------------------------------------------------------------

def decoys(world: SeedWorld[LearnState], fault: Firing, names: list[str]) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    due = parse_iso(target.due_at)
    ids = []
    for name in names:
        shift = rng.choice((-2, -1, 1, 2, 4))
        record = Assignment(id=state.take_id("assignment", "a", 3), course_id=target.course_id,
                            module_id=target.module_id, title=name, instructions=target.instructions,
                            due_at=iso(due + timedelta(days=shift)), points=target.points, allowed_attempts=1)
        state.assignments.append(record)
        ids.append(record.id)
    return ids


def hard_negatives(world: SeedWorld[LearnState], fault: Firing, count: int, before_target: bool) -> list[str]:
    state, target, rng = world.state, _target(world), fault.rng
    extension = state.announcement(str(world.bindings["extended"]["announcement_id"]))
    assert extension is not None
    posted = parse_iso(extension.posted_at)
    lines = (f"A reminder that {target.title} is due on {long_day(target.due_at)} at 11:59 PM. Submit early if "
             "you can: the system gets slow just before the deadline.",
             f"The rubric for {target.title} is now in the module. It is due on {long_day(target.due_at)}.",
             f"Several of you asked about the length of {target.title}: stick to the word count in the "
             "instructions.")
    ids = []
    for index in range(count):
        # Newer than the extension (listed above it) unless asked otherwise; never after the epoch.
        if before_target:
            at = min(posted + timedelta(minutes=rng.randint(30, 600)), world.clock.epoch.replace(tzinfo=None)
                     - timedelta(minutes=index + 1))
        else:
            at = posted - timedelta(days=rng.randint(1, 6), minutes=rng.randint(0, 600))
        ids.append(_announce(state, target.course_id, "Schedule update for this week" if index == 0 else
                             f"About {target.title}", lines[index % len(lines)], iso(at)))
    return ids


def noise_announcements(world: SeedWorld[LearnState], fault: Firing, count: int, max_days_ago: int) -> list[str]:
    state, rng = world.state, fault.rng
    ids = []
    for index in range(count):
        course = state.courses[index % len(state.courses)]
        title, body = C.ANNOUNCEMENT_LINES[index % len(C.ANNOUNCEMENT_LINES)]
        ids.append(_announce(state, course.id, title, body + " No action is needed.",
                             world.clock.ago(days=rng.randint(2, max(2, max_days_ago)), minutes=rng.randint(0, 600))))
    return ids


def target_missing(world: SeedWorld[LearnState], fault: Firing) -> dict[str, Any]:
    state, target = world.state, _target(world)
    near = _near_miss(state, target)
    gone = [s.id for s in state.submissions if s.assignment_id == target.id]
    naming = [a.id for a in state.announcements if a.course_id == target.course_id and target.title in a.body]
    state.assignments = [a for a in state.assignments if a.id != target.id]
    state.submissions = [s for s in state.submissions if s.assignment_id != target.id]
    state.announcements = [a for a in state.announcements if a.id not in naming]
    return {"removed": target.id, "title": target.title, "course_id": target.course_id, "submissions": gone,
            "announcements": naming, "near_miss": near}


def _near_miss(state: LearnState, target: Assignment) -> dict[str, str]:
    """What a careless agent would take for the target: the same name in another section of the course,
    else the assignment of its course listed next to it."""
    course = state.course(target.course_id)
    assert course is not None
    namesakes = [a for a in state.assignments if a.title == target.title and a.id != target.id
                 and (c := state.course(a.course_id)) is not None and c.code == course.code]
    if namesakes:
        near = namesakes[0]
    else:
        siblings = sorted((a for a in state.assignments if a.course_id == target.course_id and a.id != target.id),
                          key=lambda a: abs(_number(a.title) - _number(target.title)))
        if not siblings:
            raise ValueError(f"the learn world has no look-alike of {target.title} to keep")
        near = siblings[0]
    return {"id": near.id, "title": near.title, "course_id": near.course_id}


def _number(title: str) -> int:
    """'Problem Set 3' -> 3 (0 when a title has no number)."""
    last = title.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


# --- server -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class _PartialWrite:
    points: frozenset[str] = frozenset({"grade", "submit"})

    def drop(self, call: ServerCall[LearnState], fault: Firing) -> dict[str, Any]:
        state = call.state
        if call.point == "grade":
            record = state.submission(call.target or "")
            assert record is not None
            asked, record.feedback = record.feedback, ""
            return {"entity": record.id, "field": "feedback", "asked": asked, "stored": ""}
        record = state.submissions[-1]
        asked_file = record.attachment.file_id if record.attachment else None
        record.attachment = None
        return {"entity": record.id, "field": "attachment", "asked": asked_file, "stored": None}


@dataclass(frozen=True)
class _ConcurrentEdit:
    points: frozenset[str] = frozenset({"grade", "submit"})

    def edit(self, call: ServerCall[LearnState], fault: Firing) -> dict[str, Any]:
        state = call.state
        call.episode.clock.stamp()
        if call.point == "grade":
            record = state.submission(call.target or "")
            if record is None:
                return {"edited": None}
            record.feedback = (record.feedback + " " if record.feedback else "") + "(Viewed by a co-instructor.)"
            return {"edited": record.id, "field": "feedback"}
        assignment = state.assignment(call.target or "")
        if assignment is None:
            return {"edited": None}
        assignment.instructions = assignment.instructions.rstrip() + " (Updated by the instructor.)"
        return {"edited": assignment.id, "field": "instructions"}


# The task's target, by the answer question it is for (`asks.py`): the `to_grade` task's is a problem set
# with submissions waiting for grades; every other task's is the assignment an announcement extended,
# which removing would not make their job impossible, so target_missing takes only the former.
TARGET = TargetScope(
    param="ask", default="none",
    kinds={ask: "problem set awaiting grades" if ask == "to_grade" else "extended assignment"
           for ask in ("none", *ASKS)},
    accepts={"target_missing": ["problem set awaiting grades"]},
)

FAULTS: dict[str, object] = {
    "decoy_items": decoys,
    "hard_negatives": hard_negatives,
    "noise_records": noise_announcements,
    "target_missing": target_missing,
    "partial_write": _PartialWrite(),
    "concurrent_edit": _ConcurrentEdit(),
}

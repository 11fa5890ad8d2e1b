"""The coursework features' part of a Lectern world: the inbox, rubrics and peer reviews, module
prerequisites, syllabi, and the bindings of the tasks built on them. `generate` calls `add_coursework`
on the finished base world, before any answer task's `ask`; it draws from the world's RNG only here.

Bindings it adds (task templates refer to them as `{group.key}`):
    retake:   the graded syllabus quiz already taken (one attempt, one question wrong). {course_id, code,
              course_label, quiz_id, title, score, points}
    bulk:     message the students of the second section who have not handed in its third problem set
              (the first section has its own). {course_id, other_course_id, code, section, other_section,
              course_label, assignment_id, title, ids, names, subject, body}
    inbox:    reply to the instructor's message asking which make-up lab the user can come to (the same
              instructor sent look-alike messages; a classmate's mentions the make-up too). {course_id, code,
              course_label, message_id, subject, sender, sender_id, slot, text}
    upload:   submit an assignment with a file uploaded from the user's computer. {assignment_id, title,
              course_id, code, file_name, file_text, text}
    report:   the average score on one problem set of the second section, from its grade report.
              {course_id, other_course_id, code, section, course_label, title, average}
    regrade:  the graded assignment whose rubric line got fewer points than its level earns. {course_id,
              code, course_label, assignment_id, title, submission_id, criterion_id, criterion, level,
              given, rubric_points, other_assignment_id}
    whatif:   the course total with what-if scores on the two assignments not graded yet. {course_id, code,
              course_label, first_id, first_title, first_score, first_points, second_id, second_title,
              second_score, second_points, percent}
    peer:     the two peer reviews the user was assigned, with the ratings to give. {course_id, code,
              assignment_id, title, review_ids, authors, author_ids, criteria, levels (per review, in
              criterion order), comments}
    checkin:  the week-3 check-in quiz, locked until week 2's lessons are done. {course_id, code, quiz_id,
              title, module_title, lock_title, lock_module_id, lesson_ids, lesson_names, single, short, points}
    extend:   give one student of the second section a later due date on its last problem set.
              {course_id, other_course_id, code, section, other_section, course_label, assignment_id, title,
              student_id, student_name, date, day, old_day}
    syllabus: the late penalty in one course the user takes, from its syllabus file. {course_id, code,
              course_label, penalty, final_weight, days}
    heaviest: the course whose syllabus weighs the final exam most (the others first). {course_ids, code,
              course_label, weight}
    compare:  the section that did better on a problem set, by its grade report (the other first).
              {code, title, loser_label, loser_id, winner_label, winner_id, winner_section, average,
              other_average}
    student_q: reply to a student of one section; a student of the other asked the same. {course_id, code,
              course_label, section, other_section, filter, subject, sender, sender_id, message_id,
              other_message_id, text}
    note:     one message to the instructor and the classmate who shares a first name with another.
              {course_id, code, course_label, teacher, teacher_id, mate, mate_id, other_mate_id, subject, body}
    stranger: a classmate from a course the user takes, in neither section the user teaches. {name, id}
"""

from collections.abc import Callable
from datetime import timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso, parse_iso
from sites.kit.dates import day_label
from sites.learn import content as C
from sites.learn.models import (
    Criterion,
    LearnState,
    Level,
    Message,
    PeerReview,
    Person,
    Quiz,
    RubricScore,
    Submission,
    Syllabus,
)
from sites.learn.quizzing import make_questions, score_attempt
from sites.learn.standing import course_assignments, course_total, report_rows, what_if_total


def rubric_for(points: int) -> list[Criterion]:
    """The four-criterion rubric of an assignment worth `points` (every level a whole number of points)."""
    split = C.RUBRIC_SPLIT[points]
    return [Criterion(id=f"cr{n + 1}", name=name,
                      levels=[Level(label=label, points=round(top * share)) for label, share in C.RUBRIC_LEVELS])
            for n, (name, top) in enumerate(zip(C.RUBRIC_CRITERIA, split, strict=True))]


def add_coursework(state: LearnState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock,
                   due: Callable[[int], str]) -> dict[str, Any]:
    """Add the coursework features to a finished base world; returns their bindings."""
    teach1, teach2, ext_course, quiz_course, work_course = state.courses
    user = state.user
    names = {p.name for p in state.people} | {user.name}
    people = {p.id: p for p in state.people}

    def new_student() -> Person:
        while True:
            name = f"{rng.choice(C.FIRST_NAMES)} {rng.choice(C.SURNAMES)}"
            if name not in names:
                names.add(name)
                person = Person(id=f"u{len(state.people) + 2:03d}", name=name,
                                email=name.lower().replace(" ", ".") + "@uni.test")
                state.people.append(person)
                people[person.id] = person
                return person

    out: dict[str, Any] = {}
    state.next_ids["file"] = len(state.files) + 1

    # -- retake: one question of the work course's syllabus quiz was answered wrong ----------------------
    quiz = next(q for q in state.quizzes if q.course_id == work_course.id and q.allowed_attempts == 1)
    attempt = state.attempts_of(quiz.id, user.id)[0]
    multiple = next(q for q in quiz.questions if q.kind == "multiple")
    attempt.answers[multiple.id] = multiple.key[:1]
    attempt.score = score_attempt(quiz, attempt.answers)
    out["retake"] = {**_course(work_course), "quiz_id": quiz.id, "title": quiz.title, "score": f"{attempt.score:g}",
                     "points": quiz.points}

    # -- bulk: two students joined section 02 late; they did the first two problem sets, not the third -------
    sets = course_assignments(state, teach2.id)
    for _ in range(2):
        joiner = new_student()
        teach2.student_ids.append(joiner.id)
        for problem_set in sets[:2]:
            handed = parse_iso(problem_set.due_at) - timedelta(hours=rng.randint(2, 40))
            state.submissions.append(Submission(
                id=state.take_id("submission", "sub"), assignment_id=problem_set.id, student_id=joiner.id,
                attempt=1, submitted_at=iso(handed), text="Worked solutions attached.",
                score=rng.randint(12, 20), feedback="Good.", graded_at=iso(handed + timedelta(days=3))))
    ps3 = sets[2]
    handed_in = {s.student_id for s in state.submissions if s.assignment_id == ps3.id}
    missing = [sid for sid in teach2.student_ids if sid not in handed_in]
    missing_names = [people[sid].name for sid in missing]
    out["bulk"] = {**_course(teach2), "other_course_id": teach1.id, "section": teach2.section,
                   "other_section": teach1.section, "assignment_id": ps3.id, "title": ps3.title, "ids": missing,
                   "names": missing_names, "subject": f"{ps3.title} not received",
                   "body": f"I have not received your {ps3.title} yet. Please hand it in by Friday so it can "
                           "still be graded."}

    # -- inbox: messages from instructors (look-alike subjects), classmates and students -----------------
    taking = [ext_course, quiz_course, work_course]
    makeup_course = rng.choice(taking)
    messages: list[tuple[str, Message]] = []   # (sort key, message) before ids are given
    for course in taking:
        subjects = rng.sample(C.MESSAGE_SUBJECTS, 3)
        count = 3 if course is makeup_course else 1
        for n in range(count):
            body = rng.choice(C.MESSAGE_ROUTINE)
            messages.append((clock.ago(days=rng.randint(1, 12), minutes=rng.randint(0, 900)), Message(
                id="", course_id=course.id, sender_id=course.instructor_id, recipient_ids=[user.id],
                subject=subjects[n], body=body, sent_at="")))
    slots = rng.sample(C.MAKEUP_SLOTS, 2)
    wanted = next(m for _, m in messages if m.course_id == makeup_course.id)
    wanted.body = C.MAKEUP_BODY.format(a=slots[0], b=slots[1])
    mate = rng.choice([sid for sid in makeup_course.student_ids if sid != user.id])
    messages.append((clock.ago(days=rng.randint(0, 2), minutes=rng.randint(0, 600)), Message(
        id="", course_id=makeup_course.id, sender_id=mate, recipient_ids=[user.id], subject="Make-up lab?",
        body=C.CLASSMATE_MAKEUP, sent_at="")))
    # A student of each section asks about the same thing (the section tells them apart).
    topic = rng.choice(C.STUDENT_QUESTIONS)
    questions: list[Message] = []
    for course in (teach1, teach2):
        asker = rng.choice(course.student_ids[:6])
        questions.append(Message(id="", course_id=course.id, sender_id=asker, recipient_ids=[user.id],
                                 subject=topic, body=C.STUDENT_BODY.format(s=topic.lower()), sent_at=""))
        messages.append((clock.ago(days=rng.randint(1, 6), minutes=rng.randint(0, 900)), questions[-1]))
    messages.sort(key=lambda pair: pair[0])
    for at, message in messages:
        message.id, message.sent_at = state.take_id("message", "msg", 3), at
        state.messages.append(message)
    teacher = people[makeup_course.instructor_id]
    slot = rng.choice(slots)
    asked_in = rng.randrange(2)
    question, other_question = questions[asked_in], questions[1 - asked_in]
    section = (teach1, teach2)[asked_in]
    out["student_q"] = {**_course(section), "section": section.section,
                        "other_section": (teach1, teach2)[1 - asked_in].section,
                        "filter": f"{section.code}-{section.section}", "subject": question.subject,
                        "sender": people[question.sender_id].name, "sender_id": question.sender_id,
                        "message_id": question.id, "other_message_id": other_question.id,
                        "text": "Yes, of course: come by after Thursday's class."}
    # note: a message to the instructor and one classmate, who shares a first name with another one
    reply = bindings["reply"]
    wanted_post = next(p for p in state.posts if p.id == reply["post_id"])
    other_post = next(p for p in state.posts if p.id == reply["other_post_id"])
    out["note"] = {**_course(quiz_course), "teacher": people[quiz_course.instructor_id].name,
                   "teacher_id": quiz_course.instructor_id, "mate": reply["author_name"],
                   "mate_id": wanted_post.author_id, "other_mate_id": other_post.author_id,
                   "subject": "Our group presentation",
                   "body": f"{reply['author_first']} and I would like to present together in week 4. "
                           "Is that all right?"}
    out["inbox"] = {**_course(makeup_course), "message_id": wanted.id, "subject": wanted.subject,
                    "sender": teacher.name, "sender_id": teacher.id, "slot": slot,
                    "text": f"I can come to the {slot} session. Thank you!"}

    # -- upload: the quiz course's third assignment, handed in as a file from the user's computer ----------
    upload = course_assignments(state, quiz_course.id)[2]
    stem = upload.title.lower().replace(" ", "-")
    out["upload"] = {"assignment_id": upload.id, "title": upload.title, "course_id": quiz_course.id,
                     "code": quiz_course.code, "file_name": f"{stem}-{user.name.split()[-1].lower()}.txt",
                     "file_text": f"{upload.title}\n{user.name}\n\n{C.UPLOAD_TEXT}\n",
                     "text": f"My {upload.title.lower()} is in the attached file."}

    # -- report: the grade report of section 02 (its averages are computed when it is rendered) ------------
    asked = rng.choice(sets[:2])
    asked_average = next(row["average"] for row in report_rows(state, teach2.id) if row["a"] is asked)
    out["report"] = {**_course(teach2), "other_course_id": teach1.id, "section": teach2.section,
                     "title": asked.title, "assignment_id": asked.id, "average": f"{asked_average:.1f}"}

    # -- compare: the section that did better on a problem set (never a tie) ------------------------------
    def average(course_id: str, assignment_id: str) -> float:
        rows: list[dict[str, Any]] = report_rows(state, course_id)
        return float(next(row["average"] for row in rows if row["a"].id == assignment_id))

    n = rng.randrange(2)
    first_set, second_set = course_assignments(state, teach1.id)[n], sets[n]
    if average(teach1.id, first_set.id) == average(teach2.id, second_set.id):
        # a regrade settled earlier moved one score up a point (keeps the two sections apart)
        bumped = next(s for s in state.submissions if s.assignment_id == first_set.id and s.score is not None
                      and s.score < first_set.points)
        bumped.score = (bumped.score or 0) + 1
    ranked = sorted(((average(c.id, a.id), c) for c, a in ((teach1, first_set), (teach2, second_set))),
                    key=lambda pair: pair[0])
    (low, loser), (high, winner) = ranked
    out["compare"] = {"code": teach1.code, "title": first_set.title, "loser_label": loser.label,
                      "loser_id": loser.id, "winner_label": winner.label, "winner_id": winner.id,
                      "winner_section": winner.section, "average": f"{high:.1f}", "other_average": f"{low:.1f}"}

    # -- rubrics on the quiz course's graded work; the grader got one line's points wrong -------------------
    graded = course_assignments(state, quiz_course.id)[:2]
    wrong_at = rng.randrange(2)
    regrade: dict[str, Any] = {}
    for index, assignment in enumerate(graded):
        assignment.rubric = rubric_for(assignment.points)
        record = state.submissions_of(assignment.id, user.id)[0]
        record.rubric_scores = []
        slip = rng.randrange(len(assignment.rubric)) if index == wrong_at else None
        for n, criterion in enumerate(assignment.rubric):
            level = criterion.levels[rng.choice((0, 1, 1, 2))]
            given = level.points - (rng.randint(1, 2) if n == slip else 0)
            record.rubric_scores.append(RubricScore(criterion_id=criterion.id, level=level.label, points=given))
            if n == slip:
                regrade = {**_course(quiz_course), "assignment_id": assignment.id, "title": assignment.title,
                           "submission_id": record.id, "criterion_id": criterion.id, "criterion": criterion.name,
                           "level": level.label, "given": f"{given:g}", "rubric_points": str(level.points),
                           "other_assignment_id": graded[1 - index].id}
        record.score = sum(r.points for r in record.rubric_scores)
    out["regrade"] = regrade

    # -- peer reviews: two classmates' submissions to the quiz course's second assignment ------------------
    reviewed = graded[1]
    reviewed.peer_reviews = True
    authors = rng.sample([sid for sid in quiz_course.student_ids if sid != user.id], 2)
    ratings: list[list[str]] = []
    review_ids: list[str] = []
    for author in authors:
        handed = parse_iso(reviewed.due_at) - timedelta(hours=rng.randint(2, 50))
        work = Submission(id=state.take_id("submission", "sub"), assignment_id=reviewed.id, student_id=author,
                          attempt=1, submitted_at=iso(handed),
                          text=rng.choice(C.PEER_TEXTS).format(t=reviewed.title.lower()))
        state.submissions.append(work)
        review = PeerReview(id=state.take_id("peer_review", "pr", 3), assignment_id=reviewed.id,
                            reviewer_id=user.id, submission_id=work.id)
        state.peer_reviews.append(review)
        review_ids.append(review.id)
        ratings.append([rng.choice(c.levels[:3]).label for c in reviewed.rubric])
    comments = rng.sample(C.PEER_COMMENTS, 2)
    out["peer"] = {"course_id": quiz_course.id, "code": quiz_course.code, "assignment_id": reviewed.id,
                   "title": reviewed.title, "review_ids": review_ids, "authors": [people[a].name for a in authors],
                   "author_ids": authors, "levels": ratings, "comments": comments,
                   "criteria": [c.name for c in reviewed.rubric]}

    # -- what-if: the two assignments not graded yet, in one course the user takes --------------------------
    course = rng.choice(taking)
    later = course_assignments(state, course.id)[2:4]
    guesses = {a.id: round(a.points * rng.choice((0.6, 0.7, 0.8, 0.9))) for a in later}
    percent = what_if_total(state, course.id, {k: float(v) for k, v in guesses.items()})
    assert percent is not None and course_total(state, course.id) is not None
    out["whatif"] = {**_course(course), "first_id": later[0].id, "first_title": later[0].title,
                     "first_score": str(guesses[later[0].id]), "first_points": later[0].points,
                     "second_id": later[1].id, "second_title": later[1].title,
                     "second_score": str(guesses[later[1].id]), "second_points": later[1].points,
                     "percent": f"{percent:.1f}"}

    # -- check-in: week 3 of the extension course opens when week 2's lessons are done ----------------------
    weeks = sorted((m for m in state.modules if m.course_id == ext_course.id), key=lambda m: m.position)
    weeks[2].requires = weeks[1].id
    qid = f"qz{len(state.quizzes) + 1:02d}"
    checkin = Quiz(id=qid, course_id=ext_course.id, title="Week 3 check-in",
                   description=f"A short check-in on the start of {weeks[2].title.split(': ', 1)[1].lower()}. "
                               "It opens when you have finished every lesson of week 2.",
                   due_at=due(rng.randint(5, 8)), allowed_attempts=1, time_limit_min=10,
                   questions=make_questions(rng, qid, C.CHECKIN_QUESTIONS), module_id=weeks[2].id)
    state.quizzes.append(checkin)
    single, short = checkin.questions
    labels = {o.id: o.label for o in single.options}
    left = state.lessons_left(weeks[1].id)
    out["checkin"] = {"course_id": ext_course.id, "code": ext_course.code, "quiz_id": checkin.id,
                      "title": checkin.title, "module_title": weeks[2].title, "lock_title": weeks[1].title,
                      "lock_module_id": weeks[1].id,
                      "lesson_ids": [x.id for x in left], "lesson_names": [x.title for x in left],
                      "single": labels[single.key[0]], "short": short.key[0], "points": checkin.points}

    # -- extend: one student of section 02 gets a later due date on the last problem set --------------------
    last = sets[3]
    student = people[rng.choice(teach2.student_ids[:6])]
    granted = parse_iso(last.due_at) + timedelta(days=rng.choice((2, 3, 4, 5)))
    stranger = next(p for p in state.people if p.id in quiz_course.student_ids and p.id != user.id
                    and p.id not in teach1.student_ids and p.id not in teach2.student_ids)
    out["stranger"] = {"name": stranger.name, "id": stranger.id}
    out["extend"] = {**_course(teach2), "other_course_id": teach1.id, "section": teach2.section,
                     "other_section": teach1.section, "assignment_id": last.id, "title": last.title,
                     "student_id": student.id, "student_name": student.name, "date": iso(granted)[:10],
                     "day": day_label(iso(granted)), "old_day": day_label(last.due_at)}

    # -- syllabi: every course the user takes has one (grading weights and the late policy) ---------------
    finals = rng.sample((25, 30, 35, 40), 3)   # one course weighs the final exam most
    for taken, final in zip(taking, finals, strict=True):
        taken.syllabus = Syllabus(weights={"Assignments": 90 - final - 10, "Quizzes": 10, "Participation": 10,
                                           "Final exam": final},
                                  late_penalty_pct=rng.choice((5, 10, 15, 20)), late_days_max=rng.choice((2, 3, 5)),
                                  office_hours=f"{rng.choice(('Monday', 'Tuesday', 'Wednesday'))} "
                                               f"{rng.choice((10, 13, 15))}:00-{rng.choice((11, 14, 16))}:30")
    by_final = sorted(taking, key=lambda c: c.syllabus.weights["Final exam"] if c.syllabus else 0)
    others = by_final[:2]
    rng.shuffle(others)
    by_final = [*others, by_final[2]]
    out["heaviest"] = {"course_ids": [c.id for c in by_final], "code": by_final[-1].code,
                       "course_label": by_final[-1].label, "weight": str(finals[taking.index(by_final[-1])])}
    course = rng.choice(taking)
    assert course.syllabus is not None
    out["syllabus"] = {**_course(course), "penalty": str(course.syllabus.late_penalty_pct),
                       "final_weight": str(course.syllabus.weights["Final exam"]),
                       "days": str(course.syllabus.late_days_max)}
    return out


def _course(course: Any) -> dict[str, str]:
    return {"course_id": course.id, "code": course.code, "course_label": course.label}

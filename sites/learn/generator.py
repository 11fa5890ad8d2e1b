"""Seeded Lectern worlds: a course platform with the traps its tasks need built in.

Everything random comes from the `rng` argument and every time from the episode clock, so the
same (setup, seed) gives byte-identical state. The user teaches two sections of one course and
takes three others; assignments fall due at 11:59 PM on days around the clock's epoch.

The coursework features (inbox, rubrics, peer reviews, prerequisites, syllabi) and their bindings
are added by `coursework.add_coursework`; its docstring lists them.

Setup params: `ask` (optional): the question of an answer task (`asks.ASKS`); it adds that question's
binding (see `sites/learn/asks.py`) and leaves the state as it is. Unknown keys are refused.

Bindings (task templates refer to them as `{group.key}`):
    user:      {id, name, email}
    target:    {id, name}: the assignment extended in an announcement (look-alikes, hard negatives).
    announce:  post an announcement to one of two sections of the course the user teaches.
               {course_id, other_course_id, code, section, other_section, course_label, title, body}
    grade:     grade a student's submission in that section. {course_id, other_course_id, code, course_label, section,
               assignment_id, assignment_title, submission_id, student_id, student_name, score, points, feedback}
    extended:  the assignment whose due date an announcement moved (its page still shows the old one).
               {assignment_id, title, course_id, code, old_day, old_date, new_day, new_date, announcement_id,
                reminder}
    quiz:      the one-attempt syllabus quiz, with the answers to give. {quiz_id, practice_id, course_id, code,
               title, practice_title, single, multiple.0, multiple.1, short, last}
    submit:    submit text and the final file (a newer draft has the same stem). {assignment_id, title,
               course_id, code, text, file_id, file_name, draft_id, draft_name}
    lessons:   mark the unfinished lessons of one module as done. {course_id, code, module_id, module_title,
               ids, names, done_id, done_name}
    resubmit:  the graded assignment whose feedback asks for a resubmission. {assignment_id, title, course_id,
               code, submission_id, other_assignment_id, text}
    reply:     reply to one of two classmates who share a first name. {course_id, code, topic_id, topic_title,
               post_id, author_name, author_first, other_post_id, other_author_name, text}
"""

from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso, parse_iso
from sites.kit.accounts import email_address
from sites.kit.dates import MONTH_NAMES, WEEKDAY_NAMES, day_label
from sites.kit.site import World, WorldSetup
from sites.learn import content as C
from sites.learn.asks import ASKS, ask_bindings
from sites.learn.coursework import add_coursework
from sites.learn.models import (
    Announcement,
    Assignment,
    Attachment,
    Attempt,
    Course,
    CourseEvent,
    File,
    LearnState,
    Lesson,
    Module,
    Person,
    Post,
    Quiz,
    Submission,
    Topic,
)
from sites.learn.quizzing import make_questions as _questions
from sites.learn.quizzing import score_attempt


def long_day(stamp: str) -> str:
    """'2025-01-14...' -> 'Tuesday 14 January'."""
    day = date.fromisoformat(stamp[:10])
    return f"{WEEKDAY_NAMES[day.weekday()]} {day.day} {MONTH_NAMES[day.month - 1]}"


def term_of(clock: EpisodeClock) -> str:
    """The academic term the clock's epoch falls in ('Fall 2025')."""
    month = clock.epoch.month
    return f"{'Spring' if month <= 5 else 'Summer' if month <= 8 else 'Fall'} {clock.epoch.year}"


def _validate(setup: WorldSetup) -> str | None:
    """The answer question the world is for (`ask`), if any."""
    setup.refuse_unknown("learn", ("ask",))
    return setup.one_of("ask", ASKS, ASKS[0]) if "ask" in setup.params else None


class _Builder:
    def __init__(self, rng: Random, clock: EpisodeClock) -> None:
        self.rng, self.clock = rng, clock
        self.midnight = clock.epoch.replace(hour=0, minute=0, second=0, microsecond=0, tzinfo=None)
        self.people: list[Person] = []
        self.names: set[str] = set()

    def due(self, days: int) -> str:
        return iso(self.midnight + timedelta(days=days, hours=23, minutes=59))

    def person(self, name: str) -> Person:
        person = Person(id=f"u{len(self.people) + 2:03d}", name=name,
                        email=name.lower().replace("dr. ", "").replace("prof. ", "").replace(" ", ".") + "@uni.test")
        self.people.append(person)
        self.names.add(name)
        return person

    def student(self) -> Person:
        while True:
            name = f"{self.rng.choice(C.FIRST_NAMES)} {self.rng.choice(C.SURNAMES)}"
            if name not in self.names:
                return self.person(name)


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    ask = _validate(setup)
    b = _Builder(rng, clock)
    first, last = rng.choice(C.USER_FIRST), rng.choice(C.USER_LAST)
    user = Person(id="u001", name=f"{first} {last}", email=email_address(first, last, domain="uni.test"))
    b.names.add(user.name)
    professors = [b.person(name) for name in rng.sample(C.PROFESSORS, 3)]
    term = term_of(clock)
    colors = list(C.COLORS)
    rng.shuffle(colors)

    # Courses: two sections the user teaches, then three the user takes.
    courses: list[Course] = []
    code, title, _kind, _topics = C.TEACHING
    for section in ("01", "02"):
        roster = [b.student().id for _ in range(6)]
        courses.append(Course(id=f"c{len(courses) + 1}", code=code, section=section, title=title, term=term,
                              role="instructor", instructor_id=user.id, student_ids=roster,
                              color=colors[0 if section == "01" else 1]))
    taken = rng.sample(C.STUDENT_COURSES, 3)
    classmates = [b.student() for _ in range(8)]
    # Two classmates share a first name (the reply task's trap).
    shared_first = classmates[0].name.split()[0]
    other_last = next(s for s in C.SURNAMES if s != classmates[0].name.split()[1]
                      and f"{shared_first} {s}" not in b.names)
    classmates[1].name = f"{shared_first} {other_last}"
    classmates[1].email = email_address(shared_first, other_last, domain="uni.test")
    for index, (ccode, ctitle, _k, _t) in enumerate(taken):
        courses.append(Course(id=f"c{len(courses) + 1}", code=ccode, section=f"0{rng.randint(1, 3)}", title=ctitle,
                              term=term, role="student", instructor_id=professors[index].id,
                              student_ids=[user.id, *sorted(p.id for p in rng.sample(classmates, 6))],
                              color=colors[2 + index]))
    teach1, teach2, ext_course, quiz_course, work_course = courses
    specs = {c.id: (C.TEACHING if c.role == "instructor" else taken[i - 2]) for i, c in enumerate(courses)}
    for namesake in classmates[:2]:   # both namesakes are in the reply course
        if namesake.id not in quiz_course.student_ids:
            quiz_course.student_ids.append(namesake.id)

    # Modules and lessons (week 1 finished everywhere; the lessons task's module has one done).
    modules: list[Module] = []
    lessons: list[Lesson] = []
    lesson_module = None
    for course in courses:
        for week, subject in enumerate(specs[course.id][3]):
            module = Module(id=f"m{len(modules) + 1:03d}", course_id=course.id, title=f"Week {week + 1}: {subject}",
                            position=week + 1)
            modules.append(module)
            if course is work_course and week == 1:
                lesson_module = module
            for kind, pattern, minutes in C.LESSON_KINDS:
                lessons.append(Lesson(id=f"l{len(lessons) + 1:03d}", module_id=module.id, course_id=course.id,
                                      title=pattern.format(t=subject), kind=kind, minutes=minutes,
                                      body=C.LESSON_BODY.format(t=subject.lower()),
                                      done=course.role == "student" and week == 0))
    assert lesson_module is not None
    in_module = [x for x in lessons if x.module_id == lesson_module.id]
    already = rng.choice(in_module)
    already.done = True
    to_mark = [x for x in in_module if x is not already]

    # Files the user has uploaded: the submit task's draft is newer than its final version.
    files: list[File] = []
    work_kind = specs[work_course.id][2]
    stem = work_kind.lower().replace(" ", "-") + "-3"
    for n, name in enumerate(rng.sample(C.FILE_STEMS, 3)):
        files.append(File(id="", name=f"{name}.pdf", size_kb=rng.randint(80, 2400), mime="application/pdf",
                          uploaded_at=clock.ago(days=rng.randint(10, 40), minutes=n)))
    final = File(id="", name=f"{stem}-final.pdf", size_kb=rng.randint(300, 900), mime="application/pdf",
                 uploaded_at=clock.ago(days=2, minutes=rng.randint(0, 300)))
    draft = File(id="", name=f"{stem}-draft.pdf", size_kb=rng.randint(200, 800), mime="application/pdf",
                 uploaded_at=clock.ago(hours=rng.randint(2, 20)))
    files += [final, draft]
    files.sort(key=lambda f: f.uploaded_at)
    for index, upload in enumerate(files):
        upload.id = f"f{index + 1:03d}"

    # Assignments: four per course; the first two past and graded, the last two upcoming (in the
    # sections the user teaches, the third is just past and waiting to be graded).
    assignments: list[Assignment] = []
    submissions: list[Submission] = []
    offsets = (-15, -8, 3, 10)
    for course in courses:
        kind, week_topics = specs[course.id][2], specs[course.id][3]
        shift = rng.randint(0, 2)   # courses fall due on different weekdays
        course_modules = [m for m in modules if m.course_id == course.id]
        for n in range(4):
            assignments.append(Assignment(
                id=f"a{len(assignments) + 1:03d}", course_id=course.id, module_id=course_modules[n].id,
                title=f"{kind} {n + 1}", instructions=C.INSTRUCTIONS.format(words=rng.choice((600, 800, 1000)),
                                                                             t=week_topics[n].lower()),
                due_at=b.due(-2 - shift if course.role == "instructor" and n == 2 else offsets[n] + shift),
                points=20 if course.role == "instructor" else rng.choice((20, 25, 50)),
                allowed_attempts=1))
    by_course = {c.id: [a for a in assignments if a.course_id == c.id] for c in courses}

    def submit(assignment: Assignment, student_id: str, days_before: int, text: str, score: float | None,
               feedback: str = "") -> Submission:
        due = parse_iso(assignment.due_at)
        record = Submission(id=f"sub{len(submissions) + 1:04d}", assignment_id=assignment.id, student_id=student_id,
                            attempt=1, submitted_at=iso(due - timedelta(days=days_before, minutes=rng.randint(5, 900))),
                            text=text, score=score, feedback=feedback,
                            graded_at=iso(due + timedelta(days=2)) if score is not None else None)
        submissions.append(record)
        return record

    resubmit_index = rng.randint(0, 1)
    for course in courses[2:]:
        for n, assignment in enumerate(by_course[course.id][:2]):
            asks = course is ext_course and n == resubmit_index
            if asks:
                assignment.allowed_attempts = 2
            points = assignment.points
            submit(assignment, user.id, rng.randint(0, 3), f"My {assignment.title.lower()} for {course.code}.",
                   score=round(points * (0.55 if asks else rng.uniform(0.75, 0.95))),
                   feedback=C.FEEDBACK_RESUBMIT if asks else rng.choice(C.FEEDBACK_GOOD))
    resubmit_assignment = by_course[ext_course.id][resubmit_index]
    resubmit_old = next(s for s in submissions if s.assignment_id == resubmit_assignment.id)
    by_course[work_course.id][2].allowed_attempts = 1
    # The sections' problem sets: most students submitted; a few are graded already.
    for course in (teach1, teach2):
        ps = by_course[course.id]
        for n in range(2):
            for sid in course.student_ids:
                submit(ps[n], sid, rng.randint(0, 2), "Worked solutions attached.", score=rng.randint(12, 20),
                       feedback="Good.")
        for sid in course.student_ids[:5]:
            graded = sid in course.student_ids[:2]
            submit(ps[2], sid, rng.randint(0, 2), C.PS3_ANSWER.format(mean=rng.randint(110, 140) / 10,
                                                                     p=rng.randint(55, 70) / 100),
                   score=rng.randint(13, 20) if graded else None, feedback="Well done." if graded else "")
    grade_student = teach2.student_ids[rng.randint(2, 4)]
    grade_assignment = by_course[teach2.id][2]
    grade_sub = next(s for s in submissions if s.assignment_id == grade_assignment.id and s.student_id == grade_student)
    attach = files[0]
    for sub in submissions:
        if sub.student_id == user.id:
            sub.attachment = Attachment(file_id=attach.id, name=attach.name, size_kb=attach.size_kb,
                                           mime=attach.mime)

    # Quizzes: a graded syllabus quiz per course the user takes (one attempt), and a practice quiz.
    quizzes: list[Quiz] = []
    attempts: list[Attempt] = []
    for course in courses[2:]:
        qid = f"qz{len(quizzes) + 1:02d}"
        quiz = Quiz(id=qid, course_id=course.id, title="Syllabus quiz",
                    description="Check that you know how the course runs. You have one attempt: answers can't be "
                                "changed after you submit.",
                    due_at=b.due(rng.randint(4, 9)), allowed_attempts=1, time_limit_min=15,
                    questions=_questions(rng, qid, C.SYLLABUS_QUESTIONS))
        quizzes.append(quiz)
        if course is not quiz_course:
            answers = {q.id: list(q.key) for q in quiz.questions}
            attempts.append(Attempt(id=f"at{len(attempts) + 1:03d}", quiz_id=quiz.id, student_id=user.id, number=1,
                                    submitted_at=clock.ago(days=rng.randint(3, 20)), answers=answers,
                                    score=score_attempt(quiz, answers)))
        pid = f"qz{len(quizzes) + 1:02d}"
        quizzes.append(Quiz(id=pid, course_id=course.id, title="Practice quiz: the syllabus",
                            description="Ungraded practice. Take it as often as you like.",
                            due_at=b.due(20), allowed_attempts=3, time_limit_min=10,
                            questions=_questions(rng, pid, C.PRACTICE_QUESTIONS)))
    target_quiz = next(q for q in quizzes if q.course_id == quiz_course.id and q.allowed_attempts == 1)
    practice = next(q for q in quizzes if q.course_id == quiz_course.id and q.allowed_attempts > 1)

    # Discussions: topics per course the user takes; in the reply course two classmates share a first name.
    topics: list[Topic] = []
    posts: list[Post] = []
    for course in courses[2:]:
        for n, topic_title in enumerate(rng.sample(C.TOPIC_TITLES, 3)):
            topic = Topic(id=f"t{len(topics) + 1:03d}", course_id=course.id, title=topic_title,
                          body="Post your questions and answers here. Be kind and specific.",
                          author_id=course.instructor_id, posted_at=clock.ago(days=30 - n * 7))
            topics.append(topic)
            # The namesakes post only the two posts the reply task is about.
            authors = [sid for sid in course.student_ids if sid not in {user.id, classmates[0].id, classmates[1].id}]
            for line in rng.sample(C.STUDENT_POSTS, 3):
                posts.append(Post(id="", topic_id=topic.id, author_id=rng.choice(authors), body=line,
                                  posted_at=clock.ago(days=29 - n * 7, minutes=rng.randint(0, 5000))))
    reply_topic = next(t for t in topics if t.course_id == quiz_course.id)
    pair = [classmates[0], classmates[1]]
    rng.shuffle(pair)
    asked = [Post(id="", topic_id=reply_topic.id, author_id=p.id, body=line,
                  posted_at=clock.ago(days=rng.randint(1, 5), minutes=rng.randint(0, 600)))
             for p, line in zip(pair, rng.sample(C.STUDENT_POSTS, 2), strict=True)]
    posts += asked
    posts.sort(key=lambda p: (p.posted_at, p.topic_id))
    for index, post in enumerate(posts):
        post.id = f"p{index + 1:04d}"
    wanted_post, other_post = asked

    # Announcements: routine ones, and the extension of the third assignment of one course.
    extended = by_course[ext_course.id][2]
    new_due = b.due(3 + rng.randint(4, 6))
    announcements: list[Announcement] = []
    for course in courses:
        for n, (a_title, a_body) in enumerate(rng.sample(C.ANNOUNCEMENT_LINES, 2)):
            announcements.append(Announcement(id="", course_id=course.id, title=a_title, body=a_body,
                                              author_id=course.instructor_id,
                                              posted_at=clock.ago(days=25 - n * 9, minutes=rng.randint(0, 600))))
    extension = Announcement(
        id="", course_id=ext_course.id, title="Schedule update for this week",
        body=(f"Because the teaching lab was closed on Monday, {extended.title} is now due on "
              f"{long_day(new_due)} at 11:59 PM. The date on the assignment page has not been changed yet: "
              "go by this announcement. Everything else stays as planned."),
        author_id=ext_course.instructor_id, posted_at=clock.ago(days=1, minutes=rng.randint(0, 600)))
    announcements.append(extension)
    announcements.sort(key=lambda a: (a.posted_at, a.course_id))
    for index, note in enumerate(announcements):
        note.id = f"an{index + 1:03d}"

    events: list[CourseEvent] = []
    for course in courses:
        weekday, hour = rng.randint(0, 4), rng.choice((9, 11, 14, 16))
        room = rng.choice(C.ROOMS)
        for week in range(3):
            start = b.midnight + timedelta(days=(weekday - b.midnight.weekday()) % 7 + 7 * week + 1, hours=hour)
            events.append(CourseEvent(id="", course_id=course.id, title=f"{course.code} {C.EVENT_TITLES[0]}",
                                      start=iso(start), location=room))
    events.sort(key=lambda e: (e.start, e.course_id))
    for index, event in enumerate(events):
        event.id = f"ev{index + 1:03d}"

    state = LearnState(
        user=user, people=b.people, courses=courses, modules=modules, lessons=lessons, files=files,
        assignments=assignments, submissions=submissions, quizzes=quizzes, attempts=attempts, topics=topics,
        posts=posts, announcements=announcements, events=events,
        next_ids={"submission": len(submissions) + 1, "attempt": len(attempts) + 1, "post": len(posts) + 1,
                  "announcement": len(announcements) + 1, "reminder": 1, "assignment": len(assignments) + 1},
    )
    single, multiple, short, final_q = target_quiz.questions
    labels = {o.id: o.label for q in target_quiz.questions for o in q.options}
    grade_name = b_name(b, grade_student)
    bindings: dict[str, Any] = {
        "user": {"id": user.id, "name": user.name, "email": user.email},
        "target": {"id": extended.id, "name": extended.title},
        "announce": {"course_id": teach2.id, "other_course_id": teach1.id, "code": teach2.code,
                     "section": teach2.section, "other_section": teach1.section, "course_label": teach2.label,
                     "title": "Room change for Thursday's lecture",
                     "body": f"Thursday's lecture for section {teach2.section} moves to {rng.choice(C.ROOMS[:3])}."},
        "grade": {"course_id": teach2.id, "other_course_id": teach1.id, "code": teach2.code,
                  "course_label": teach2.label,
                  "section": teach2.section, "assignment_id": grade_assignment.id,
                  "assignment_title": grade_assignment.title, "submission_id": grade_sub.id,
                  "student_id": grade_student, "student_name": grade_name, "score": str(rng.randint(14, 19)),
                  "points": grade_assignment.points, "feedback": rng.choice(("Good work: check question 4.",
                                                                             "Clear reasoning throughout."))},
        "extended": {"assignment_id": extended.id, "title": extended.title, "course_id": ext_course.id,
                     "code": ext_course.code, "old_day": day_label(extended.due_at),
                     "old_date": extended.due_at[:10], "new_day": day_label(new_due), "new_date": new_due[:10],
                     "announcement_id": extension.id, "reminder": f"Finish {extended.title}"},
        "quiz": {"quiz_id": target_quiz.id, "practice_id": practice.id, "course_id": quiz_course.id,
                 "code": quiz_course.code, "title": target_quiz.title, "practice_title": practice.title,
                 "single": labels[single.key[0]], "multiple": [labels[k] for k in multiple.key],
                 "short": short.key[0], "last": labels[final_q.key[0]]},
        "submit": {"assignment_id": by_course[work_course.id][2].id, "title": by_course[work_course.id][2].title,
                   "course_id": work_course.id, "code": work_course.code,
                   "text": f"Here is my {by_course[work_course.id][2].title.lower()}; the full version is in the PDF.",
                   "file_id": final.id, "file_name": final.name, "draft_id": draft.id, "draft_name": draft.name},
        "lessons": {"course_id": work_course.id, "code": work_course.code, "module_id": lesson_module.id,
                    "module_title": lesson_module.title, "ids": [x.id for x in to_mark],
                    "names": [x.title for x in to_mark], "done_id": already.id, "done_name": already.title},
        "resubmit": {"assignment_id": resubmit_assignment.id, "title": resubmit_assignment.title,
                     "course_id": ext_course.id, "code": ext_course.code, "submission_id": resubmit_old.id,
                     "other_assignment_id": by_course[ext_course.id][1 - resubmit_index].id,
                     "text": "Resubmission: figure captions and the methods section are added."},
        "reply": {"course_id": quiz_course.id, "code": quiz_course.code, "topic_id": reply_topic.id,
                  "topic_title": reply_topic.title, "post_id": wanted_post.id,
                  "author_name": b_name(b, wanted_post.author_id), "author_first": shared_first,
                  "other_post_id": other_post.id,
                  "other_author_name": b_name(b, other_post.author_id),
                  "text": "Good question: the second reading is the one with the worked example."},
    }
    bindings.update(add_coursework(state, bindings, rng, clock, b.due))
    if ask is not None:
        bindings.update(ask_bindings(ask, state, bindings, rng, clock))
    return World(state=state, bindings=bindings)


def b_name(b: _Builder, person_id: str) -> str:
    return next(p.name for p in b.people if p.id == person_id)

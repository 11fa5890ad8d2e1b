"""Lectern's state. The grader diffs it by collection: keep field names stable.

Collections (top-level lists of records with string ids): `people`, `courses`, `modules`,
`lessons`, `files`, `assignments`, `submissions`, `quizzes`, `attempts`, `topics`, `posts`,
`announcements`, `events`, `reminders`, `messages` (the inbox), `regrades` (regrade requests),
`peer_reviews`, `extensions` (a later due date for one student), `reports` (grade reports prepared
for download). Top-level object: `user`. `next_ids` is bookkeeping.
Times are ISO-8601 strings from the episode clock.

The user is a student in some courses and the instructor of others (`Course.role`); the
instructor pages (grading, announcements) exist only for the latter. A quiz's answer key
(`Question.key`) is never rendered: only the score of an attempt is shown.
"""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints, field_validator

from sites.kit.bodies import Day, Id
from sites.kit.bodies import RequestBody as _Body
from sites.kit.bodies import no_markup as _no_markup
from sites.kit.bodies import text as _text
from sites.kit.deps import EpisodeOf
from sites.kit.ids import TakesIds
from sites.kit.lookup import find

if TYPE_CHECKING:
    pass

Role = Literal["student", "instructor"]
QuestionKind = Literal["single", "multiple", "short"]

TEXT_MAX = 5000
POST_MAX = 2000


class Person(BaseModel):
    id: str
    name: str
    email: str


class Syllabus(BaseModel):
    """What a course's syllabus file says about grading (rendered only in the downloaded syllabus)."""

    weights: dict[str, int] = Field(description="category -> percent of the final grade")
    late_penalty_pct: int = Field(description="percent of the points taken off per day late")
    late_days_max: int = Field(description="after this many days late, work is not accepted")
    office_hours: str


class Course(BaseModel):
    id: str
    code: str = Field(description="catalog code, e.g. 'STAT 110'")
    section: str = Field(description="section number, e.g. '01'")
    title: str
    term: str
    role: Role
    instructor_id: str
    student_ids: list[str]
    color: str
    syllabus: Syllabus | None = None

    @property
    def label(self) -> str:
        return f"{self.code}-{self.section} {self.title}"


class Module(BaseModel):
    id: str
    course_id: str
    title: str
    position: int
    requires: str | None = Field(default=None, description="a module whose lessons must all be done first")


class Lesson(BaseModel):
    id: str
    module_id: str
    course_id: str
    title: str
    kind: Literal["reading", "video", "notes"]
    minutes: int
    body: str
    done: bool = False


class File(BaseModel):
    id: str
    name: str
    size_kb: int
    mime: str
    uploaded_at: str


class Attachment(BaseModel):
    file_id: str
    name: str
    size_kb: int
    mime: str


class Level(BaseModel):
    label: str
    points: int


class Criterion(BaseModel):
    """One row of a rubric: what is judged, and the points each level of it earns."""

    id: str
    name: str
    levels: list[Level]

    def points_for(self, label: str) -> int | None:
        return next((lv.points for lv in self.levels if lv.label == label), None)


class Assignment(BaseModel):
    id: str
    course_id: str
    module_id: str | None
    title: str
    instructions: str
    due_at: str = Field(description="the due date shown on the assignment's page")
    points: int
    allowed_attempts: int
    rubric: list[Criterion] = Field(default_factory=list)
    peer_reviews: bool = Field(default=False, description="students review each other's submissions")


class RubricScore(BaseModel):
    criterion_id: str
    level: str
    points: float


class Submission(BaseModel):
    id: str
    assignment_id: str
    student_id: str
    attempt: int
    submitted_at: str
    text: str
    attachment: Attachment | None = None
    late: bool = False
    score: float | None = None
    feedback: str = ""
    graded_at: str | None = None
    rubric_scores: list[RubricScore] = Field(default_factory=list, description="the grader's level and points "
                                                                                 "per rubric criterion")



class Option(BaseModel):
    id: str
    label: str


class Question(BaseModel):
    id: str
    kind: QuestionKind
    prompt: str
    points: int
    options: list[Option] = Field(default_factory=list)
    key: list[str] = Field(description="option ids (single, multiple) or accepted answers (short); never shown")


class Quiz(BaseModel):
    id: str
    course_id: str
    title: str
    description: str
    due_at: str
    allowed_attempts: int
    time_limit_min: int
    questions: list[Question]
    module_id: str | None = Field(default=None, description="the module it belongs to (locked with it)")

    @property
    def points(self) -> int:
        return sum(q.points for q in self.questions)


class Attempt(BaseModel):
    id: str
    quiz_id: str
    student_id: str
    number: int
    submitted_at: str
    answers: dict[str, list[str]] = Field(description="question id -> chosen option ids, or [typed text]")
    score: float


class Topic(BaseModel):
    id: str
    course_id: str
    title: str
    body: str
    author_id: str
    posted_at: str


class Post(BaseModel):
    id: str
    topic_id: str
    author_id: str
    body: str
    posted_at: str
    reply_to: str | None = None


class Announcement(BaseModel):
    id: str
    course_id: str
    title: str
    body: str
    author_id: str
    posted_at: str


class CourseEvent(BaseModel):
    id: str
    course_id: str
    title: str
    start: str
    location: str


class Reminder(BaseModel):
    id: str
    title: str
    date: str = Field(description="YYYY-MM-DD")
    created_at: str


class Message(BaseModel):
    """A message in the inbox, always about one course; a reply names the message it answers."""

    id: str
    course_id: str
    sender_id: str
    recipient_ids: list[str]
    subject: str
    body: str
    sent_at: str
    reply_to: str | None = None


class Regrade(BaseModel):
    """A student's request to look again at one rubric criterion of a graded submission."""

    id: str
    submission_id: str
    criterion_id: str
    message: str
    status: Literal["pending", "accepted", "declined"] = "pending"
    requested_at: str


class PeerReview(BaseModel):
    """A classmate's submission the user was assigned to review: a level per rubric criterion and a comment."""

    id: str
    assignment_id: str
    reviewer_id: str
    submission_id: str
    ratings: dict[str, str] = Field(default_factory=dict, description="criterion id -> level label")
    comment: str = ""
    done_at: str | None = None


class Extension(BaseModel):
    """A later due date for one student on one assignment (the instructor's, for that student only)."""

    id: str
    assignment_id: str
    student_id: str
    due_at: str
    granted_at: str


class Report(BaseModel):
    """A grade report of a course, prepared on request for download."""

    id: str
    course_id: str
    prepared_at: str


class LearnState(TakesIds, BaseModel):
    user: Person
    people: list[Person]
    courses: list[Course]
    modules: list[Module]
    lessons: list[Lesson]
    files: list[File]
    assignments: list[Assignment]
    submissions: list[Submission]
    quizzes: list[Quiz]
    attempts: list[Attempt] = Field(default_factory=list)
    topics: list[Topic]
    posts: list[Post]
    announcements: list[Announcement]
    events: list[CourseEvent]
    reminders: list[Reminder] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    regrades: list[Regrade] = Field(default_factory=list)
    peer_reviews: list[PeerReview] = Field(default_factory=list)
    extensions: list[Extension] = Field(default_factory=list)
    reports: list[Report] = Field(default_factory=list)
    next_ids: dict[str, int]

    def person(self, person_id: str) -> Person | None:
        return self.user if person_id == self.user.id else next((p for p in self.people if p.id == person_id), None)

    def course(self, course_id: str) -> Course | None:
        return find(self.courses, course_id)

    def module(self, module_id: str) -> Module | None:
        return find(self.modules, module_id)

    def lesson(self, lesson_id: str) -> Lesson | None:
        return find(self.lessons, lesson_id)

    def file(self, file_id: str) -> File | None:
        return find(self.files, file_id)

    def assignment(self, assignment_id: str) -> Assignment | None:
        return find(self.assignments, assignment_id)

    def submission(self, submission_id: str) -> Submission | None:
        return find(self.submissions, submission_id)

    def quiz(self, quiz_id: str) -> Quiz | None:
        return find(self.quizzes, quiz_id)

    def announcement(self, announcement_id: str) -> Announcement | None:
        return find(self.announcements, announcement_id)

    def message(self, message_id: str) -> Message | None:
        return find(self.messages, message_id)

    def lessons_left(self, module_id: str) -> list[Lesson]:
        """The lessons of a module not done yet."""
        return [x for x in self.lessons if x.module_id == module_id and not x.done]

    def locked_by(self, module_id: str | None) -> Module | None:
        """The module that must be finished before `module_id` opens (None when it is open)."""
        module = self.module(module_id) if module_id else None
        if module is None or module.requires is None:
            return None
        return self.module(module.requires) if self.lessons_left(module.requires) else None

    def due_for(self, assignment: Assignment, student_id: str) -> str:
        """The due date that holds for one student: an extension's, else the assignment's."""
        granted = [e.due_at for e in self.extensions if e.assignment_id == assignment.id and e.student_id == student_id]
        return max(granted) if granted else assignment.due_at

    def submissions_of(self, assignment_id: str, student_id: str) -> list[Submission]:
        return sorted((s for s in self.submissions if s.assignment_id == assignment_id and s.student_id == student_id),
                      key=lambda s: s.attempt)

    def attempts_of(self, quiz_id: str, student_id: str) -> list[Attempt]:
        return sorted((a for a in self.attempts if a.quiz_id == quiz_id and a.student_id == student_id),
                      key=lambda a: a.number)


# ---- request bodies (every JSON write) -------------------------------------------------------------



class SubmitBody(_Body):
    text: Annotated[str, _text(0, TEXT_MAX)] = ""
    file_id: Id | None = None

    _plain = field_validator("text")(classmethod(lambda cls, v: _no_markup(v)))


class AttemptBody(_Body):
    answers: dict[Id, list[Annotated[str, _text(0, 200)]]] = Field(max_length=50)

    @field_validator("answers")
    @classmethod
    def _plain_answers(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for chosen in value.values():
            if len(chosen) > 10:
                raise ValueError("at most 10 answers to a question")
            for item in chosen:
                _no_markup(item)
        return value


class DoneBody(_Body):
    done: bool

    @field_validator("done", mode="before")
    @classmethod
    def _strict_bool(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("true or false")
        return value


class PostBody(_Body):
    body: Annotated[str, _text(2, POST_MAX)]
    reply_to: Id | None = None

    _plain = field_validator("body")(classmethod(lambda cls, v: _no_markup(v)))


class ReminderBody(_Body):
    title: Annotated[str, _text(2, 120)]
    date: Day

    _plain = field_validator("title")(classmethod(lambda cls, v: _no_markup(v)))


class GradeBody(_Body):
    score: float = Field(strict=True, allow_inf_nan=False)
    feedback: Annotated[str, _text(0, POST_MAX)] = ""

    _plain = field_validator("feedback")(classmethod(lambda cls, v: _no_markup(v)))

    @field_validator("score", mode="before")
    @classmethod
    def _number(cls, value: object) -> object:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ValueError("a number")
        return value


class AnnouncementBody(_Body):
    title: Annotated[str, _text(3, 120)]
    body: Annotated[str, _text(5, TEXT_MAX)]

    _plain = field_validator("title", "body")(classmethod(lambda cls, v: _no_markup(v)))



class MessageBody(_Body):
    course_id: Id
    recipient_ids: list[Id] = Field(min_length=1, max_length=60)
    subject: Annotated[str, _text(2, 120)]
    body: Annotated[str, _text(2, POST_MAX)]

    _plain = field_validator("subject", "body")(classmethod(lambda cls, v: _no_markup(v)))


class ReplyBody(_Body):
    body: Annotated[str, _text(2, POST_MAX)]

    _plain = field_validator("body")(classmethod(lambda cls, v: _no_markup(v)))


UPLOAD_MAX_BYTES = 512 * 1024  # a file the platform takes: larger ones are refused (413), as upload forms cap them
UPLOAD_TYPES = ("text/plain", "application/pdf", "image/png")


class UploadBody(_Body):
    name: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=100,
                                           pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._()-]*$")]
    content_type: Literal["text/plain", "application/pdf", "image/png"]
    # twice what the largest file takes in base64: a larger file is told it is too large (413), not malformed
    data: Annotated[str, StringConstraints(strict=True, max_length=(UPLOAD_MAX_BYTES + 2) // 3 * 8)]


class RegradeBody(_Body):
    criterion_id: Id
    message: Annotated[str, _text(5, POST_MAX)]

    _plain = field_validator("message")(classmethod(lambda cls, v: _no_markup(v)))


class PeerReviewBody(_Body):
    ratings: dict[Id, Annotated[str, _text(1, 40)]] = Field(max_length=20)
    comment: Annotated[str, _text(2, POST_MAX)]

    _plain = field_validator("comment")(classmethod(lambda cls, v: _no_markup(v)))


class ExtensionBody(_Body):
    student_id: Id
    date: Day


# What every learn handler takes: the request's episode, its state typed (`sites.kit.deps`).
LearnEpisode = EpisodeOf[LearnState]

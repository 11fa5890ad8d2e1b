"""Answers: what a task says is a correct final answer (`AnswerSpec`, the task's `answer:` block), what
an agent said (`Answer`), and how an agent's answer file is read (`read_answer`).

An answer task is graded by exactly one deterministic predicate over the given answer (grader/answers.py
holds the normalisers); the expected values are `{placeholders}` filled from the seeded world's bindings.
The answer "infeasible" is its own flag, never a string to match: an agent reports that the task cannot be
done, and a task (or a variant whose seed fault removed its target) says that this is the correct outcome.
"""

import json
import re
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import Field, ValidationError, model_validator

from scenarios.strict import Strict

Normaliser = Literal["case", "space", "punctuation"]
_ALL_NORMALISERS: tuple[Normaliser, ...] = ("case", "space", "punctuation")
TaskKind = Literal["action", "answer", "action+answer", "infeasible"]
TASK_KINDS: tuple[TaskKind, ...] = get_args(TaskKind)

ANSWER_PREDICATES = ("eq", "one_of", "contains_all", "number", "date", "set_eq", "regex")
MAX_ANSWER_CHARS = 4000  # an answer is a value or a sentence; a longer one is cut (and said so in the verdict)
MAX_ANSWER_FILE_BYTES = 64 * 1024


class AnswerSpec(Strict):
    """What a correct answer is: exactly one predicate, or `infeasible: true` (the task cannot be done)."""

    desc: str = Field(default="", description="what the answer is, for the report (e.g. 'the booking reference')")
    eq: str | None = Field(default=None, description="the answer equals this text (after normalisation)")
    one_of: list[str] | str | None = Field(default=None, description="equals one of these texts")
    contains_all: list[str] | str | None = Field(default=None, description="contains each of these texts")
    number: float | str | None = Field(
        default=None, description="the one number (amount) the answer states; currency marks and separators ignored")
    tolerance: float = Field(default=0.0, ge=0, description="with number: the largest accepted difference")
    scale: float = Field(default=1.0, gt=0, description="with number: expected = value x scale (cents -> 0.01)")
    date: str | None = Field(default=None, description="an ISO date (YYYY-MM-DD); any unambiguous spelling of it")
    set_eq: list[str] | str | None = Field(
        default=None, description="a list answer with exactly these items, in any order")
    regex: str | None = Field(default=None, description="the whole (normalised) answer matches this expression")
    normalise: list[Normaliser] = Field(
        default_factory=lambda: list(_ALL_NORMALISERS),
        description="text predicates: what is ignored when comparing (case, runs of spaces, punctuation)")
    infeasible: bool = Field(default=False, description="the correct outcome is the answer 'infeasible'")
    weight: float = Field(default=1.0, gt=0, description="next to the task's create/update/delete checks")

    @model_validator(mode="after")
    def _one_predicate(self) -> "AnswerSpec":
        given = [name for name in ANSWER_PREDICATES if getattr(self, name) is not None]
        if self.infeasible:
            if given:
                raise ValueError(f"an infeasible answer takes no predicate (got {', '.join(given)})")
            return self
        if len(given) != 1:
            raise ValueError("an answer is exactly one of: " + ", ".join(ANSWER_PREDICATES)
                             + (f" (got {', '.join(given)})" if given else " (or infeasible: true)"))
        if self.regex is not None:
            try:
                re.compile(self.regex)
            except re.error as exc:
                raise ValueError(f"regex: {exc}") from None
        return self

    @property
    def predicate(self) -> str:
        return "infeasible" if self.infeasible else next(n for n in ANSWER_PREDICATES if getattr(self, n) is not None)


class Answer(Strict):
    """What an agent answered: a value (text, or a list of texts), and/or that the task cannot be done."""

    value: str | list[str] | None = Field(default=None, description="None: the agent gave no answer")
    infeasible: bool = Field(default=False, description="the agent reports that the task cannot be done")

    @property
    def given(self) -> bool:
        return self.value is not None or self.infeasible

    def shown(self) -> str:
        """One line for a report or a verdict."""
        if self.infeasible:
            return "infeasible" + (f" ({self.value!r})" if self.value not in (None, "") else "")
        if self.value is None:
            return "no answer"
        return repr(self.value)


INFEASIBLE_BINDING = "infeasible"
"""Set in a world's bindings by a seed fault that makes its task impossible (e.g. removes the target)."""


def expects_infeasible(spec: AnswerSpec | None, bindings: dict[str, Any]) -> bool:
    """Is 'infeasible' the correct outcome: the task says so, or this world's seed fault made it so?"""
    return (spec is not None and spec.infeasible) or bool(bindings.get(INFEASIBLE_BINDING))


AnswerLike = str | list[str] | Answer
ANSWER_FILE = "answer.txt"
"""In the episode folder: where a `cmd:` agent leaves its answer (WEBCHAOS_ANSWER_FILE)."""


def as_answer(value: AnswerLike) -> Answer:
    """An answer from what a caller passes: text, a list of texts, or an `Answer` (for infeasible)."""
    if isinstance(value, Answer):
        return value
    if isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return Answer(value=value)
    raise TypeError(f"an answer is text, a list of texts or webchaos.Answer, got {type(value).__name__}")


class AnswerFileError(ValueError):
    pass


def parse_answer(raw: str) -> Answer:
    """An answer as an agent writes it: plain text, or JSON `{"answer": ..., "infeasible": true|false}`.

    Plain text that is not such an object is the answer itself (a bare JSON string or list is its value)."""
    text = raw.strip()
    if not text:
        return Answer()
    try:
        decoded: Any = json.loads(text)
    except ValueError:
        return Answer(value=text[:MAX_ANSWER_CHARS])
    if isinstance(decoded, dict):
        unknown = sorted(set(decoded) - {"answer", "infeasible"})
        if unknown:
            raise AnswerFileError(f"unknown key(s) {', '.join(unknown)}; expected 'answer' and 'infeasible'")
        infeasible = decoded.get("infeasible", False)
        if not isinstance(infeasible, bool):
            raise AnswerFileError(f"'infeasible' must be true or false, got {infeasible!r}")
        return Answer(value=_value(decoded.get("answer")), infeasible=infeasible)
    return Answer(value=_value(decoded))


def _value(value: Any) -> str | list[str] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return [_scalar(item)[:MAX_ANSWER_CHARS] for item in value[:200]]
    return _scalar(value)[:MAX_ANSWER_CHARS]


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return json.dumps(value)
    raise AnswerFileError(f"an answer is text, a number or a list of them, got {type(value).__name__}")


def read_answer(path: Path) -> Answer:
    """The answer an agent left in `path` (WEBCHAOS_ANSWER_FILE); a missing file is no answer."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_ANSWER_FILE_BYTES + 1)
    except FileNotFoundError:
        return Answer()
    if len(raw) > MAX_ANSWER_FILE_BYTES:
        raise AnswerFileError(f"{path}: larger than {MAX_ANSWER_FILE_BYTES} bytes")
    try:
        return parse_answer(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise AnswerFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except (AnswerFileError, ValidationError) as exc:
        raise AnswerFileError(f"{path}: {exc}") from None

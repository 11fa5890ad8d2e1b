"""Grade an agent's answer against a task's filled `answer:` block: deterministic normalisers, no judge.

- text (`eq`, `one_of`, `contains_all`, `set_eq`, `regex`): Unicode NFKC, then what the spec's `normalise`
  lists: case folded, runs of white space made one space, punctuation and symbols dropped;
- `number`: the one amount the answer states, currency marks, codes and thousands separators ignored
  ("$1,204.50", "1204.5 USD" and "1,204.50" are the same); several different amounts are no answer;
- `date`: any unambiguous spelling of the day (2026-11-03, 3 Nov 2026, November 3rd, 2026, Tue 3 November;
  a slashed date only where day and month cannot be swapped); a spelling without the year matches the day
  in any year, as a person answering about this month would write it.
"""

import math
import re
import unicodedata
from collections.abc import Iterable
from datetime import date
from typing import Any

from pydantic import BaseModel, Field

from scenarios.answers import Answer, AnswerSpec, Normaliser


class AnswerCheck(BaseModel):
    """The verdict on the answer: what was expected, what was given, and how they were compared."""

    passed: bool
    predicate: str = Field(description="eq | one_of | contains_all | number | date | set_eq | regex | infeasible")
    expected: str
    given: str
    normaliser: str = Field(description="how the two were compared, e.g. 'number (tolerance 0.01)'")
    detail: str = ""
    weight: float = 1.0


_SEPARATORS = re.compile(r"[\s\u00a0]+")


def normalise_text(text: str, how: Iterable[Normaliser]) -> str:
    how = set(how)
    text = unicodedata.normalize("NFKC", text)
    if "case" in how:
        text = text.casefold()
    if "punctuation" in how:
        text = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch for ch in text)
    if "space" in how or "punctuation" in how:
        text = _SEPARATORS.sub(" ", text).strip()
    return text


# --- numbers --------------------------------------------------------------------------------------

# 1,204.50 | 1204.5 | 12,50 (a decimal comma only without thousands groups) | .5; a currency mark or code
# before or after marks the amount.
_CODES = r"(?:usd|eur|gbp|jpy|cad|aud|chf|dollars?|euros?|pounds?)"
_NUMBER = re.compile(
    rf"(?<![\w.,])(?P<sign>[-\u2212])?\s?(?P<cur>[$\u20ac\u00a3\u00a5]|{_CODES}\s)?\s?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,\d{1,2}(?![\d,])|\d+(?:\.\d+)?|\.\d+)(?![\d.,]*\d)"
    rf"(?P<code>\s?{_CODES}(?!\w))?",
    re.IGNORECASE,
)


def numbers_in(text: str) -> list[tuple[float, bool]]:
    """Every amount written in `text`, in order, with whether a currency marks it (signs kept)."""
    found = []
    for m in _NUMBER.finditer(unicodedata.normalize("NFKC", text)):
        raw = m.group("num")
        if re.fullmatch(r"\d+,\d{1,2}", raw):
            raw = raw.replace(",", ".")
        value = float(raw.replace(",", ""))
        found.append((-value if m.group("sign") else value, bool(m.group("cur") or m.group("code"))))
    return found


def _check_number(spec: AnswerSpec, text: str) -> tuple[bool, str, str]:
    expected = float(spec.number) * spec.scale  # type: ignore[arg-type]
    how = f"number (tolerance {spec.tolerance:g})" if spec.tolerance else "number"
    found = numbers_in(_without_dates(text))
    marked = [value for value, currency in found if currency]
    distinct = sorted(set(marked or [value for value, _ in found]))
    if not distinct:
        return False, how, "the answer states no number"
    if len(distinct) > 1:
        shown = ", ".join(_plain(v) for v in distinct)
        return False, how, f"the answer states several numbers ({shown}); give one"
    ok = math.isclose(distinct[0], expected, rel_tol=0.0, abs_tol=spec.tolerance + 1e-9)
    return ok, how, "" if ok else f"{_plain(distinct[0])} is not {_plain(expected)}"


def _plain(value: float) -> str:
    """A number as a person writes it (no exponent, no float noise): 1204.5, 10000000, -3."""
    return f"{round(value, 6):f}".rstrip("0").rstrip(".")


# --- dates ----------------------------------------------------------------------------------------

_MONTHS = {name: i for i, names in enumerate(
    [("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
     ("november", "nov"), ("december", "dec")], start=1) for name in names}
_MONTH = "(?P<month>" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s*(?P<year>\d{4}))?"
_DATE_FORMS = [
    re.compile(r"(?<!\d)(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})(?!\d)"),
    re.compile(rf"(?<![\w]){_DAY}(?:\s+of)?\s+{_MONTH}{_YEAR}(?!\w)", re.I),
    re.compile(rf"(?<![\w]){_MONTH}\s+{_DAY}{_YEAR}(?!\w)", re.I),
    re.compile(r"(?<![\d/])(?P<a>\d{1,2})/(?P<b>\d{1,2})/(?P<year>\d{4})(?![\d/])"),
]


def _date_matches(text: str) -> list[tuple[int | None, int, int] | None]:
    """(year or None, month, day) per date written in `text`; None for an ambiguous slashed date."""
    out: list[tuple[int | None, int, int] | None] = []
    for form in _DATE_FORMS:
        for m in form.finditer(text):
            groups = m.groupdict()
            year = int(groups["year"]) if groups.get("year") else None
            if "a" in groups and groups["a"] is not None:
                a, b = int(groups["a"]), int(groups["b"])
                if a != b and a <= 12 and b <= 12:
                    out.append(None)
                    continue
                month, day = (a, b) if a <= 12 else (b, a)
            elif groups.get("mnum"):
                month, day = int(groups["mnum"]), int(groups["day"])
            else:
                month, day = _MONTHS[groups["month"].lower()], int(groups["day"])
            try:
                date(year or 2000, month, day)
            except ValueError:
                out.append(None)
                continue
            out.append((year, month, day))
    return out


_MONTH_YEAR = re.compile(rf"(?<![\w]){_MONTH},?\s*\d{{4}}(?!\w)", re.I)


def _without_dates(text: str) -> str:
    """`text` with its dates (and month-year mentions) blanked, so a number is never read out of a date."""
    for form in (*_DATE_FORMS, _MONTH_YEAR):
        text = form.sub(" ", text)
    return text


def _check_date(spec: AnswerSpec, text: str) -> tuple[bool, str, str]:
    how = "date (any unambiguous spelling)"
    try:
        want = date.fromisoformat(str(spec.date))
    except ValueError:
        return False, how, f"the task's expected date {spec.date!r} is not YYYY-MM-DD"
    found = _date_matches(unicodedata.normalize("NFKC", text))
    if not found:
        return False, how, "the answer states no date"
    if any(d is None for d in found):
        return False, how, "the answer's date is ambiguous (day and month could be swapped) or impossible"
    days = {(d[1], d[2]) for d in found if d is not None}
    years = {d[0] for d in found if d is not None and d[0] is not None}
    if len(days) > 1 or len(years) > 1:
        return False, how, "the answer states several dates; give one"
    (month, day), year = days.pop(), (years.pop() if years else None)
    ok = (month, day) == (want.month, want.day) and year in (None, want.year)
    spelled = f"{year or '????'}-{month:02d}-{day:02d}"
    return ok, how, "" if ok else f"{spelled} is not {want.isoformat()}"


# --- text -----------------------------------------------------------------------------------------

def _as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


_ITEM_SPLIT = re.compile(r"\s*[,;\n]\s*")
_AND_SPLIT = re.compile(r"\s+(?:and|&)\s+", re.I)


def _readings(given: str | list[str]) -> list[list[str]]:
    """The lists a list answer can be read as: as given; a text split at commas, semicolons and new lines,
    or also at "and" / "&" ("A, B and C"; but a name may hold them: "Alder & Pine"), both readings tried."""
    if isinstance(given, list):
        return [given]
    parts = [part for part in _ITEM_SPLIT.split(given) if part.strip()]
    finer = [piece for part in parts for piece in _AND_SPLIT.split(part) if piece.strip()]
    return [parts, finer] if finer != parts else [parts]


def check_answer(spec: AnswerSpec, answer: Answer | None, *, expect_infeasible: bool = False) -> AnswerCheck:
    """Compare a filled spec with what the agent said; `expect_infeasible` when a variant made it impossible."""
    answer = answer or Answer()
    given = answer.shown()
    if expect_infeasible or spec.infeasible:
        ok = answer.infeasible
        return AnswerCheck(
            passed=ok, predicate="infeasible", expected="infeasible", given=given, normaliser="flag",
            weight=spec.weight,
            detail="" if ok else "the task cannot be done here: the correct answer is 'infeasible'",
        )
    predicate = spec.predicate
    expected_value = getattr(spec, predicate)
    expected = repr(expected_value)
    if answer.infeasible:
        return AnswerCheck(passed=False, predicate=predicate, expected=expected, given=given, normaliser="flag",
                           weight=spec.weight, detail="the agent reported the task infeasible; it can be done")
    if answer.value is None:
        return AnswerCheck(passed=False, predicate=predicate, expected=expected, given=given, normaliser="none",
                           weight=spec.weight, detail="no answer was given")
    text = answer.value if isinstance(answer.value, str) else ", ".join(answer.value)
    norm = "+".join(spec.normalise) or "exact"

    def same(a: str) -> str:
        return normalise_text(a, spec.normalise)

    if predicate == "number":
        ok, how, detail = _check_number(spec, text)
        if spec.scale != 1:
            expected = _plain(float(spec.number) * spec.scale)  # type: ignore[arg-type]
    elif predicate == "date":
        ok, how, detail = _check_date(spec, text)
    elif predicate == "eq":
        ok, how = same(text) == same(str(expected_value)), f"eq ({norm})"
        detail = "" if ok else f"{same(text)!r} is not {same(str(expected_value))!r}"
    elif predicate == "one_of":
        options = [same(o) for o in _as_list(expected_value)]
        ok, how = same(text) in options, f"one_of ({norm})"
        detail = "" if ok else f"{same(text)!r} is none of {options}"
    elif predicate == "contains_all":
        missing = [part for part in _as_list(expected_value) if same(part) not in same(text)]
        ok, how = not missing, f"contains_all ({norm})"
        detail = "" if ok else "missing: " + ", ".join(repr(m) for m in missing)
    elif predicate == "set_eq":
        want = {same(v) for v in _as_list(expected_value)}
        readings = [{same(v) for v in reading} for reading in _readings(answer.value)]
        got = next((r for r in readings if r == want), readings[-1])
        ok, how = want == got, f"set_eq ({norm}, any order)"
        extra, lacking = sorted(got - want), sorted(want - got)
        parts = [f"missing {lacking}" if lacking else "", f"not expected {extra}" if extra else ""]
        detail = "; ".join(part for part in parts if part)
    else:  # regex
        flags = re.IGNORECASE if "case" in spec.normalise else 0
        candidate = normalise_text(text, [n for n in spec.normalise if n != "case"])
        ok, how = re.fullmatch(str(expected_value), candidate, flags) is not None, f"regex ({norm})"
        detail = "" if ok else f"{candidate!r} does not match"
    return AnswerCheck(passed=ok, predicate=predicate, expected=expected, given=given, normaliser=how,
                       detail=detail, weight=spec.weight)

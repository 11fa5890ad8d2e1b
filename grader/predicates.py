"""Evaluate one-key predicates ({eq: 1}, {set_eq: [...]}, …) against a value."""

import math
import re
from typing import Any

_MISSING = object()
NUMBER_TOLERANCE = 1e-6


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _equal(a: Any, b: Any) -> bool:
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None and not (isinstance(a, str) and isinstance(b, str)):
        return math.isclose(na, nb, abs_tol=NUMBER_TOLERANCE)
    return bool(a == b)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def evaluate(predicate: dict[str, Any], value: Any = _MISSING) -> bool:
    """True when `value` satisfies `predicate`. A missing field satisfies only {exists: false}/{any: ...}."""
    ((key, arg),) = predicate.items()
    if key == "exists":
        return (value is not _MISSING and value is not None) == bool(arg)
    if key == "any":
        return True
    if key == "not":
        return not evaluate(arg, value)
    if key == "all_of":
        return all(evaluate(p, value) for p in arg)
    if key == "any_of":
        return any(evaluate(p, value) for p in arg)
    if value is _MISSING:
        return False
    if key == "eq":
        return _equal(value, arg)
    if key == "ne":
        return not _equal(value, arg)
    if key in ("gt", "gte", "lt", "lte"):
        a, b = _num(value), _num(arg)
        if a is None or b is None:
            return False
        return {"gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b}[key]
    if key == "in":
        return any(_equal(value, item) for item in _as_list(arg))
    if key == "not_in":
        return not any(_equal(value, item) for item in _as_list(arg))
    if key == "set_eq":
        return isinstance(value, list) and sorted(map(str, value)) == sorted(map(str, _as_list(arg)))
    if key == "contains":
        return isinstance(value, list | str) and (
            str(arg) in value if isinstance(value, str) else any(_equal(v, arg) for v in value)
        )
    if key == "not_contains":
        return not evaluate({"contains": arg}, value)
    text = str(value)
    if key == "substring":
        return str(arg) in text
    if key == "icontains":
        return str(arg).casefold() in text.casefold()
    if key == "startswith":
        return text.startswith(str(arg))
    if key == "endswith":
        return text.endswith(str(arg))
    if key == "regex":
        return re.search(str(arg), text) is not None
    raise ValueError(f"unknown predicate {key!r}")


def holds(predicates: dict[str, dict[str, Any]], entity: dict[str, Any]) -> list[str]:
    """The names of the fields whose predicate fails for `entity` (empty: all hold)."""
    return [f for f, p in predicates.items() if not evaluate(p, entity.get(f, _MISSING))]

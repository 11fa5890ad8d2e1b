"""Evaluate one-key predicates ({eq: 1}, {set_eq: [...]}, {expr: "..."}, …) against a value.

The grammar (which keys exist, what their arguments look like) is checked when the
catalog loads (`scenarios.schema.check_predicate`); here a predicate is assumed
well-formed. A missing field satisfies only `{exists: false}`, `{any: ...}`, and
`not`/`any_of` combinations that make that true.
"""

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import lru_cache
from typing import Any

from scenarios.expr import ExprRuntimeError, evaluate_expr

NUMBER_TOLERANCE = 1e-6
APPROX_REL_DEFAULT = 0.01
SEMANTIC_THRESHOLD_DEFAULT = 0.8


class _Missing:
    def __repr__(self) -> str:
        return "<missing>"


MISSING: Any = _Missing()


@dataclass
class Context:
    """What `expr` predicates may read besides the value itself."""

    bindings: dict[str, Any] = field(default_factory=dict)
    initial: dict[str, Any] = field(default_factory=dict)
    final: dict[str, Any] = field(default_factory=dict)
    entity: dict[str, Any] | None = None
    before: dict[str, Any] | None = None

    def names(self, x: Any) -> dict[str, Any]:
        return {
            "x": None if x is MISSING else x, "target": self.bindings.get("target"), "bindings": self.bindings,
            "initial": self.initial, "final": self.final, "entity": self.entity, "before": self.before,
        }


EMPTY_CONTEXT = Context()


def _num(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        try:
            return float(value)
        except OverflowError:  # an int beyond float range still compares right as an infinity
            return math.inf if value > 0 else -math.inf
    if isinstance(value, float):
        return value
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def equal(a: Any, b: Any) -> bool:
    """Numbers within NUMBER_TOLERANCE, a number and a numeric string coerced; two strings compare as text."""
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    na, nb = _num(a), _num(b)
    if na is not None and nb is not None:
        return math.isclose(na, nb, abs_tol=NUMBER_TOLERANCE)
    return bool(a == b)


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _member(item: Any, pool: list[Any]) -> bool:
    return any(equal(item, other) for other in pool)


def _normalise(text: str) -> str:
    return " ".join(text.casefold().split())


@lru_cache(maxsize=8192)
def similarity(a: str, b: str) -> float:
    """The larger of the character ratio and the word-order-insensitive ratio (difflib)."""
    na, nb = _normalise(a), _normalise(b)
    chars = SequenceMatcher(None, na, nb).ratio()
    words = SequenceMatcher(None, " ".join(sorted(na.split())), " ".join(sorted(nb.split()))).ratio()
    return max(chars, words)


@lru_cache(maxsize=1024)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _compare(key: str, value: Any, arg: Any) -> bool:
    a, b = _num(value), _num(arg)
    if a is None or b is None:
        return False
    if key == "gt":
        return a > b
    if key == "gte":
        return a >= b
    if key == "lt":
        return a < b
    return a <= b


def _between(value: Any, arg: Any) -> bool:
    bounds = (arg.get("min"), arg.get("max")) if isinstance(arg, dict) else arg
    n, low, high = _num(value), _num(bounds[0]), _num(bounds[1])
    if n is None or (low is None and bounds[0] is not None) or (high is None and bounds[1] is not None):
        return False
    return (low is None or n >= low - NUMBER_TOLERANCE) and (high is None or n <= high + NUMBER_TOLERANCE)


def _approx(value: Any, arg: Any) -> bool:
    n = _num(value)
    if n is None:
        return False
    if not isinstance(arg, dict):
        arg = {"value": arg}
    expected = _num(arg["value"])
    if expected is None:
        return False
    if "abs" not in arg and "rel" not in arg:
        return math.isclose(n, expected, rel_tol=APPROX_REL_DEFAULT, abs_tol=NUMBER_TOLERANCE)
    return math.isclose(n, expected, abs_tol=(_num(arg.get("abs", 0.0)) or 0.0) + NUMBER_TOLERANCE,
                        rel_tol=_num(arg.get("rel", 0.0)) or 0.0)


def _semantic(value: Any, arg: Any) -> bool:
    text, threshold = (arg["text"], arg.get("threshold", SEMANTIC_THRESHOLD_DEFAULT)) if isinstance(arg, dict) \
        else (arg, SEMANTIC_THRESHOLD_DEFAULT)
    return isinstance(value, str) and similarity(value, str(text)) >= float(threshold)


def _contains(value: Any, arg: Any) -> bool:
    if isinstance(value, str):
        return str(arg) in value
    if isinstance(value, list):
        return _member(arg, value)
    if isinstance(value, dict):
        try:
            return arg in value
        except TypeError:  # an unhashable argument (a list, a mapping) is never a key
            return False
    return False


def _expr(value: Any, arg: Any, ctx: Context) -> bool:
    try:
        return bool(evaluate_expr(arg, ctx.names(value)))
    except ExprRuntimeError:
        return False


def _fields(value: Any, arg: dict[str, Any], ctx: Context) -> bool:
    if not isinstance(value, dict):
        return False
    return all(evaluate(pred, value.get(name, MISSING), ctx) for name, pred in arg.items())


# Keys whose argument is evaluated against a present value (missing → False).
_SIMPLE: dict[str, Callable[[Any, Any], bool]] = {
    "eq": equal,
    "ne": lambda v, a: not equal(v, a),
    "gt": lambda v, a: _compare("gt", v, a),
    "gte": lambda v, a: _compare("gte", v, a),
    "lt": lambda v, a: _compare("lt", v, a),
    "lte": lambda v, a: _compare("lte", v, a),
    "between": _between,
    "approx": _approx,
    "in": lambda v, a: _member(v, _as_list(a)),
    "not_in": lambda v, a: not _member(v, _as_list(a)),
    "set_eq": lambda v, a: isinstance(v, list) and sorted(map(str, v)) == sorted(map(str, _as_list(a))),
    "subset": lambda v, a: isinstance(v, list) and all(_member(i, _as_list(a)) for i in v),
    "superset": lambda v, a: isinstance(v, list) and all(_member(i, v) for i in _as_list(a)),
    "contains": _contains,
    "not_contains": lambda v, a: not _contains(v, a),
    "substring": lambda v, a: str(a) in str(v),
    "substring_all": lambda v, a: all(str(s) in str(v) for s in _as_list(a)),
    "substring_any": lambda v, a: any(str(s) in str(v) for s in _as_list(a)),
    "icontains": lambda v, a: str(a).casefold() in str(v).casefold(),
    "startswith": lambda v, a: str(v).startswith(str(a)),
    "endswith": lambda v, a: str(v).endswith(str(a)),
    "regex": lambda v, a: _regex(str(a)).search(str(v)) is not None,
    "matches_semantic": _semantic,
}


def evaluate(predicate: dict[str, Any], value: Any = MISSING, ctx: Context = EMPTY_CONTEXT) -> bool:
    """True when `value` satisfies `predicate`."""
    ((key, arg),) = predicate.items()
    simple = _SIMPLE.get(key)
    if simple is not None:
        return value is not MISSING and simple(value, arg)
    if key == "exists":
        return (value is not MISSING and value is not None) == bool(arg)
    if key == "any":
        return True
    if key == "not":
        return not evaluate(arg, value, ctx)
    if key == "all_of":
        return all(evaluate(p, value, ctx) for p in arg)
    if key == "any_of":
        return any(evaluate(p, value, ctx) for p in arg)
    if key == "expr":
        return _expr(value, arg, ctx)
    if value is MISSING:
        return False
    if key == "length":
        return hasattr(value, "__len__") and evaluate(arg, len(value), ctx)
    if key == "fields":
        return _fields(value, arg, ctx)
    if key == "each":
        return isinstance(value, list) and all(evaluate(arg, item, ctx) for item in value)
    if key == "some":
        return isinstance(value, list) and any(evaluate(arg, item, ctx) for item in value)
    raise ValueError(f"unknown predicate {key!r}")


def holds(predicates: dict[str, dict[str, Any]], entity: dict[str, Any], ctx: Context = EMPTY_CONTEXT) -> list[str]:
    """The names of the fields whose predicate fails for `entity` (empty: all hold)."""
    return [f for f, p in predicates.items() if not evaluate(p, entity.get(f, MISSING), ctx)]

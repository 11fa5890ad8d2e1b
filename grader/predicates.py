"""Evaluate one-key predicates ({eq: 1}, {set_eq: [...]}, {expr: "..."}, …) against a value.

The grammar (which keys exist, what their arguments look like) is `scenarios.predicates.PREDICATES`,
checked when the catalog loads; here a predicate is assumed well-formed. `EVALUATORS` is bound to that
table key for key when this module is imported (a predicate without an evaluator, or an evaluator
without a predicate, fails the import naming it). A missing field satisfies only `{exists: false}`, `{any: ...}`, and
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
from scenarios.predicates import bind_evaluators

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


Evaluator = Callable[[Any, Any, Context], bool]
"""(value, argument, context) -> whether the value satisfies the predicate."""


def _present(holds_for: Evaluator) -> Evaluator:
    """An evaluator of a present value: a missing field fails it."""
    return lambda value, arg, ctx: value is not MISSING and holds_for(value, arg, ctx)


def _value_test(test: Callable[[Any, Any], bool]) -> Evaluator:
    """A test of a present value against the argument alone (no context)."""
    return lambda value, arg, _ctx: value is not MISSING and test(value, arg)


EVALUATORS = bind_evaluators({
    # comparisons
    "eq": _value_test(equal),
    "ne": _value_test(lambda v, a: not equal(v, a)),
    "gt": _value_test(lambda v, a: _compare("gt", v, a)),
    "gte": _value_test(lambda v, a: _compare("gte", v, a)),
    "lt": _value_test(lambda v, a: _compare("lt", v, a)),
    "lte": _value_test(lambda v, a: _compare("lte", v, a)),
    "between": _value_test(_between),
    "approx": _value_test(_approx),
    # membership
    "in": _value_test(lambda v, a: _member(v, _as_list(a))),
    "not_in": _value_test(lambda v, a: not _member(v, _as_list(a))),
    "set_eq": _value_test(lambda v, a: isinstance(v, list) and sorted(map(str, v)) == sorted(map(str, _as_list(a)))),
    "subset": _value_test(lambda v, a: isinstance(v, list) and all(_member(i, _as_list(a)) for i in v)),
    "superset": _value_test(lambda v, a: isinstance(v, list) and all(_member(i, v) for i in _as_list(a))),
    "contains": _value_test(_contains),
    "not_contains": _value_test(lambda v, a: not _contains(v, a)),
    # text
    "substring": _value_test(lambda v, a: str(a) in str(v)),
    "substring_all": _value_test(lambda v, a: all(str(s) in str(v) for s in _as_list(a))),
    "substring_any": _value_test(lambda v, a: any(str(s) in str(v) for s in _as_list(a))),
    "icontains": _value_test(lambda v, a: str(a).casefold() in str(v).casefold()),
    "startswith": _value_test(lambda v, a: str(v).startswith(str(a))),
    "endswith": _value_test(lambda v, a: str(v).endswith(str(a))),
    "regex": _value_test(lambda v, a: _regex(str(a)).search(str(v)) is not None),
    "matches_semantic": _value_test(_semantic),
    # structure
    "length": _present(lambda v, a, ctx: hasattr(v, "__len__") and evaluate(a, len(v), ctx)),
    "fields": _present(_fields),
    "each": _present(lambda v, a, ctx: isinstance(v, list) and all(evaluate(a, item, ctx) for item in v)),
    "some": _present(lambda v, a, ctx: isinstance(v, list) and any(evaluate(a, item, ctx) for item in v)),
    "exists": lambda v, a, _ctx: (v is not MISSING and v is not None) == bool(a),
    "any": lambda _v, _a, _ctx: True,
    # logic: a missing value passes through, so {not: {exists: true}} holds of it
    "not": lambda v, a, ctx: not evaluate(a, v, ctx),
    "all_of": lambda v, a, ctx: all(evaluate(p, v, ctx) for p in a),
    "any_of": lambda v, a, ctx: any(evaluate(p, v, ctx) for p in a),
    # an expression sees a missing value as None
    "expr": _expr,
}, owner="grader/predicates.py")


def evaluate(predicate: dict[str, Any], value: Any = MISSING, ctx: Context = EMPTY_CONTEXT) -> bool:
    """True when `value` satisfies `predicate`."""
    ((key, arg),) = predicate.items()
    evaluator = EVALUATORS.get(key)
    if evaluator is None:
        raise ValueError(f"unknown predicate {key!r}")
    return evaluator(value, arg, ctx)


def holds(predicates: dict[str, dict[str, Any]], entity: dict[str, Any], ctx: Context = EMPTY_CONTEXT) -> list[str]:
    """The names of the fields whose predicate fails for `entity` (empty: all hold)."""
    return [f for f, p in predicates.items() if not evaluate(p, entity.get(f, MISSING), ctx)]

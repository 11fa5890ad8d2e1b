"""The predicate grammar of canonical_diff: one-key mappings such as `{eq: 1}` or `{each: {gt: 0}}`.

`PREDICATES` is the one table of predicate keys, each with the check of its argument (run when the
catalog loads, so a malformed predicate is refused naming where it is). The grader binds its
evaluators to this table with `bind_evaluators`, which refuses, when the grader is imported, a key
without an evaluator or an evaluator without a key: adding a predicate is one entry here plus its
evaluator in grader/predicates.py.
"""

import re
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeVar

from scenarios.expr import ExprError, compile_expr

Predicates = dict[str, dict[str, Any]]
"""Field name -> predicate, as in `properties:` and `where:`."""

ArgumentCheck = Callable[[Any, str], None]
"""Checks a predicate's argument; raises ValueError naming `where` (the predicate's path) if it is malformed."""

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.]*\}")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number_or_placeholder(value: Any) -> bool:
    return _is_number(value) or (isinstance(value, str) and bool(_PLACEHOLDER.search(value)))


def check_expr(source: Any, where: str) -> None:
    """Raise ValueError naming `where` if `source` is not an expression the safe evaluator accepts."""
    if not isinstance(source, str) or not source.strip():
        raise ValueError(f"{where}: expected an expression string, got {source!r}")
    try:
        compile_expr(source)
    except ExprError as exc:
        raise ValueError(f"{where}: {exc}") from None


def check_predicate(predicate: Any, where: str) -> None:
    """Raise ValueError naming `where` if `predicate` is not a well-formed predicate."""
    if not isinstance(predicate, dict) or len(predicate) != 1:
        raise ValueError(f"{where}: a predicate is a mapping with exactly one key, got {predicate!r}")
    ((key, arg),) = predicate.items()
    check = PREDICATES.get(key)
    if check is None:
        raise ValueError(f"{where}: unknown predicate {key!r}; allowed: {', '.join(sorted(PREDICATES))}")
    check(arg, f"{where}.{key}")


def check_predicates(predicates: Predicates | None, where: str) -> None:
    """Check each field's predicate, naming it `where.field`."""
    for name, predicate in (predicates or {}).items():
        check_predicate(predicate, f"{where}.{name}")


# ---- argument checks ---------------------------------------------------------------------------

def _any_value(arg: Any, where: str) -> None:
    """Any value: compared as it is (numbers and numeric strings coerced by the grader)."""


def _text(arg: Any, where: str) -> None:
    if isinstance(arg, dict | list):
        raise ValueError(f"{where}: expected a text, got {type(arg).__name__}")


def _list(arg: Any, where: str) -> None:
    # A string is a placeholder the bindings fill with a list (or a one-item list of its own).
    if not isinstance(arg, list | str):
        raise ValueError(f"{where}: expected a list, got {type(arg).__name__}")


def _true_or_false(arg: Any, where: str) -> None:
    if not isinstance(arg, bool):
        raise ValueError(f"{where}: expected true or false")


def _between(arg: Any, where: str) -> None:
    bounds = [arg.get("min"), arg.get("max")] if isinstance(arg, dict) else arg
    if isinstance(arg, dict) and set(arg) - {"min", "max"}:
        raise ValueError(f"{where}: allowed keys are min and max")
    if not isinstance(bounds, list) or len(bounds) != 2 or not all(
        b is None or _number_or_placeholder(b) for b in bounds
    ):
        raise ValueError(f"{where}: expected [low, high] or {{min: low, max: high}} (numbers)")


def _approx(arg: Any, where: str) -> None:
    if isinstance(arg, dict):
        if "value" not in arg or set(arg) - {"value", "abs", "rel"}:
            raise ValueError(f"{where}: expected {{value: n, abs: tolerance}} or {{value: n, rel: fraction}}")
        if not all(_number_or_placeholder(arg[k]) for k in arg):
            raise ValueError(f"{where}: value, abs and rel must be numbers")
        if any(_is_number(arg.get(k)) and not arg[k] >= 0 for k in ("abs", "rel")):
            raise ValueError(f"{where}: abs and rel are tolerances: at least 0")
    elif not _number_or_placeholder(arg):
        raise ValueError(f"{where}: expected a number or {{value, abs|rel}}")


def _semantic(arg: Any, where: str) -> None:
    text, threshold = (arg.get("text"), arg.get("threshold", 0.8)) if isinstance(arg, dict) else (arg, 0.8)
    if isinstance(arg, dict) and set(arg) - {"text", "threshold"}:
        raise ValueError(f"{where}: allowed keys are text and threshold")
    if not isinstance(text, str) or not _is_number(threshold) or not 0 <= threshold <= 1:
        raise ValueError(f"{where}: expected a text or {{text: ..., threshold: 0..1}}")


def _regex(arg: Any, where: str) -> None:
    if not isinstance(arg, str):
        raise ValueError(f"{where}: expected a regular expression string")
    try:
        re.compile(arg)
    except (re.error, RecursionError, OverflowError) as exc:  # too deep / too large a repeat: not re.error
        if not _PLACEHOLDER.search(arg):  # a placeholder may fill it into a valid one
            raise ValueError(f"{where}: not a valid regular expression: {exc}") from None


def _predicate(arg: Any, where: str) -> None:
    check_predicate(arg, where)


def _predicate_list(arg: Any, where: str) -> None:
    if not isinstance(arg, list) or not arg:
        raise ValueError(f"{where}: expected a non-empty list of predicates")
    for i, sub in enumerate(arg):
        check_predicate(sub, f"{where}[{i}]")


def _field_predicates(arg: Any, where: str) -> None:
    if not isinstance(arg, dict) or not arg:
        raise ValueError(f"{where}: expected a mapping of field name to predicate")
    check_predicates(arg, where)


# ---- the table -----------------------------------------------------------------------------------

PREDICATES: Mapping[str, ArgumentCheck] = MappingProxyType({
    # comparisons
    "eq": _any_value, "ne": _any_value, "gt": _any_value, "gte": _any_value, "lt": _any_value, "lte": _any_value,
    "between": _between, "approx": _approx,
    # membership
    "in": _list, "not_in": _list, "set_eq": _list, "subset": _list, "superset": _list,
    "contains": _any_value, "not_contains": _any_value,
    # text
    "substring": _text, "substring_all": _list, "substring_any": _list, "icontains": _text, "startswith": _text,
    "endswith": _text, "regex": _regex, "matches_semantic": _semantic,
    # structure
    "length": _predicate, "fields": _field_predicates, "each": _predicate, "some": _predicate,
    "exists": _true_or_false, "any": _true_or_false,
    # logic
    "not": _predicate, "all_of": _predicate_list, "any_of": _predicate_list,
    # a small expression over x, target, initial, final (scenarios/expr.py)
    "expr": check_expr,
})
PREDICATE_KEYS = frozenset(PREDICATES)


class PredicateTableError(RuntimeError):
    """An evaluator table that does not match `PREDICATES` key for key (a programming error)."""


Evaluator = TypeVar("Evaluator")


def bind_evaluators(evaluators: Mapping[str, Evaluator], owner: str) -> Mapping[str, Evaluator]:
    """`evaluators` as a read-only table, once it has exactly the keys of `PREDICATES`.

    Raises PredicateTableError naming `owner` (the module defining the evaluators), the keys without
    an evaluator and the evaluators without a key."""
    missing = sorted(set(PREDICATES) - set(evaluators))
    unknown = sorted(set(evaluators) - set(PREDICATES))
    problems = []
    if missing:
        problems.append(f"no evaluator for predicate(s) {', '.join(missing)} (defined in scenarios/predicates.py)")
    if unknown:
        problems.append(f"evaluator(s) for predicate(s) {', '.join(unknown)} that scenarios/predicates.py does not "
                        f"define (add each to PREDICATES, with the check of its argument)")
    if problems:
        raise PredicateTableError(f"{owner}: {'; '.join(problems)}")
    return MappingProxyType({key: evaluators[key] for key in PREDICATES})

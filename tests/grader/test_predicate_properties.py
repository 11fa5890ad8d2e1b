"""Property tests for the canonical_diff grammar and its predicates, on any input.

- `check_predicate` accepts a predicate or raises ValueError naming where it is; nothing else escapes.
- A predicate it accepts (placeholders filled, as grading does) evaluates to a bool against any value and any
  context; it never raises.
- `CanonicalDiff` validates anything (arbitrary values, mutations of the catalog's canonical_diffs) or raises a
  pydantic ValidationError (which the loader turns into a ScenarioError naming file and field); nothing else.
- A mutated canonical_diff that validates grades a shop state to a score in [0, 1], or fails with the grader's
  own errors for a placeholder the world does not bind (BindingError) or that fills to something invalid
  (ValidationError).
"""

from __future__ import annotations

import copy
import re
from typing import Any

from hypothesis import assume, example, given
from hypothesis import strategies as st
from pydantic import ValidationError

from grader.bindings import BindingError
from grader.predicates import MISSING, Context, evaluate
from grader.verdict import grade
from scenarios.loader import load_catalog
from scenarios.predicates import PREDICATE_KEYS, check_predicate
from scenarios.schema import CanonicalDiff
from tests.grader.conftest import BINDINGS, SHOP_TASKS, bought, cart_item, shop_state
from tests.mutation import SETTINGS, mutation_slots

WHERE = "properties.price"
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.]*\}")

scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, 3), st.sampled_from([10**400, -(10**400), 2**63]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=10),
    st.sampled_from(["", "1", "2.5", "nan", "-inf", "1e999", "p007", "Ember Skillet", "a|b", "(", "{target.id}"]),
)
json_like = st.recursive(
    scalars, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=6), c, max_size=4), max_leaves=12)
numbers = st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([10**400, -1]))
expressions = st.one_of(st.text(max_size=20), st.sampled_from([
    "x", "x > 1", "len(x) == 2", "x['a']", "x.lower()", "final['cart_items']", "1/0", "x ** 99999999",
    "'a' * 10**9", "sum(x)", "[i for i in x]", "x in target", "sorted(x)", "max([])", "int('9' * 5000)",
    "target['id'] == x", "entity['id']", "len(final.get('orders', []))", "x.__class__", "__import__('os')",
    "+".join(["1"] * 20000), "-" * 100000 + "1", "not " * 5000 + "x", "(" * 300 + "x" + ")" * 300,
    "x if x else " * 3000 + "1", "+".join(["x"] * 400),
]))

# Well-formed arguments for each key, mixed with garbage: the checker sees both.
well_formed = st.one_of(
    st.tuples(st.sampled_from(["eq", "ne", "gt", "gte", "lt", "lte", "contains", "not_contains", "substring",
                               "icontains", "startswith", "endswith"]), json_like),
    st.tuples(st.sampled_from(["in", "not_in", "set_eq", "subset", "superset", "substring_all", "substring_any"]),
              st.lists(json_like, max_size=4)),
    st.tuples(st.just("between"), st.one_of(st.lists(st.one_of(st.none(), numbers), min_size=2, max_size=2),
                                            st.fixed_dictionaries({}, optional={"min": numbers, "max": numbers}))),
    st.tuples(st.just("approx"), st.one_of(numbers, st.fixed_dictionaries(
        {"value": numbers}, optional={"abs": numbers, "rel": numbers}))),
    st.tuples(st.just("matches_semantic"), st.one_of(st.text(max_size=12), st.fixed_dictionaries(
        {"text": st.text(max_size=12)}, optional={"threshold": numbers}))),
    st.tuples(st.just("regex"), st.one_of(st.text(max_size=12), st.sampled_from([
        "(a+)+$", "^p0+7$", "(" * 1000 + ")" * 1000, "a{99999999999}", "(?P<1a>x)", "[", "\\"]))),
    st.tuples(st.sampled_from(["exists", "any"]), st.one_of(st.booleans(), json_like)),
    st.tuples(st.just("expr"), expressions),
    st.tuples(st.sampled_from(sorted(PREDICATE_KEYS)), json_like),
).map(lambda pair: {pair[0]: pair[1]})

predicates = st.recursive(
    st.one_of(well_formed, json_like),
    lambda children: st.one_of(
        st.tuples(st.sampled_from(["not", "length", "each", "some"]), children).map(lambda p: {p[0]: p[1]}),
        st.tuples(st.sampled_from(["all_of", "any_of"]), st.lists(children, max_size=3)).map(lambda p: {p[0]: p[1]}),
        st.dictionaries(st.text(max_size=5), children, max_size=3).map(lambda d: {"fields": d}),
        st.dictionaries(st.sampled_from(sorted(PREDICATE_KEYS)), children, min_size=2, max_size=2),
    ),
    max_leaves=8,
)


def _has_placeholder(value: Any) -> bool:
    if isinstance(value, str):
        return bool(_PLACEHOLDER.search(value))
    if isinstance(value, list):
        return any(_has_placeholder(v) for v in value)
    if isinstance(value, dict):
        return any(_has_placeholder(k) or _has_placeholder(v) for k, v in value.items())
    return False


@SETTINGS
@given(predicate=predicates)
@example(predicate={"regex": "(" * 1000 + ")" * 1000})
@example(predicate={"regex": "a{99999999999}"})
@example(predicate={"expr": "+".join(["1"] * 20000)})
@example(predicate={"expr": "-" * 100000 + "1"})
@example(predicate={"all_of": [{"expr": "not " * 5000 + "x"}]})
def test_check_predicate_accepts_or_names_the_field(predicate: Any) -> None:
    try:
        check_predicate(predicate, WHERE)
    except ValueError as exc:
        assert str(exc).startswith(f"{WHERE}"), exc


contexts = st.builds(
    Context,
    bindings=st.one_of(st.just(BINDINGS), st.dictionaries(st.text(max_size=5), json_like, max_size=3)),
    initial=st.one_of(st.just(shop_state()), st.dictionaries(st.text(max_size=5), json_like, max_size=3)),
    final=st.one_of(st.just(shop_state()), st.dictionaries(st.text(max_size=5), json_like, max_size=3)),
    entity=st.one_of(st.none(), st.dictionaries(st.text(max_size=5), json_like, max_size=3)),
)


@SETTINGS
@given(predicate=predicates, value=st.one_of(json_like, st.just(MISSING)), ctx=contexts)
@example(predicate={"contains": [1]}, value={"a": 1}, ctx=Context())
@example(predicate={"not_contains": {"k": 1}}, value={"a": 1}, ctx=Context())
@example(predicate={"gt": 1}, value=10**400, ctx=Context())
@example(predicate={"between": [10**400, None]}, value=1, ctx=Context())
@example(predicate={"approx": {"value": 10**400, "rel": 0.1}}, value=1, ctx=Context())
@example(predicate={"approx": {"value": 1, "abs": -1}}, value=1, ctx=Context())
@example(predicate={"approx": {"value": 1, "rel": -0.5}}, value=1, ctx=Context())
@example(predicate={"expr": "+".join(["x"] * 400)}, value=1, ctx=Context())
def test_an_accepted_predicate_evaluates_to_a_bool_on_any_value(predicate: Any, value: Any, ctx: Context) -> None:
    assume(not _has_placeholder(predicate))  # grading fills them (and checks the result again) first
    try:
        check_predicate(predicate, WHERE)
    except ValueError:
        return
    assert isinstance(evaluate(predicate, value, ctx), bool)


TASKS = load_catalog(SHOP_TASKS).tasks
SECTIONS = tuple(CanonicalDiff.model_fields)


@st.composite
def mutated_diffs(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    task_id = draw(st.sampled_from(sorted(TASKS)))
    raw = copy.deepcopy(TASKS[task_id].canonical_diff.model_dump(exclude_defaults=True))
    for _ in range(draw(st.integers(1, 3))):
        container, key = draw(st.sampled_from(mutation_slots(raw)))  # key None: add a key to it
        if key is None:
            container[draw(st.one_of(st.sampled_from(SECTIONS), st.text(max_size=6)))] = draw(
                st.one_of(predicates, json_like))
        elif draw(st.booleans()):
            container[key] = draw(st.one_of(well_formed, predicates, json_like))
        else:
            del container[key]
    return task_id, raw


@SETTINGS
@given(raw=st.one_of(json_like, st.dictionaries(st.sampled_from(SECTIONS), json_like, max_size=3)))
def test_arbitrary_canonical_diffs_validate_or_raise_a_validation_error(raw: Any) -> None:
    try:
        CanonicalDiff.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        assert first["loc"] or first["msg"], exc


@SETTINGS
@given(case=mutated_diffs())
@example(case=("shop_add_to_cart", {"constraints": [{"expr": "+".join(["1"] * 20000)}]}))
@example(case=("shop_add_to_cart", {"invariant": [{"collection": "orders", "filter": "not " * 5000 + "a"}]}))
@example(case=("shop_add_to_cart", {"create": [{"collection": "cart_items",
                                                "properties": {"quantity": {"approx": {"value": 1, "abs": -1}}}}]}))
@example(case=("shop_add_to_cart", {"create": [{"collection": "cart_items",
                                                "properties": {"product_id": {"contains": ["p007"]}}}]}))
def test_mutated_canonical_diffs_validate_and_grade_or_raise_their_own_errors(case: tuple[str, dict[str, Any]]) -> None:
    task_id, raw = case
    try:
        diff = CanonicalDiff.model_validate(raw)
    except ValidationError as exc:
        assert exc.errors()[0]["loc"] or "oneof" in str(exc) or "named_invariants" in str(exc), exc
        return
    task = TASKS[task_id].model_copy(update={"canonical_diff": diff, "subgoals": []})
    for final in (shop_state(), bought(shop_state()), {**shop_state(), "cart_items": [cart_item()]}):
        try:
            verdict = grade(task, BINDINGS, shop_state(), final)
        except (BindingError, ValidationError):
            return
        assert 0.0 <= verdict.score <= 1.0


def test_the_catalog_diffs_round_trip() -> None:
    assert len(TASKS) >= 3
    for task in TASKS.values():
        CanonicalDiff.model_validate(task.canonical_diff.model_dump(exclude_defaults=True))

"""The predicate table: one entry per key with its argument check; evaluator tables must match it key for key."""

from typing import Any

import pytest

from scenarios.predicates import (
    PREDICATE_KEYS,
    PREDICATES,
    PredicateTableError,
    bind_evaluators,
    check_predicate,
    check_predicates,
)


def test_a_table_with_every_key_binds_read_only_in_the_grammar_order() -> None:
    evaluators = {key: len(key) for key in reversed(list(PREDICATES))}
    bound = bind_evaluators(evaluators, owner="somewhere.py")
    assert list(bound) == list(PREDICATES)
    assert bound["approx"] == len("approx")
    with pytest.raises(TypeError):
        bound["eq"] = 0  # type: ignore[index]


def test_a_predicate_without_an_evaluator_is_refused_naming_both() -> None:
    evaluators = {key: None for key in PREDICATES if key not in ("regex", "some")}
    with pytest.raises(PredicateTableError) as info:
        bind_evaluators(evaluators, owner="grader/x.py")
    assert str(info.value) == ("grader/x.py: no evaluator for predicate(s) regex, some "
                               "(defined in scenarios/predicates.py)")


def test_an_evaluator_without_a_predicate_is_refused_naming_it() -> None:
    evaluators: dict[str, Any] = {key: None for key in PREDICATES} | {"near": None}
    with pytest.raises(PredicateTableError, match=r"^grader/x.py: evaluator\(s\) for predicate\(s\) near that "
                                                  r"scenarios/predicates.py does not define"):
        bind_evaluators(evaluators, owner="grader/x.py")


def test_missing_and_unknown_are_reported_together() -> None:
    evaluators: dict[str, Any] = {key: None for key in PREDICATES if key != "eq"} | {"equals": None}
    with pytest.raises(PredicateTableError) as info:
        bind_evaluators(evaluators, owner="o.py")
    assert "no evaluator for predicate(s) eq " in str(info.value)
    assert "evaluator(s) for predicate(s) equals " in str(info.value)


def test_the_table_is_read_only_and_the_keys_are_its_keys() -> None:
    assert frozenset(PREDICATES) == PREDICATE_KEYS
    with pytest.raises(TypeError):
        PREDICATES["near"] = PREDICATES["eq"]  # type: ignore[index]


def test_an_unknown_key_lists_the_table() -> None:
    with pytest.raises(ValueError) as info:
        check_predicate({"equals": 1}, "properties.q")
    assert str(info.value) == f"properties.q: unknown predicate 'equals'; allowed: {', '.join(sorted(PREDICATES))}"


@pytest.mark.parametrize(("predicate", "message"), [
    ({"in": 3}, "properties.q.in: expected a list, got int"),
    ({"substring": ["a"]}, "properties.q.substring: expected a text, got list"),
    ({"exists": "yes"}, "properties.q.exists: expected true or false"),
    ({"between": {"low": 1}}, "properties.q.between: allowed keys are min and max"),
    ({"approx": {"value": 1, "abs": -1}}, "properties.q.approx: abs and rel are tolerances: at least 0"),
    ({"matches_semantic": {"text": "a", "threshold": 2}}, "properties.q.matches_semantic: expected a text or"),
    ({"regex": "("}, "properties.q.regex: not a valid regular expression"),
    ({"each": {"gt": 1, "lt": 2}}, "properties.q.each: a predicate is a mapping with exactly one key"),
    ({"any_of": [{"eq": 1}, {"near": 2}]}, "properties.q.any_of[1]: unknown predicate 'near'"),
    ({"fields": {"sku": {"regex": 1}}}, "properties.q.fields.sku.regex: expected a regular expression string"),
    ({"expr": ""}, "properties.q.expr: expected an expression string"),
])
def test_each_argument_check_names_the_path_and_what_was_expected(predicate: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        check_predicate(predicate, "properties.q")
    assert str(info.value).startswith(message), info.value


def test_well_formed_predicates_pass_including_placeholders() -> None:
    check_predicates({
        "a": {"in": "{hard_negative_ids}"}, "b": {"between": ["{low}", 3]}, "c": {"regex": "^{target.sku}("},
        "d": {"approx": {"value": "{target.price}", "rel": 0.1}}, "e": {"not": {"fields": {"x": {"any": True}}}},
    }, "where")
    check_predicates(None, "where")

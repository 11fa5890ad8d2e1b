"""Every predicate key, table-driven; the safe expression evaluator's refusals."""

import subprocess
import sys
from typing import Any

import pytest

from grader.predicates import EVALUATORS, MISSING, Context, evaluate, holds, similarity
from scenarios.expr import ExprError, compile_expr, evaluate_expr
from scenarios.predicates import PREDICATE_KEYS, PREDICATES

CASES: list[tuple[dict[str, Any], Any, bool]] = [
    ({"eq": 1}, 1, True),
    ({"eq": 1}, "1", True),
    ({"eq": 1}, 1.0000000001, True),
    ({"eq": "a"}, "b", False),
    ({"eq": "01"}, "1", False),
    ({"eq": True}, True, True),
    ({"eq": [1, 2]}, [1, 2], True),
    ({"ne": 2}, 1, True),
    ({"ne": 2}, "2", False),
    ({"gt": 1}, 2, True),
    ({"gt": 2}, 2, False),
    ({"gte": 2}, 2, True),
    ({"lt": 2}, "1.5", True),
    ({"lte": 1}, 2, False),
    ({"lte": 1}, "1", True),
    ({"gte": 3}, 2, False),
    ({"lt": 1}, 1, False),
    ({"icontains": "oak"}, "12 MAIN St", False),
    ({"startswith": "Main"}, "12 Main", False),
    ({"gt": 1}, "x", False),
    ({"gt": 0}, True, False),
    ({"between": [1, 3]}, 3, True),
    ({"between": [1, 3]}, 3.5, False),
    ({"between": {"min": 10}}, 11, True),
    ({"between": {"max": 10}}, "11", False),
    ({"approx": 100}, 100.9, True),
    ({"approx": 100}, 102, False),
    ({"approx": {"value": 19.99, "abs": 0.01}}, 20.0, True),
    ({"approx": {"value": 19.99, "abs": 0.001}}, 20.0, False),
    ({"approx": {"value": 200, "rel": 0.1}}, 181, True),
    ({"in": [1, 2]}, 2, True),
    ({"in": [1, 2]}, 3, False),
    ({"not_in": ["a"]}, "b", True),
    ({"not_in": ["a"]}, "a", False),
    ({"set_eq": ["b", "a"]}, ["a", "b"], True),
    ({"set_eq": ["a"]}, ["a", "b"], False),
    ({"set_eq": ["a"]}, "a", False),
    ({"subset": ["a", "b", "c"]}, ["a", "c"], True),
    ({"subset": ["a"]}, ["a", "z"], False),
    ({"superset": ["a"]}, ["a", "z"], True),
    ({"superset": ["a", "q"]}, ["a", "z"], False),
    ({"contains": "p1"}, ["p1", "p2"], True),
    ({"contains": "ell"}, "hello", True),
    ({"contains": "k"}, {"k": 1}, True),
    ({"contains": 3}, 3, False),
    ({"not_contains": "p3"}, ["p1"], True),
    ({"not_contains": "p1"}, ["p1"], False),
    ({"substring": "Main"}, "12 Main St", True),
    ({"substring": "main"}, "12 Main St", False),
    ({"substring_all": ["12", "St"]}, "12 Main St", True),
    ({"substring_all": ["12", "Rd"]}, "12 Main St", False),
    ({"substring_any": ["Rd", "St"]}, "12 Main St", True),
    ({"substring_any": ["Rd", "Ave"]}, "12 Main St", False),
    ({"icontains": "main"}, "12 MAIN St", True),
    ({"startswith": "12"}, "12 Main", True),
    ({"endswith": "St"}, "12 Main", False),
    ({"endswith": "Main"}, "12 Main", True),
    ({"regex": r"^\d+ "}, "12 M", True),
    ({"regex": r"^\d+$"}, "12 M", False),
    ({"matches_semantic": "Leave at the back door"}, "leave it at the back door", True),
    ({"matches_semantic": {"text": "Deliver to the back door", "threshold": 0.95}}, "deliver to back door", False),
    ({"matches_semantic": "Buy milk"}, "Cancel my subscription", False),
    ({"matches_semantic": "x"}, 3, False),
    ({"length": {"eq": 2}}, ["a", "b"], True),
    ({"length": {"gt": 3}}, "abc", False),
    ({"length": {"eq": 0}}, 5, False),
    ({"fields": {"quantity": {"eq": 1}, "product_id": {"startswith": "p"}}}, {"quantity": 1, "product_id": "p7"}, True),
    ({"fields": {"quantity": {"eq": 1}}}, {"quantity": 2}, False),
    ({"fields": {"gift": {"exists": False}}}, {"quantity": 2}, True),
    ({"fields": {"quantity": {"eq": 1}}}, [1], False),
    ({"each": {"gt": 0}}, [1, 2], True),
    ({"each": {"gt": 1}}, [1, 2], False),
    ({"some": {"fields": {"id": {"eq": "x"}}}}, [{"id": "y"}, {"id": "x"}], True),
    ({"some": {"eq": 3}}, [1, 2], False),
    ({"exists": True}, 0, True),
    ({"exists": True}, None, False),
    ({"exists": False}, None, True),
    ({"any": True}, None, True),
    ({"not": {"eq": 1}}, 2, True),
    ({"not": {"eq": 1}}, 1, False),
    ({"all_of": [{"gt": 1}, {"lt": 5}]}, 3, True),
    ({"all_of": [{"gt": 1}, {"lt": 5}]}, 7, False),
    ({"any_of": [{"eq": 1}, {"eq": 5}]}, 3, False),
    ({"any_of": [{"eq": 1}, {"eq": 3}]}, 3, True),
    ({"expr": "x > 2 and x % 2 == 1"}, 3, True),
    ({"expr": "x['a'] == target['id']"}, {"a": "p007"}, True),
    ({"expr": "x.lower().startswith('ember')"}, "EMBER skillet", True),
    ({"expr": "x['missing'] == 1"}, {}, False),  # a runtime error is a failing predicate
    ({"expr": "len(final['orders']) == len(initial['orders']) + 1"}, None, True),
]


@pytest.mark.parametrize(("predicate", "value", "expected"), CASES, ids=[f"{p}-{v!r}"[:60] for p, v, _ in CASES])
def test_predicate(predicate: dict[str, Any], value: Any, expected: bool) -> None:
    ctx = Context(bindings={"target": {"id": "p007"}}, initial={"orders": []}, final={"orders": [{"id": "o1"}]})
    assert evaluate(predicate, value, ctx) is expected


def test_every_predicate_key_has_a_positive_and_a_negative_case() -> None:
    keys_true = {next(iter(p)) for p, _, e in CASES if e}
    keys_false = {next(iter(p)) for p, _, e in CASES if not e}
    assert keys_true == set(PREDICATE_KEYS)
    assert keys_false == set(PREDICATE_KEYS) - {"any"}


@pytest.mark.parametrize("key", sorted(PREDICATE_KEYS - {"exists", "any", "not", "any_of", "all_of", "expr"}))
def test_a_missing_field_fails_every_value_predicate(key: str) -> None:
    predicate = next(p for p, _, _ in CASES if key in p)
    assert evaluate(predicate, MISSING) is False


def test_missing_fields_only_satisfy_exists_false_and_any() -> None:
    entity = {"a": 1}
    assert holds({"b": {"exists": False}, "c": {"any": True}, "d": {"not": {"eq": 1}}}, entity) == []
    assert holds({"b": {"eq": None}, "a": {"exists": True}}, entity) == ["b"]


def test_unknown_predicate_raises() -> None:
    with pytest.raises(ValueError, match="unknown predicate"):
        evaluate({"bogus": 1}, 1)


def test_similarity_ignores_case_spacing_and_word_order() -> None:
    assert similarity("Back  Door", "back door") == 1.0
    assert similarity("door back", "back door") == 1.0
    assert similarity("abc", "xyz") < 0.2


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("x.__class__", "dunder"),
        ("x.__class__.__mro__", "dunder"),
        ("__import__('os')", "'__import__' is not allowed"),
        ("import os", "imports are not allowed"),
        ("open('/etc/passwd')", "call to 'open' is not allowed"),
        ("eval('1')", "call to 'eval' is not allowed"),
        ("getattr(x, 'y')", "call to 'getattr' is not allowed"),
        ("(lambda: 1)()", "refused"),
        ("[f for f in (lambda: 1,)]", "Lambda is not allowed"),
        ("x.format(1)", "attribute 'format' is not allowed"),
        ("[c for c in ().__class__.__bases__]", "dunder"),
        ("a = 1", "statements are not allowed"),
        ("x +", "not valid"),
        ("x[0](1)", "only calls to named functions"),
    ],
)
def test_expr_refusals_are_clear(source: str, message: str) -> None:
    with pytest.raises(ExprError, match=message):
        compile_expr(source)


def test_expr_evaluates_comprehensions_and_whitelisted_calls() -> None:
    names = {"final": {"cart_items": [{"q": 1}, {"q": 2}]}}
    assert evaluate_expr("sum(i['q'] for i in final['cart_items'])", names) == 3
    assert evaluate_expr("sorted([3, 1])[0]", names) == 1
    assert evaluate_expr("{'a': 1}.get('a')", names) == 1


def test_the_evaluators_are_the_grammar_key_for_key() -> None:
    assert list(EVALUATORS) == list(PREDICATES)


IMPORT_WITH_A_NEW_PREDICATE = """
from types import MappingProxyType
import scenarios.predicates as grammar
grammar.PREDICATES = MappingProxyType({**grammar.PREDICATES, "near": grammar.PREDICATES["approx"]})
import grader.predicates
"""


def test_a_predicate_the_grader_cannot_evaluate_fails_its_import() -> None:
    out = subprocess.run([sys.executable, "-c", IMPORT_WITH_A_NEW_PREDICATE], capture_output=True, text=True)
    assert out.returncode != 0
    assert ("PredicateTableError: grader/predicates.py: no evaluator for predicate(s) near "
            "(defined in scenarios/predicates.py)") in out.stderr

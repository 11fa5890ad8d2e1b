import pytest

from grader.predicates import evaluate, holds

CASES = [
    ({"eq": 1}, 1, True),
    ({"eq": 1}, "1", True),
    ({"eq": 1}, 1.0000000001, True),
    ({"eq": "a"}, "b", False),
    ({"eq": "01"}, "1", False),
    ({"ne": 2}, 1, True),
    ({"gt": 1}, 2, True),
    ({"gt": 2}, 2, False),
    ({"gte": 2}, 2, True),
    ({"lt": 2}, "1.5", True),
    ({"lte": 1}, 2, False),
    ({"gt": 1}, "x", False),
    ({"in": [1, 2]}, 2, True),
    ({"in": [1, 2]}, 3, False),
    ({"not_in": ["a"]}, "b", True),
    ({"set_eq": ["b", "a"]}, ["a", "b"], True),
    ({"set_eq": ["a"]}, ["a", "b"], False),
    ({"set_eq": ["a"]}, "a", False),
    ({"contains": "p1"}, ["p1", "p2"], True),
    ({"contains": "ell"}, "hello", True),
    ({"not_contains": "p3"}, ["p1"], True),
    ({"substring": "Main"}, "12 Main St", True),
    ({"icontains": "main"}, "12 MAIN St", True),
    ({"startswith": "12"}, "12 Main", True),
    ({"endswith": "St"}, "12 Main", False),
    ({"regex": r"^\d+ "}, "12 M", True),
    ({"any": True}, None, True),
    ({"not": {"eq": 1}}, 2, True),
    ({"all_of": [{"gt": 1}, {"lt": 5}]}, 3, True),
    ({"any_of": [{"eq": 1}, {"eq": 5}]}, 3, False),
]


@pytest.mark.parametrize(("predicate", "value", "expected"), CASES)
def test_predicate(predicate: dict[str, object], value: object, expected: bool) -> None:
    assert evaluate(predicate, value) is expected


def test_missing_fields_only_satisfy_exists_false_and_any() -> None:
    entity = {"a": 1}
    assert holds({"b": {"exists": False}, "c": {"any": True}}, entity) == []
    assert holds({"b": {"eq": None}, "a": {"exists": True}}, entity) == ["b"]


def test_unknown_predicate_raises() -> None:
    with pytest.raises(ValueError, match="unknown predicate"):
        evaluate({"bogus": 1}, 1)

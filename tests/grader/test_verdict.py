import copy
from typing import Any

import pytest

from grader.bindings import BindingError, fill
from grader.diff import compute_diff
from grader.verdict import grade
from scenarios.loader import load_catalog

BINDINGS = {
    "target": {"id": "p007", "name": "Ember Skillet", "seller": "Acme"},
    "default_address_id": "a1",
    "new_address": {
        "full_name": "Ada L",
        "street": "1 Loop Rd",
        "city": "Oslo",
        "postal_code": "0150",
        "country": "Norway",
    },
}


def state() -> dict[str, Any]:
    return {
        "user": {"id": "u1", "name": "Sam"},
        "products": [{"id": "p007", "stock": 5}, {"id": "p008", "stock": 3}],
        "addresses": [{"id": "a1", "street": "9 Elm", "is_default": True}],
        "cart_items": [],
        "orders": [{"id": "o1000", "product_ids": ["p008"], "shipping": "express", "address_id": "a1"}],
        "next_ids": {"cart": 1},
    }


@pytest.fixture(scope="module")
def tasks() -> dict[str, Any]:
    return load_catalog().tasks


def test_diff_finds_created_updated_deleted_and_singletons() -> None:
    before, after = state(), state()
    after["cart_items"].append({"id": "c1", "product_id": "p007", "quantity": 1})
    after["products"][0]["stock"] = 4
    del after["orders"][0]
    after["user"]["name"] = "Sam B"
    diff = compute_diff(before, after)
    assert [e["id"] for e in diff.of("cart_items").created] == ["c1"]
    assert [(u.id, u.changed) for u in diff.of("products").updated] == [("p007", ["stock"])]
    assert [e["id"] for e in diff.of("orders").deleted] == ["o1000"]
    assert diff.of("user").updated[0].changed == ["name"]
    assert compute_diff(before, copy.deepcopy(before)).empty


def test_add_to_cart_success_and_subgoals(tasks: dict[str, Any]) -> None:
    final = state()
    final["cart_items"].append({"id": "c1", "product_id": "p007", "quantity": 1})
    verdict = grade(tasks["shop_add_to_cart"], BINDINGS, state(), final)
    assert verdict.success and verdict.score == 1.0
    assert [(g.name, g.passed) for g in verdict.subgoals] == [("target in cart", True), ("no order placed", True)]


def test_no_op_episode_fails_with_a_reason(tasks: dict[str, Any]) -> None:
    verdict = grade(tasks["shop_add_to_cart"], BINDINGS, state(), state())
    assert not verdict.success and verdict.score == 0.0
    assert "no matching entity in cart_items" in verdict.failures[0]


def test_wrong_product_names_the_failing_field(tasks: dict[str, Any]) -> None:
    final = state()
    final["cart_items"].append({"id": "c1", "product_id": "p008", "quantity": 1})
    verdict = grade(tasks["shop_add_to_cart"], BINDINGS, state(), final)
    assert not verdict.success
    assert "product_id='p008'" in verdict.failures[0]


def test_invariant_violation_is_a_hard_failure_and_a_penalty(tasks: dict[str, Any]) -> None:
    final = state()
    final["cart_items"].append({"id": "c1", "product_id": "p007", "quantity": 1})
    final["orders"].append({"id": "o1001", "product_ids": ["p007"]})
    verdict = grade(tasks["shop_add_to_cart"], BINDINGS, state(), final)
    assert not verdict.success
    assert verdict.score == pytest.approx(0.8)
    assert any("invariant[0]" in f and "created o1001" in f for f in verdict.failures)


def test_low_severity_invariant_costs_score_but_not_success(tasks: dict[str, Any]) -> None:
    final = state()
    final["orders"].append({"id": "o1001", "product_ids": ["p007"], "shipping": "standard", "address_id": "a1"})
    final["products"][0]["stock"] = 4
    final["cart_items"].append({"id": "c9", "product_id": "p008", "quantity": 1})
    verdict = grade(tasks["shop_buy_by_seller"], BINDINGS, state(), final)
    assert verdict.success
    assert verdict.score == pytest.approx(0.9)
    assert [(g.name, g.passed) for g in verdict.subgoals] == [
        ("right product ordered", True),
        ("cart left clean", False),
    ]


def test_address_task_needs_both_create_and_update(tasks: dict[str, Any]) -> None:
    new = {
        "id": "a3",
        "full_name": "Ada L",
        "street": "1 Loop Rd",
        "city": "Oslo",
        "postal_code": "0150",
        "country": "Norway",
        "is_default": True,
    }
    half = state()
    half["addresses"].append(new)
    verdict = grade(tasks["shop_change_default_address"], BINDINGS, state(), half)
    assert not verdict.success and verdict.score == pytest.approx(0.5)
    full = copy.deepcopy(half)
    full["addresses"][0]["is_default"] = False
    assert grade(tasks["shop_change_default_address"], BINDINGS, state(), full).success


def test_fill_keeps_types_and_names_missing_bindings() -> None:
    assert fill({"a": "{target.id}", "b": "x {target.name}!", "n": 3}, {"target": {"id": 7, "name": "K"}}) == {
        "a": 7,
        "b": "x K!",
        "n": 3,
    }
    with pytest.raises(BindingError, match=r"no binding 'target\.color'"):
        fill("{target.color}", {"target": {}})

"""The verdict: shop tasks on realistic final states, then every canonical_diff section in isolation."""

import copy
from typing import Any

import pytest

from grader.bindings import BindingError, fill
from grader.diff import compute_diff
from grader.trace import EpisodeTrace
from grader.verdict import grade
from scenarios.schema import Task
from tests.grader.conftest import BINDINGS, bought, cart_item, shop_state


def make_task(canonical: dict[str, Any], subgoals: list[dict[str, Any]] | None = None) -> Task:
    return Task.model_validate({
        "id": "t", "site": "shop", "title": "t", "instruction": "i", "plan": [{"do": "goto", "url": "/"}],
        "canonical_diff": canonical, "subgoals": subgoals or [],
    })


# --------------------------------------------------------------------------- shop tasks


def test_diff_finds_created_updated_deleted_and_singletons() -> None:
    before, after = shop_state(), shop_state()
    after["cart_items"].append(cart_item())
    after["products"][0]["stock"] = 4
    del after["orders"][0]
    after["user"]["name"] = "Sam B"
    diff = compute_diff(before, after)
    assert [e["id"] for e in diff.of("cart_items").created] == ["c1"]
    assert [(u.id, u.changed) for u in diff.of("products").updated] == [("p007", ["stock"])]
    assert [e["id"] for e in diff.of("orders").deleted] == ["o1000"]
    assert diff.of("user").updated[0].changed == ["name"]
    assert compute_diff(before, copy.deepcopy(before)).empty


def test_add_to_cart_success_and_subgoals(shop_tasks: dict[str, Task]) -> None:
    final = shop_state()
    final["cart_items"].append(cart_item())
    final["next_ids"]["cart_item"] = 2
    verdict = grade(shop_tasks["shop_add_to_cart"], BINDINGS, shop_state(), final)
    assert verdict.success and verdict.score == 1.0, verdict.failures
    assert [(g.name, g.passed) for g in verdict.subgoals] == [
        ("target in cart", True), ("no order placed", True), ("nothing else changed", True)]
    assert [c.name for c in verdict.negative_checks if c.name] == ["Agent did not place orders"]


def test_records_a_server_fault_created_are_not_the_agents_collateral(shop_tasks: dict[str, Task]) -> None:
    final = shop_state()
    final["cart_items"].append(cart_item())
    final["next_ids"]["cart_item"] = 2
    final["orders"].append({**final["orders"][0], "id": "o2000"})  # appeared while the agent worked
    task = shop_tasks["shop_add_to_cart"]
    assert not grade(task, BINDINGS, shop_state(), final).success
    drift = {"layer": "server", "type": "pagination_drift", "detail": {"created_ids": ["o2000"]}}
    verdict = grade(task, BINDINGS, shop_state(), final, EpisodeTrace(ledger=[drift]))
    assert verdict.success and verdict.score == 1.0, verdict.failures
    # A line that is not a firing (a note) does not excuse anything.
    note = {**drift, "detail": {"created_ids": ["o2000"], "note": "context"}}
    assert not grade(task, BINDINGS, shop_state(), final, EpisodeTrace(ledger=[note])).success


def test_no_op_episode_fails_with_a_reason(shop_tasks: dict[str, Task]) -> None:
    for task in shop_tasks.values():
        verdict = grade(task, BINDINGS, shop_state(), shop_state())
        assert not verdict.success and verdict.score == 0.0, task.id
    verdict = grade(shop_tasks["shop_add_to_cart"], BINDINGS, shop_state(), shop_state())
    assert "no eligible created entity in cart_items" in verdict.failures[0]


def test_wrong_product_gets_partial_credit_and_names_the_failing_field(shop_tasks: dict[str, Task]) -> None:
    final = shop_state()
    final["cart_items"].append(cart_item(product="p008"))
    verdict = grade(shop_tasks["shop_add_to_cart"], BINDINGS, shop_state(), final)
    assert not verdict.success
    assert "product_id='p008'" in verdict.failures[0]
    assert verdict.checks[0].credit == 0.6667
    assert verdict.score == pytest.approx(0.6667)


def test_order_instead_of_cart_is_a_hard_failure_and_a_penalty(shop_tasks: dict[str, Task]) -> None:
    final = shop_state()
    final["cart_items"].append(cart_item())
    final["orders"].append({"id": "o1001", "product_ids": ["p007"]})
    verdict = grade(shop_tasks["shop_add_to_cart"], BINDINGS, shop_state(), final)
    assert not verdict.success
    assert verdict.score == pytest.approx(0.8)
    assert any("invariant[0]" in f and "created o1001" in f for f in verdict.failures)


def test_buy_by_seller_realistic_success(shop_tasks: dict[str, Task]) -> None:
    # the cart line was created and then moved into the order: it nets to nothing
    verdict = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), bought(shop_state()))
    assert verdict.success and verdict.score == 1.0, verdict.failures
    assert {c.ref: c.matched_id for c in verdict.checks} == {"create[0]": "o1001", "update[0]": "p007"}
    assert not [c for c in verdict.negative_checks if c.kind == "collateral"]


def test_buy_the_hard_negative_fails_on_product_and_stock(shop_tasks: dict[str, Task]) -> None:
    verdict = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), bought(shop_state(), "p008"))
    assert not verdict.success
    assert [c.passed for c in verdict.checks] == [False, False]
    # the hard negative's stock went down: a change in a collection the task names, not covered
    assert [c.detail for c in verdict.negative_checks if c.kind == "collateral"] == ["products: updated p008 (stock)"]


def test_double_submit_breaks_the_single_order_constraint(shop_tasks: dict[str, Task]) -> None:
    final = bought(bought(shop_state()), order_id="o1002")
    verdict = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), final)
    assert not verdict.success
    assert any(f.startswith("constraints[0]") for f in verdict.failures)
    assert [g.passed for g in verdict.subgoals if g.name == "single order"] == [False]


def test_low_severity_invariant_costs_score_but_not_success(shop_tasks: dict[str, Task]) -> None:
    final = bought(shop_state())
    final["cart_items"].append(cart_item("c9", "p008"))
    verdict = grade(shop_tasks["shop_buy_by_seller"], BINDINGS, shop_state(), final)
    assert verdict.success
    assert verdict.score == pytest.approx(0.9)
    assert [(g.name, g.passed) for g in verdict.subgoals] == [
        ("right product ordered", True), ("cart left clean", False), ("single order", True)]


def _new_address(**overrides: Any) -> dict[str, Any]:
    return {"id": "a3", "full_name": "Ada L", "street": "1 Loop Rd", "city": "Oslo", "postal_code": "0150",
            "country": "Norway", "is_default": True, "created_at": "2025-01-05T00:00:00Z", **overrides}


def test_address_task_needs_both_create_and_update(shop_tasks: dict[str, Task]) -> None:
    task = shop_tasks["shop_change_default_address"]
    half = shop_state()
    half["addresses"].append(_new_address())
    verdict = grade(task, BINDINGS, shop_state(), half)
    assert not verdict.success
    assert verdict.raw_score == pytest.approx(0.5)
    assert any(f.startswith("constraints[0]") for f in verdict.failures)  # two defaults now
    full = copy.deepcopy(half)
    full["addresses"][0]["is_default"] = False
    ok = grade(task, BINDINGS, shop_state(), full)
    assert ok.success and ok.score == 1.0, ok.failures


def test_address_task_editing_another_address_breaks_the_field_invariant(shop_tasks: dict[str, Task]) -> None:
    final = shop_state()
    final["addresses"].append(_new_address())
    final["addresses"][0]["is_default"] = False
    final["addresses"][1]["street"] = "1 Loop Rd"
    verdict = grade(shop_tasks["shop_change_default_address"], BINDINGS, shop_state(), final)
    assert verdict.success  # medium severity: a penalty, not a hard failure
    assert verdict.score == pytest.approx(0.85)
    (broken,) = [c for c in verdict.negative_checks if not c.passed]
    assert broken.ref == "invariant[2]" and "a2 (street)" in broken.detail


def test_fill_keeps_types_and_names_missing_bindings() -> None:
    assert fill({"a": "{target.id}", "b": "x {target.name}!", "n": 3}, {"target": {"id": 7, "name": "K"}}) == {
        "a": 7, "b": "x K!", "n": 3}
    with pytest.raises(BindingError, match=r"no binding 'target\.color'"):
        fill("{target.color}", {"target": {}})


# --------------------------------------------------------------------------- sections

CART = {"collection": "cart_items", "properties": {"product_id": {"eq": "{target.id}"}, "quantity": {"eq": 1}}}


def _with(**changes: Any) -> dict[str, Any]:
    state = shop_state()
    for key, value in changes.items():
        state[key] = value
    return state


SECTION_CASES: list[tuple[str, dict[str, Any], dict[str, Any], bool, float]] = [
    # name, canonical_diff, final state, success, score
    ("create: match", {"create": [CART]}, _with(cart_items=[cart_item()]), True, 1.0),
    ("create: none", {"create": [CART]}, shop_state(), False, 0.0),
    ("create: where excludes", {"create": [{**CART, "where": {"quantity": {"gt": 5}}}]},
     _with(cart_items=[cart_item()]), False, 0.0),
    ("update: match",
     {"update": [{"collection": "products", "where": {"id": {"eq": "p009"}}, "properties": {"stock": {"eq": 1}}}]},
     _with(products=[*shop_state()["products"][:2], {**shop_state()["products"][2], "stock": 1}]), True, 1.0),
    ("update: before/after expr",
     {"update": [{"collection": "products", "properties": {"stock": {"expr": "x == before['stock'] - 8"}}}]},
     _with(products=[*shop_state()["products"][:2], {**shop_state()["products"][2], "stock": 1}]), True, 1.0),
    ("delete: match", {"delete": [{"collection": "orders", "properties": {"id": {"eq": "o1000"}}}]},
     _with(orders=[]), True, 1.0),
    ("delete: wrong one kept", {"delete": [{"collection": "orders", "properties": {"id": {"eq": "o1000"}}}]},
     shop_state(), False, 0.0),
    ("invariant ALL violated (high)", {"create": [CART], "invariant": [{"collection": "orders"}]},
     _with(cart_items=[cart_item()], orders=[]), False, 0.8),
    ("invariant with filter: out of scope change is collateral",
     {"create": [CART], "invariant": [{"collection": "addresses", "filter": "a['id'] == 'a1'"}]},
     _with(cart_items=[cart_item()], addresses=[shop_state()["addresses"][0]]), True, 0.95),
    ("invariant with predicate filter: in scope",
     {"create": [CART], "invariant": [{"collection": "addresses", "filter": {"id": {"eq": "a2"}},
                                       "severity": "low"}]},
     _with(cart_items=[cart_item()], addresses=[shop_state()["addresses"][0]]), True, 0.9),
    ("invariant preserve fields: other fields free",
     {"create": [CART], "invariant": [{"collection": "products", "preserve": ["price_cents"]}]},
     _with(cart_items=[cart_item()], products=[{**shop_state()["products"][0], "stock": 0},
                                               *shop_state()["products"][1:]]), True, 1.0),
    ("invariant preserve fields: violated",
     {"create": [CART], "invariant": [{"collection": "products", "preserve": ["price_cents"], "severity": "critical"}]},
     _with(cart_items=[cart_item()], products=[{**shop_state()["products"][0], "price_cents": 1},
                                               *shop_state()["products"][1:]]), False, 0.7),
    ("constraints only: all pass", {"constraints": [
        {"expr": "len(final['orders']) == 1"},
        {"collection": "products", "where": {"seller": {"eq": "Acme"}}, "count": {"eq": 1}},
        {"path": "user.email", "value": {"endswith": "@example.com"}}]}, shop_state(), True, 1.0),
    ("constraints only: one of three fails (low)", {"constraints": [
        {"expr": "len(final['orders']) == 1"},
        {"collection": "products", "count": {"gt": 3}, "severity": "low"},
        {"path": "user.email", "value": {"exists": True}}]}, shop_state(), True, 0.6667),
    ("constraints only: hard failure", {"constraints": [{"path": "user.phone", "value": {"exists": True}}]},
     shop_state(), False, 0.0),
    ("constraint with positive sections costs a penalty", {"create": [CART], "constraints": [
        {"expr": "len(final['cart_items']) == 2", "severity": "medium"}]}, _with(cart_items=[cart_item()]), True, 0.85),
    ("neither sections nor constraints: 1.0", {}, shop_state(), True, 1.0),
    ("neither, but collateral in an unmentioned collection", {}, _with(orders=[]), False, 0.85),
    ("collateral in a mentioned collection is cheaper", {"create": [CART]},
     _with(cart_items=[cart_item(), cart_item("c2", "p009")]), True, 0.95),
    ("read side effects and bookkeeping are not collateral", {"create": [CART]},
     _with(cart_items=[cart_item()], next_ids={"cart_item": 9},
           user={**shop_state()["user"], "last_viewed_product": "p007", "seen_banner": True}), True, 1.0),
    ("ignore list exempts a collection", {"create": [CART], "ignore": ["orders", "user.name"]},
     _with(cart_items=[cart_item()], orders=[], user={**shop_state()["user"], "name": "X"}), True, 1.0),
    ("matched update with an extra changed field", {"update": [
        {"collection": "addresses", "where": {"id": {"eq": "a1"}}, "properties": {"is_default": {"eq": False}}}]},
     _with(addresses=[{**shop_state()["addresses"][0], "is_default": False, "street": "elsewhere"},
                      shop_state()["addresses"][1]]), True, 0.95),
]


@pytest.mark.parametrize(("name", "canonical", "final", "success", "score"), SECTION_CASES,
                         ids=[c[0] for c in SECTION_CASES])
def test_sections(name: str, canonical: dict[str, Any], final: dict[str, Any], success: bool, score: float) -> None:
    verdict = grade(make_task(canonical), BINDINGS, shop_state(), final)
    assert (verdict.success, verdict.score) == (success, pytest.approx(score)), (verdict.failures,
                                                                                 verdict.negative_checks)
    assert 0.0 <= verdict.score <= 1.0


def test_bipartite_matching_is_not_first_come() -> None:
    # Greedy in YAML order would give c1 (matches both) to the first expectation and leave the second empty.
    canonical = {"create": [
        {"collection": "cart_items", "properties": {"quantity": {"gte": 1}}},
        {"collection": "cart_items", "properties": {"quantity": {"gte": 2}}},
    ]}
    final = _with(cart_items=[cart_item("c1", quantity=2), cart_item("c2", "p008", quantity=1)])
    verdict = grade(make_task(canonical), BINDINGS, shop_state(), final)
    assert verdict.success and verdict.score == 1.0
    assert [c.matched_id for c in verdict.checks] == ["c2", "c1"]


def test_partial_credit_takes_each_expectations_best_fraction() -> None:
    canonical = {"create": [
        {"collection": "cart_items", "properties": {"product_id": {"eq": "p007"}, "quantity": {"eq": 3}}},
        {"collection": "cart_items", "properties": {"product_id": {"eq": "p008"}, "quantity": {"eq": 1}}},
    ]}
    final = _with(cart_items=[cart_item("c1", "p007", 1), cart_item("c2", "p008", 1)])
    verdict = grade(make_task(canonical), BINDINGS, shop_state(), final)
    assert [(c.matched_id, c.credit) for c in verdict.checks] == [("c1", 0.5), ("c2", 1.0)]
    assert verdict.score == pytest.approx(0.75) and not verdict.success


def test_oneof_picks_the_best_applicable_alternative() -> None:
    canonical = {
        "invariant": [{"collection": "orders"}],
        "oneof": [
            {"desc": "new line", "when": "not any(i['product_id'] == target['id'] for i in initial['cart_items'])",
             "create": [CART]},
            {"desc": "existing line +1", "when": "any(i['product_id'] == target['id'] for i in initial['cart_items'])",
             "update": [{"collection": "cart_items", "where": {"product_id": {"eq": "{target.id}"}},
                         "properties": {"quantity": {"expr": "x == before['quantity'] + 1"}}}]},
        ],
    }
    task = make_task(canonical, [{"name": "added", "checks": ["oneof"]},
                                 {"name": "via update", "checks": ["oneof[1].update[0]"]}])
    fresh = grade(task, BINDINGS, shop_state(), _with(cart_items=[cart_item()]))
    assert fresh.success and fresh.chosen_alternative == 0
    assert [g.passed for g in fresh.subgoals] == [True, False]
    start = _with(cart_items=[cart_item()])
    bumped = grade(task, BINDINGS, start, {**start, "cart_items": [cart_item(quantity=2)]})
    assert bumped.success and bumped.chosen_alternative == 1
    assert [g.passed for g in bumped.subgoals] == [True, True]
    # the alternative that does not apply is never chosen, even where it would match: the extra line is collateral
    extra = grade(task, BINDINGS, start, {**start, "cart_items": [cart_item(quantity=2), cart_item("c2")]})
    assert extra.chosen_alternative == 1 and extra.score == pytest.approx(0.95)
    assert [c.detail for c in extra.negative_checks if c.kind == "collateral"] == ["cart_items: created c2"]


def test_oneof_without_an_applicable_alternative_fails() -> None:
    canonical = {"oneof": [{"when": "False", "create": [CART]}, {"when": "1 > 2", "create": [CART]}]}
    verdict = grade(make_task(canonical), BINDINGS, shop_state(), _with(cart_items=[cart_item()]))
    assert not verdict.success
    assert verdict.negative_checks[0].ref == "oneof"


def test_named_invariants_rename_and_reweigh() -> None:
    canonical = {"create": [CART], "invariant": [{"collection": "orders", "severity": "low"}],
                 "named_invariants": [{"name": "No orders", "ref": "invariant[0]", "severity": "critical"}]}
    verdict = grade(make_task(canonical), BINDINGS, shop_state(), _with(cart_items=[cart_item()], orders=[]))
    (inv,) = [c for c in verdict.negative_checks if c.kind == "invariant"]
    assert (inv.name, inv.severity, inv.penalty) == ("No orders", "critical", 0.3)
    assert not verdict.success and verdict.score == pytest.approx(0.7)


def test_severity_penalties_match_the_table() -> None:
    for severity, penalty, hard in [("critical", 0.30, True), ("high", 0.20, True), ("medium", 0.15, False),
                                    ("low", 0.10, False)]:
        canonical = {"create": [CART], "invariant": [{"collection": "orders", "severity": severity}]}
        verdict = grade(make_task(canonical), BINDINGS, shop_state(), _with(cart_items=[cart_item()], orders=[]))
        assert verdict.score == pytest.approx(1 - penalty) and verdict.success is not hard


def test_collateral_subgoal_and_penalty_floor() -> None:
    task = make_task({"create": [CART]}, [{"name": "clean", "checks": ["collateral"]}])
    final = _with(cart_items=[cart_item()], orders=[], addresses=[], categories=[])
    verdict = grade(task, BINDINGS, shop_state(), final)
    # orders o1000, addresses a1 and a2 deleted; categories (no ids: one pseudo-entity) changed: 4 × 0.15
    assert verdict.score == pytest.approx(0.4) and not verdict.success
    assert verdict.subgoals[0].passed is False
    many = _with(cart_items=[cart_item()], orders=[], addresses=[], categories=[], products=[])
    assert grade(task, BINDINGS, shop_state(), many).score == 0.0

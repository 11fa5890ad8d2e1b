"""Property tests: the score stays in [0, 1]; doing nothing never succeeds; uncovered changes never help."""

import copy
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.verdict import grade
from scenarios.loader import load_catalog
from tests.grader.conftest import BINDINGS, SHOP_TASKS, bought, bound_here, cart_item, shop_state

TASKS = {k: t for k, t in load_catalog(SHOP_TASKS).tasks.items() if t.kind == "action" and bound_here(t)}
TASK_IDS = sorted(TASKS)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = st.one_of(st.integers(-5, 50), st.text(max_size=8), st.booleans(), st.none())


def _apply(state: dict[str, Any], op: tuple[str, ...], value: Any) -> None:
    kind = op[0]
    if kind == "cart":
        state["cart_items"].append(cart_item(f"c{len(state['cart_items']) + 1}", op[1], int(op[2])))
    elif kind == "buy":
        state.update(bought(state, op[1], f"o{1001 + len(state['orders'])}"))
    elif kind in ("product", "address"):
        entities = state["products" if kind == "product" else "addresses"]
        if int(op[1]) < len(entities):
            entities[int(op[1])][op[2]] = value
    elif kind == "drop":
        state[op[1]] = state[op[1]][1:]
    elif kind == "new_collection":
        state.setdefault("reviews", []).append({"id": f"r{len(state.get('reviews', []))}", "text": str(value)})


operations = st.tuples(
    st.one_of(
        st.tuples(st.just("cart"), st.sampled_from(["p007", "p008", "p009"]), st.sampled_from(["1", "2"])),
        st.tuples(st.just("buy"), st.sampled_from(["p007", "p008"])),
        st.tuples(st.just("product"), st.sampled_from(["0", "1", "2"]), st.sampled_from(["stock", "price_cents"])),
        st.tuples(st.just("address"), st.sampled_from(["0", "1"]), st.sampled_from(["is_default", "street"])),
        st.tuples(st.just("drop"), st.sampled_from(["orders", "addresses", "cart_items"])),
        st.tuples(st.just("new_collection")),
    ),
    scalars,
)


def _final(ops: list[tuple[tuple[str, ...], Any]]) -> dict[str, Any]:
    state = shop_state()
    for op, value in ops:
        _apply(state, op, value)
    return state


@SETTINGS
@given(task_id=st.sampled_from(TASK_IDS), ops=st.lists(operations, max_size=6))
def test_score_is_always_within_bounds(task_id: str, ops: list[tuple[tuple[str, ...], Any]]) -> None:
    verdict = grade(TASKS[task_id], BINDINGS, shop_state(), _final(ops))
    assert 0.0 <= verdict.score <= 1.0
    assert 0.0 <= verdict.raw_score <= 1.0
    assert verdict.success == (not verdict.failures)


@SETTINGS
@given(task_id=st.sampled_from(TASK_IDS), noise=st.lists(st.tuples(st.sampled_from(["a", "b"]), scalars)))
def test_a_state_equal_to_the_initial_never_succeeds(task_id: str, noise: list[tuple[str, Any]]) -> None:
    initial = shop_state()
    for key, value in noise:  # whatever else the initial state holds
        initial["user"][f"extra_{key}"] = value
    verdict = grade(TASKS[task_id], BINDINGS, initial, copy.deepcopy(initial))
    assert not verdict.success


uncovered = st.one_of(
    st.tuples(st.just("new_collection"), scalars),
    st.tuples(st.just("user_field"), scalars),
    st.tuples(st.just("category"), scalars),
)


@SETTINGS
@given(task_id=st.sampled_from(TASK_IDS), ops=st.lists(operations, max_size=5), extra=uncovered)
def test_adding_an_uncovered_change_never_raises_the_score(
    task_id: str, ops: list[tuple[tuple[str, ...], Any]], extra: tuple[str, Any]
) -> None:
    final = _final(ops)
    before = grade(TASKS[task_id], BINDINGS, shop_state(), final)
    worse = copy.deepcopy(final)
    kind, value = extra
    if kind == "new_collection":
        worse.setdefault("reviews", []).append({"id": "r-extra", "text": str(value)})
    elif kind == "user_field":
        worse["user"]["email"] = f"changed-{value}@example.com"
    else:
        worse["categories"].append({"slug": f"x{value}", "name": "X"})
    after = grade(TASKS[task_id], BINDINGS, shop_state(), worse)
    assert after.score <= before.score
    assert not (after.success and not before.success)


@SETTINGS
@given(task_id=st.sampled_from(TASK_IDS), ops=st.lists(operations, max_size=5))
def test_grading_is_deterministic(task_id: str, ops: list[tuple[tuple[str, ...], Any]]) -> None:
    final = _final(ops)
    first = grade(TASKS[task_id], BINDINGS, shop_state(), final).model_dump_json()
    assert grade(TASKS[task_id], BINDINGS, shop_state(), copy.deepcopy(final)).model_dump_json() == first

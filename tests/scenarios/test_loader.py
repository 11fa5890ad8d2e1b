from pathlib import Path

import pytest

from scenarios.loader import ScenarioError, load_catalog

GOOD_TASK = """
tasks:
  - id: t1
    site: shop
    title: a task
    instruction: "Add {target.name}"
    primitives: [grounding]
    plan:
      - {do: goto, url: /}
      - {do: click, role: button, name: Add to cart}
    canonical_diff:
      create:
        - collection: cart_items
          properties: {product_id: {eq: "{target.id}"}}
"""


def write(tmp_path: Path, text: str, name: str = "cat.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_builtin_catalog_has_the_three_shop_tasks_and_two_variants() -> None:
    catalog = load_catalog()
    assert {"shop_add_to_cart", "shop_buy_by_seller", "shop_change_default_address"} <= set(catalog.tasks)
    assert catalog.variants["shop_cart_latency"].target_primitive.value == "patience"
    assert catalog.variants["shop_checkout_overlay"].target_primitive.value == "grounding"
    assert {"shop_cart_latency", "shop_checkout_overlay"} <= {v.id for v in catalog.variants_for("shop_buy_by_seller")}
    for task in catalog.tasks.values():
        assert task.canonical_diff.create or task.canonical_diff.update or task.answer is not None


def test_a_good_file_loads(tmp_path: Path) -> None:
    catalog = load_catalog(write(tmp_path, GOOD_TASK))
    assert catalog.tasks["t1"].plan[1].name == "Add to cart"


@pytest.mark.parametrize(
    ("text", "where", "expected"),
    [
        (GOOD_TASK.replace("role: button", "rolle: button"), "tasks[0].plan[1].rolle", "unknown field"),
        (GOOD_TASK.replace("{do: goto, url: /}", "{do: goto}"), "tasks[0].plan[0]", "needs field 'url'"),
        (GOOD_TASK.replace("{eq:", "{equals:"), "tasks[0].canonical_diff.create[0]", "unknown predicate 'equals'"),
        (GOOD_TASK.replace("[grounding]", "[grounding, luck]"), "tasks[0].primitives[1]", "Input should be"),
        (GOOD_TASK.replace("    title: a task\n", ""), "tasks[0].title", "Field required"),
        ("tasks: [1, 2", "line", "not valid YAML"),
        ("- just a list", "(root)", "expected a mapping"),
        ("task: []", "task", "unknown top-level key"),
    ],
)
def test_malformed_files_name_file_and_field(tmp_path: Path, text: str, where: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ScenarioError) as info:
        load_catalog(path)
    message = str(info.value)
    assert message.startswith(str(path))
    assert where in message
    assert expected in message


VARIANT = """
variants:
  - id: v1
    title: slow
    tasks: [t1]
    target_primitive: patience
    faults:
      - type: latency
        layer: network
        match: {path: "/api/*"}
        params: {delay_ms: 100}
"""


@pytest.mark.parametrize(
    ("old", "new", "where", "expected"),
    [
        ("delay_ms: 100", "delay_ms: -5", "variants[0].faults[0].params.delay_ms", "greater than or equal"),
        ("delay_ms: 100", "delay: 100", "variants[0].faults[0].params", "delay_ms"),
        ("type: latency", "type: lag", "variants[0].faults[0].type", "unknown fault type 'lag'"),
        ("layer: network", "layer: client", "variants[0].faults[0].layer", "is a network fault"),
        ("{path: \"/api/*\"}", "{path: \"/api/[x\"}", "variants[0].faults[0].match.path", "not a valid glob"),
        ("tasks: [t1]", "tasks: [t9]", "variant v1.tasks[0]", "unknown task 't9'"),
        ("target_primitive: patience", "target_primitive: planning", "variant v1.target_primitive", "at most 2"),
    ],
)
def test_bad_variants_name_the_fault_and_field(tmp_path: Path, old: str, new: str, where: str, expected: str) -> None:
    tasks = write(tmp_path, GOOD_TASK.replace("[grounding]", "[grounding, exploration]"), "a.yaml")
    variants = write(tmp_path, VARIANT.replace(old, new), "b.yaml")
    with pytest.raises(ScenarioError) as info:
        load_catalog(tasks, variants)
    message = str(info.value)
    assert str(variants) in message
    assert where in message, message
    assert expected in message, message


def test_duplicate_ids_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD_TASK + GOOD_TASK.split("tasks:\n", 1)[1])
    with pytest.raises(ScenarioError, match=r"tasks\[1\]\.id: duplicate task id 't1'"):
        load_catalog(path)


def test_subgoal_refs_must_exist(tmp_path: Path) -> None:
    text = GOOD_TASK + '    subgoals:\n      - {name: g, checks: ["update[0]"]}\n'
    with pytest.raises(ScenarioError, match="update\\[0\\] does not exist"):
        load_catalog(write(tmp_path, text))


def test_an_unknown_id_names_the_closest_ids_not_the_whole_catalog() -> None:
    from tests.catalog import builtin_catalog

    catalog = builtin_catalog()
    message = catalog.unknown("variant", "commit_cookie_overlay@shop_add_to_car")
    assert "'commit_cookie_overlay@shop_add_to_cart'" in message and f"{len(catalog.variants)} known" in message
    assert len(message) < 400
    assert "did you mean" not in catalog.unknown("task", "zzzz")

"""The widget-frame recipe (scenarios/catalog/field_frames.yaml) expands onto every task whose commit is a button
click with a literal name, but the tasks whose plan expects that button before the commit is reached (and one
whose commit's name an earlier step's button holds, skipped by every client recipe)."""

from scenarios.recipes import bind_step
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()
RECIPE = "commit_in_widget_frame"


def _expects_the_button_early(task_id: str) -> bool:
    task = CATALOG.tasks[task_id]
    bound = bind_step(task, "commit")
    assert bound is not None and bound.step is not None and bound.index is not None
    button = (bound.step.role, bound.step.name)
    return any(expect is not None and (expect.role, expect.name) == button
               for step in task.plan[:bound.index] for expect in (step.expect, step.until))


def test_it_expands_onto_every_button_commit_but_those_expected_early() -> None:
    expanded = {v.tasks[0] for v in CATALOG.variants.values() if v.recipe == RECIPE}
    expanded |= {s.task_id for s in CATALOG.over_budget if s.variant_id.startswith(f"{RECIPE}@")}
    # a commit whose name an earlier step's control holds is skipped, said why (scenarios/recipes.py _shadowed)
    shadowed = {s.task_id for s in CATALOG.skipped if s.variant_id.startswith(f"{RECIPE}@")}
    assert shadowed == {"mail_schedule_send"}
    expanded |= shadowed
    eligible = set()
    for task_id, task in CATALOG.tasks.items():
        bound = bind_step(task, "commit")
        if bound is None or bound.step is None or bound.step.do != "click" or bound.step.role != "button":
            continue
        name = bound.step.name or ""
        if "{" in name or (len(name) > 1 and name.startswith("/") and name.endswith("/")):
            continue  # a name from the world or a /pattern/: no literal name for the client fault to target
        eligible.add(task_id)
    assert expanded == {t for t in eligible if not _expects_the_button_early(t)}
    assert {t for t in eligible if _expects_the_button_early(t)} == {
        "learn_compare_section_averages", "learn_report_average", "mail_create_filter", "mail_fix_domain_filter",
        "mail_label_project_mail", "mail_send_draft", "mail_set_vacation", "travel_cancel_one_trip"}
    assert {CATALOG.tasks[t].site for t in expanded} == {"bank", "clinic", "forum", "learn", "mail", "shop", "travel"}


def test_each_variant_arms_both_halves() -> None:
    variant = CATALOG.variants[f"{RECIPE}@shop_add_to_cart"]
    assert [(f["layer"], f["type"], f["match"]) for f in variant.faults] == [
        ("client", "iframe_widget", {"host": "shop.test", "role": "button", "name": "Add to cart"}),
        ("network", "iframe_widget", {"host": "pay.*", "path": "/widget/*", "methods": ["GET"]}),
    ]

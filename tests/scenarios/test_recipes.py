"""Recipes expand into one variant per eligible task, bound to the task's plan."""

from collections import Counter
from pathlib import Path

import pytest

from scenarios.faults import Primitive
from scenarios.loader import Catalog, ScenarioError, load_catalog
from scenarios.profile import EventVocabulary, SiteProfile, TargetScope
from scenarios.recipes import bind_step
from sites.registry import load_site_catalog

TASKS = """
tasks:
  - id: buy
    site: alpha
    title: buy a thing
    instruction: "Buy {target.name}"
    primitives: [grounding]
    tags: [checkout]
    plan:
      - {do: goto, url: /}
      - {do: fill, role: searchbox, name: Search, value: "{target.name}"}
      - {do: press, role: searchbox, name: Search, key: Enter, request: {method: GET, path: /find}}
      - {do: click, role: link, name: "{target.name}", expect: {role: heading, name: "{target.name}"},
         request: {method: GET, path: "/item/*"}}
      - {do: fill, role: spinbutton, name: Quantity, value: "1"}
      - {do: click, role: button, name: Buy now, page: "/item/*",
         effect: {visit: /orders, expect: {text: "{target.name}"}}}
    canonical_diff:
      create: [{collection: orders}]
  - id: settings
    site: alpha
    title: change a setting
    instruction: "Turn on digests"
    primitives: [patience]
    plan:
      - {do: goto, url: /settings}
      - {do: check, role: checkbox, name: Digest}
      - {do: click, role: button, name: Save, effect: {visit: /settings, expect: {text: saved}},
         request: {method: PUT, path: /api/settings}}
    canonical_diff:
      update: [{collection: settings}]
  - id: beta_task
    site: beta
    title: on a site without seed faults
    instruction: "Do it"
    primitives: [planning]
    plan:
      - {do: goto, url: /}
      - {do: click, role: button, name: Go, effect: {visit: /, expect: {text: done}}}
    canonical_diff:
      create: [{collection: things}]
"""

PROFILES = {
    "alpha": SiteProfile(name="alpha", host="alpha.test", title="Alpha", fault_types=["decoy_items"],
                         vocabulary=EventVocabulary(entity_kinds=[], listed=["results"], touched=["touched"])),
    "beta": SiteProfile(name="beta", host="beta.test", title="Beta", fault_types=[],
                        vocabulary=EventVocabulary(entity_kinds=[], listed=["results"], touched=["touched"])),
}


# A client recipe bound to every task's commit step, which several tests expand.
COMMIT_OVERLAY = """
  - id: commit_overlay
    title: A banner covers {step}
    target_primitive: grounding
    bind: commit
    faults: [{type: overlay, layer: client}]
"""


def catalog_with(tmp_path: Path, recipes: str, variants: str = "") -> tuple[Path, object]:
    (tmp_path / "tasks.yaml").write_text(TASKS)
    (tmp_path / "recipes.yaml").write_text("recipes:\n" + recipes)
    if variants:
        (tmp_path / "variants.yaml").write_text("variants:\n" + variants)
    return tmp_path, load_catalog(tmp_path, profiles=PROFILES)


def test_a_client_recipe_binds_to_the_commit_step_of_every_task(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, COMMIT_OVERLAY)
    made = {v.id: v for v in catalog.variants.values()}  # type: ignore[attr-defined]
    assert sorted(made) == ["commit_overlay@beta_task", "commit_overlay@buy", "commit_overlay@settings"]
    buy = made["commit_overlay@buy"]
    assert buy.tasks == ["buy"] and buy.recipe == "commit_overlay"
    assert buy.target_primitive == Primitive.grounding
    assert buy.faults == [{"type": "overlay", "layer": "client",
                           "match": {"host": "alpha.test", "role": "button", "name": "Buy now"}}]
    assert "plan step 6" in buy.title and "Buy now" in buy.title
    assert made["commit_overlay@beta_task"].faults[0]["match"]["host"] == "beta.test"


def test_network_recipes_bind_to_the_request_the_step_causes(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, """
  - id: commit_503
    title: The write of {step} fails once
    target_primitive: patience
    bind: commit
    exclude: {tasks: [settings]}
    faults: [{type: error_then_success, layer: network, schedule: {mode: first_n, n: 1}}]
  - id: slow_search
    title: Slow search
    target_primitive: patience
    bind: search
    faults: [{type: latency, layer: network, params: {delay_ms: 100}}]
  - id: slow_detail
    title: Slow detail
    target_primitive: patience
    bind: detail
    faults: [{type: latency, layer: network, params: {delay_ms: 100}}]
""")
    v = catalog.variants  # type: ignore[attr-defined]
    # no declared request: the first commit is the first write to the site
    assert v["commit_503@buy"].faults[0]["match"] == {"host": "alpha.test",
                                                     "methods": ["POST", "PUT", "PATCH", "DELETE"]}
    assert "commit_503@settings" not in v  # excluded by id
    assert v["slow_search@buy"].faults[0]["match"] == {"host": "alpha.test", "path": "/find", "methods": ["GET"]}
    assert v["slow_detail@buy"].faults[0]["match"] == {"host": "alpha.test", "path": "/item/*", "methods": ["GET"]}
    assert "slow_search@settings" not in v and "slow_detail@beta_task" not in v  # no such step


def test_exclusion_by_tag_site_faults_and_primitive_limit(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, """
  - id: decoys
    title: Decoys
    target_primitive: verification
    bind: site
    exclude: {tags: [checkout]}
    unfair: {settings: "the decoys hide the only setting"}
    faults: [{type: decoy_items, layer: seed, params: {count: 2}}]
""")
    v = catalog.variants  # type: ignore[attr-defined]
    # buy: excluded by its tag; beta: does not implement decoy_items
    assert sorted(x for x in v) == ["decoys@settings"]
    assert v["decoys@settings"].faults == [{"type": "decoy_items", "layer": "seed", "params": {"count": 2}}]
    assert v["decoys@settings"].status == "unfair" and "only setting" in v["decoys@settings"].reason
    assert catalog.variants_for("settings", include_marked=False) == []  # type: ignore[attr-defined]


def overlay_marked(tmp_path: Path, *marks: str) -> Catalog:
    """The catalog with one client recipe (a banner over each task's commit step) carrying `marks` (YAML lines
    such as `unfair: {settings: why}`)."""
    lines = "".join(f"    {mark}\n" for mark in marks)
    _, catalog = catalog_with(tmp_path, f"""
  - id: commit_overlay
    title: A banner covers {{step}}
    target_primitive: grounding
    bind: commit
{lines}    faults: [{{type: overlay, layer: client}}]
""")
    assert isinstance(catalog, Catalog)
    return catalog


def test_a_recipe_marks_its_variant_on_a_task_ineffective_and_unfair_wins_over_it(tmp_path: Path) -> None:
    catalog = overlay_marked(tmp_path, 'ineffective: {buy: "the banner never covers the buy button", '
                                       'settings: "marked twice"}',
                             'unfair: {settings: "the banner hides the only setting"}')
    v = catalog.variants
    assert (v["commit_overlay@buy"].status, v["commit_overlay@buy"].reason) == (
        "ineffective", "the banner never covers the buy button")
    assert (v["commit_overlay@settings"].status, v["commit_overlay@settings"].reason) == (
        "unfair", "the banner hides the only setting")
    assert [x.id for x in catalog.variants_for("buy", include_marked=True)] == ["commit_overlay@buy"]


def test_a_recipe_marked_harmless_keeps_every_variant_out_of_default_runs_below_the_task_marks(
        tmp_path: Path) -> None:
    catalog = overlay_marked(tmp_path, 'unfair: {settings: "the banner hides the only setting"}',
                             'harmless: "no naive agent failed it on 40 tasks"')
    v = catalog.variants
    assert (v["commit_overlay@buy"].status, v["commit_overlay@buy"].reason) == (
        "harmless", "no naive agent failed it on 40 tasks")
    assert v["commit_overlay@settings"].status == "unfair"
    assert catalog.variants_for("buy", include_marked=False) == []


def test_a_recipe_marks_harmless_only_the_tasks_it_names_with_each_reason(tmp_path: Path) -> None:
    catalog = overlay_marked(tmp_path, 'unfair: {settings: "the banner hides the only setting"}',
                             'harmless: {buy: "the buy button is found by its exact name", '
                             'settings: "never reached: unfair first"}')
    v = catalog.variants
    assert (v["commit_overlay@buy"].status, v["commit_overlay@buy"].reason) == (
        "harmless", "the buy button is found by its exact name")
    assert v["commit_overlay@settings"].status == "unfair"
    (tmp_path / "other").mkdir()
    unmarked = overlay_marked(tmp_path / "other", 'harmless: {settings: "measured on another task"}')
    assert unmarked.variants["commit_overlay@buy"].status == "ok"


def test_the_entry_binding_is_the_link_click_that_opens_the_commits_page(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, """
  - id: popup
    title: A tab opens as {step} is clicked
    target_primitive: state_tracking
    bind: entry
    faults: [{type: popup_tab, layer: client, params: {after_clicks: 1}}]
""")
    v = catalog.variants  # type: ignore[attr-defined]
    # buy's item page is opened by a link named after the item (a placeholder: no client target): none; settings
    # is reached by a goto: none either
    assert sorted(v) == []
    task = catalog.tasks["buy"]  # type: ignore[attr-defined]
    literal = task.model_copy(update={"plan": [
        *task.plan[:3], task.plan[3].model_copy(update={"name": "Today's deal"}), *task.plan[4:]]})
    bound = bind_step(literal, "entry")
    assert bound is not None and bound.index == 3 and bound.step is not None and bound.step.name == "Today's deal"
    assert "link that opens the commit's page (plan step 4" in bound.label
    assert bind_step(catalog.tasks["settings"], "entry") is None  # type: ignore[attr-defined]


def test_a_recipe_leaves_out_tasks_whose_bound_step_acts_on_an_excluded_role(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, """
  - id: steal
    title: Steal
    target_primitive: state_tracking
    bind: fill
    exclude: {step_roles: [searchbox]}
    faults: [{type: focus_steal, layer: client, params: {times: 10}}]
  - id: steal_second
    title: Steal
    target_primitive: state_tracking
    bind: fill
    nth: 2
    exclude: {step_roles: [searchbox]}
    faults: [{type: focus_steal, layer: client, params: {times: 3}}]
""")
    v = catalog.variants  # type: ignore[attr-defined]
    # buy's first fill is its search box: left out; its second (Quantity, a spinbutton) is kept
    assert sorted(v) == ["steal_second@buy"]
    assert v["steal_second@buy"].faults[0]["match"]["name"] == "Quantity"


def test_step_words_in_parameters_and_the_nth_fill(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, """
  - id: renamed
    title: Renamed
    target_primitive: state_tracking
    bind: commit
    faults:
      - type: rename_after_input
        layer: client
        params: {new_label: "{step.name} now", after_input_in: "{prior_fill.name}"}
""")
    v = catalog.variants  # type: ignore[attr-defined]
    # settings has no fill before its commit: no variant
    assert sorted(v) == ["renamed@buy"]
    assert v["renamed@buy"].faults[0]["params"] == {"new_label": "Buy now now", "after_input_in": "Quantity"}
    task = catalog.tasks["buy"]  # type: ignore[attr-defined]
    second = bind_step(task, "fill", 2)
    assert second is not None and second.index == 4 and "second fill" in second.label
    assert bind_step(task, "fill", 3) is None


def test_a_fault_scoped_to_the_steps_page_skips_tasks_that_declare_none(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, """
  - id: swallow
    title: Swallow
    target_primitive: verification
    bind: commit
    faults: [{type: click_swallow, layer: client, match: {path: "{step.page}"}, schedule: {mode: once}}]
""")
    v = catalog.variants  # type: ignore[attr-defined]
    assert sorted(v) == ["swallow@buy"]
    assert v["swallow@buy"].faults[0]["match"] == {"host": "alpha.test", "role": "button", "name": "Buy now",
                                                  "path": "/item/*"}


def test_a_hand_written_variant_with_the_same_faults_wins(tmp_path: Path) -> None:
    _, catalog = catalog_with(tmp_path, COMMIT_OVERLAY, """
  - id: buy_overlay
    title: written by hand
    tasks: [buy]
    target_primitive: grounding
    faults: [{type: overlay, layer: client, match: {host: alpha.test, role: button, name: Buy now}}]
""")
    v = catalog.variants  # type: ignore[attr-defined]
    assert "buy_overlay" in v and "commit_overlay@buy" not in v and "commit_overlay@settings" in v


def test_a_bad_recipe_fault_names_the_recipe_file_and_field(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as err:
        catalog_with(tmp_path, """
  - id: bad
    title: Bad
    target_primitive: patience
    bind: commit
    faults: [{type: latency, layer: network, params: {delay_ms: -5}}]
""")
    assert err.value.file.endswith("recipes.yaml")
    assert err.value.where.startswith("recipes[0].faults[0].params.delay_ms")
    with pytest.raises(ScenarioError) as err:
        catalog_with(tmp_path, """
  - id: bad
    title: Bad
    target_primitive: patience
    bind: the_end
    faults: [{type: latency, layer: network}]
""")
    assert err.value.where == "recipes[0].bind" and "commit" in err.value.message


def test_without_profiles_recipes_are_read_but_not_expanded(tmp_path: Path) -> None:
    (tmp_path / "tasks.yaml").write_text(TASKS)
    (tmp_path / "recipes.yaml").write_text("recipes:\n  - {id: r, title: R, target_primitive: patience, "
                                          "bind: commit, faults: [{type: latency, layer: network}]}\n")
    catalog = load_catalog(tmp_path)
    assert set(catalog.recipes) == {"r"} and catalog.variants == {}


def test_the_builtin_catalog_expands_deterministically_past_600_variants() -> None:
    first, second = load_site_catalog(), load_site_catalog()
    assert len(first.variants) >= 600
    assert [v.model_dump() for v in first.variants.values()] == [v.model_dump() for v in second.variants.values()]
    recipe_made = [v for v in first.variants.values() if v.recipe]
    assert all(v.id == f"{v.recipe}@{v.tasks[0]}" for v in recipe_made)
    assert any(v.recipe is None for v in first.variants.values())  # hand-written variants are still there
    budget = first.recipe_budget
    assert budget is not None and first.over_budget
    groups = Counter((v.tasks[0], v.target_primitive) for v in recipe_made)
    assert max(groups.values()) <= budget.per_task_and_primitive


def test_seed_recipes_skip_tasks_whose_target_the_sites_family_declares_it_cannot_take(tmp_path: Path) -> None:
    # alpha's decoys work on an item (its default target) and its settings task targets an account
    scoped = {**PROFILES, "alpha": PROFILES["alpha"].model_copy(update={"target": TargetScope(
        param="focus", default="item", kinds={"acct": "account"}, accepts={"decoy_items": ["item"]})})}
    (tmp_path / "tasks.yaml").write_text(TASKS.replace(
        "    primitives: [patience]\n", "    primitives: [patience]\n    setup: {params: {focus: acct}}\n"))
    (tmp_path / "recipes.yaml").write_text("""recipes:
  - {id: decoys, title: Decoys, target_primitive: grounding, bind: site,
     faults: [{type: decoy_items, layer: seed}]}
  - {id: slow, title: Slow, target_primitive: patience, bind: site, exclude: {tasks: [buy, beta_task]},
     faults: [{type: latency, layer: network, params: {delay_ms: 100}}]}
""")
    catalog = load_catalog(tmp_path, profiles=scoped)
    assert sorted(catalog.variants) == ["decoys@buy", "slow@settings"]  # `exclude` still works beside it
    assert [(s.variant_id, s.reason) for s in catalog.skipped] == [
        ("decoys@settings", "its target is an account; the site's decoy_items works on an item")]


def test_a_target_scope_reads_the_kind_off_the_setup_params() -> None:
    scope = TargetScope(param="focus", default="payee", kinds={"flight": "trip"},
                        accepts={"push_past_first_page": ["payee", "charge"]})
    assert scope.kind_of({}) == "payee" and scope.kind_of({"focus": "flight"}) == "trip"
    assert scope.refusal("push_past_first_page", {"focus": "charge"}) is None
    assert scope.refusal("noise_records", {"focus": "flight"}) is None  # a family not listed takes any target
    assert scope.refusal("push_past_first_page", {"focus": "security"}) == (
        "its target is a security; the site's push_past_first_page works on a payee or a charge")


def test_the_builtin_sites_declarations_replace_the_hand_kept_exclusions() -> None:
    from scenarios.recipes import RecipeExclude, expand
    from sites.registry import profiles

    catalog = load_site_catalog()
    seed_recipes = [r for r in catalog.recipes.values() if all(f.get("layer") == "seed" for f in r.faults)]
    assert seed_recipes
    # What a site's family cannot take, its declaration says; a seed recipe excludes by hand only tasks its
    # variants would measure another primitive on (seed_decoys on travel), which the site would take
    for recipe in seed_recipes:
        if recipe.exclude.tasks:
            unexcluded = recipe.model_copy(update={"exclude": RecipeExclude()})
            made = {v.tasks[0] for v in expand(unexcluded, catalog.tasks, profiles())[0]}
            assert set(recipe.exclude.tasks) <= made, recipe.id
    skipped = {s.variant_id for s in catalog.skipped}
    assert "seed_decoys@travel_book_nonstop_flight" in skipped  # travel's decoys need a hotel, not a flight
    assert "seed_decoys@travel_book_namesake_hotel" not in skipped  # a hotel task
    assert not skipped & set(catalog.variants)


def test_a_client_fault_is_scoped_like_its_step_and_a_prior_fill_must_be_on_the_steps_page(tmp_path: Path) -> None:
    scoped = TASKS.replace("- {do: click, role: button, name: Buy now, page: \"/item/*\",",
                           "- {do: click, role: button, name: Buy now, page: \"/item/*\", within: Gift options,")
    scoped = scoped.replace("      - {do: fill, role: spinbutton, name: Quantity, value: \"1\"}\n", "")
    (tmp_path / "tasks.yaml").write_text(scoped)
    (tmp_path / "recipes.yaml").write_text("recipes:" + COMMIT_OVERLAY + """  - id: renamed
    title: Renamed
    target_primitive: state_tracking
    bind: commit
    faults:
      - {type: rename_after_input, layer: client, params: {new_label: "x", after_input_in: "{prior_fill.name}"}}
""")
    v = load_catalog(tmp_path, profiles=PROFILES).variants
    assert v["commit_overlay@buy"].faults[0]["match"] == {"host": "alpha.test", "role": "button", "name": "Buy now",
                                                         "within": "Gift options"}
    # The only fill before Buy now is the search box, on another page (a link was followed since): no variant.
    assert "renamed@buy" not in v


_SLOW_RECIPES = "".join(f"""
  - {{id: slow_{n}, title: Slow {n}, target_primitive: patience, bind: pages,
     faults: [{{type: latency, layer: network, params: {{delay_ms: {100 * (n + 1)}}}}}]}}""" for n in range(6))
_HAND_WRITTEN = """
  - {id: slow_by_hand, title: By hand, target_primitive: patience, tasks: [settings],
     faults: [{type: latency, layer: network, params: {delay_ms: 7}}]}
"""


def _budgeted(tmp_path: Path, recipes: str, budget: int, seed: int = 1) -> object:
    (tmp_path / "tasks.yaml").write_text(TASKS)
    (tmp_path / "recipes.yaml").write_text(f"recipe_budget: {{per_task_and_primitive: {budget}, seed: {seed}}}\n"
                                          "recipes:" + recipes + "\n")
    (tmp_path / "variants.yaml").write_text("variants:" + _HAND_WRITTEN)
    return load_catalog(tmp_path, profiles=PROFILES)


def test_the_recipe_budget_keeps_n_recipe_variants_per_task_and_primitive_and_every_hand_written_one(
        tmp_path: Path) -> None:
    catalog = _budgeted(tmp_path, _SLOW_RECIPES, budget=2)
    by_task: dict[str, list[str]] = {}
    for variant in catalog.variants.values():  # type: ignore[attr-defined]
        by_task.setdefault(variant.tasks[0], []).append(variant.id)
    assert {task: len([v for v in ids if "@" in v]) for task, ids in by_task.items()} == {
        "buy": 2, "settings": 2, "beta_task": 2}
    assert "slow_by_hand" in catalog.variants  # type: ignore[attr-defined]
    over = catalog.over_budget  # type: ignore[attr-defined]
    assert len(over) == 3 * 4 and all("2 per task and primitive" in s.reason for s in over)
    # the same files choose the same variants; another seed chooses others for some task
    assert set(_budgeted(tmp_path, _SLOW_RECIPES, budget=2).variants) == set(catalog.variants)  # type: ignore
    others = [set(_budgeted(tmp_path, _SLOW_RECIPES, budget=2, seed=s).variants) for s in range(2, 6)]
    assert any(o != set(catalog.variants) for o in others)  # type: ignore[attr-defined]


def test_a_recipe_added_under_a_budget_displaces_at_most_one_variant_of_each_task(tmp_path: Path) -> None:
    before = set(_budgeted(tmp_path, _SLOW_RECIPES, budget=3).variants)  # type: ignore[attr-defined]
    added = _SLOW_RECIPES + """
  - {id: slow_new, title: Slow new, target_primitive: patience, bind: pages,
     faults: [{type: latency, layer: network, params: {delay_ms: 9}}]}"""
    after = set(_budgeted(tmp_path, added, budget=3).variants)  # type: ignore[attr-defined]
    for task in ("buy", "settings", "beta_task"):
        lost = {v for v in before - after if v.endswith(f"@{task}")}
        assert len(lost) <= 1 and len(lost) == len({v for v in after - before if v.endswith(f"@{task}")})


def test_a_bad_recipe_budget_names_file_and_field(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as err:
        _budgeted(tmp_path, _SLOW_RECIPES, budget=0)
    assert err.value.file.endswith("recipes.yaml") and err.value.where == "recipe_budget.per_task_and_primitive"
    (tmp_path / "more.yaml").write_text("recipe_budget: {per_task_and_primitive: 4}\n")
    with pytest.raises(ScenarioError, match="a second recipe budget"):
        _budgeted(tmp_path, _SLOW_RECIPES, budget=2)


def test_a_client_fault_is_not_bound_to_a_name_an_earlier_steps_control_holds(tmp_path: Path) -> None:
    # "Schedule send" opens a panel whose "Schedule" button is the commit: hidden as the page loads, so the
    # client runtime would take "Schedule send" for it. Network faults, which match the commit's request, stay.
    schedule = """
  - id: later
    site: alpha
    title: schedule a message
    instruction: "Schedule it"
    primitives: [planning]
    plan:
      - {do: goto, url: /compose}
      - {do: click, role: button, name: Schedule send, expect: {role: textbox, name: Send on}}
      - {do: fill, role: textbox, name: Send on, value: "2026-12-24"}
      - {do: click, role: button, name: Schedule, request: {method: POST, path: /api/schedule},
         effect: {visit: /scheduled, expect: {text: scheduled}}}
    canonical_diff:
      create: [{collection: messages}]
"""
    (tmp_path / "tasks.yaml").write_text(TASKS + schedule)
    (tmp_path / "recipes.yaml").write_text("recipes:" + COMMIT_OVERLAY + """  - id: commit_503
    title: Commit fails
    target_primitive: patience
    bind: commit
    faults: [{type: error_then_success, layer: network, schedule: {mode: first_n, n: 1}}]
""")
    catalog = load_catalog(tmp_path, profiles=PROFILES)
    assert "commit_overlay@later" not in catalog.variants and "commit_overlay@buy" in catalog.variants
    assert catalog.variants["commit_503@later"].faults[0]["match"]["path"] == "/api/schedule"
    skipped = {s.variant_id: s.reason for s in catalog.skipped}
    assert skipped["commit_overlay@later"] == ("plan step 1 acts on the button 'Schedule send', whose name holds "
                                               "'Schedule': the client runtime would take it for the target")

"""Load the catalog from YAML; every error names the file and the field."""

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

import yaml
from pydantic import ValidationError

from scenarios.faults import FaultError, parse_fault
from scenarios.profile import SiteProfile
from scenarios.recipes import Recipe, RecipeBudget, Skipped, expand, within_budget
from scenarios.schema import Task, Variant
from scenarios.sources import CATALOG_DIR as CATALOG_DIR  # re-exported: where callers have always found it
from scenarios.sources import catalog_files

# libyaml's parser when PyYAML was built with it: the same safe subset, several times faster
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_yaml(text: str) -> Any:
    return yaml.load(text, Loader=SafeLoader)


class ScenarioError(ValueError):
    """A catalog file that cannot be used. str() is 'FILE: FIELD: what was expected'."""

    def __init__(self, file: Path | str, where: str, message: str) -> None:
        self.file, self.where, self.message = str(file), where, message
        super().__init__(f"{file}: {where}: {message}")


@dataclass
class Catalog:
    tasks: dict[str, Task] = field(default_factory=dict)
    variants: dict[str, Variant] = field(default_factory=dict)
    recipes: dict[str, Recipe] = field(default_factory=dict)
    sources: dict[str, Path] = field(default_factory=dict)
    # where each recipe sits in its file (`recipes[3]`), for errors about the variants it made
    recipe_index: dict[str, int] = field(default_factory=dict)
    # `<recipe>@<task>` pairs a recipe did not expand onto because the task's site declares that its
    # fault family cannot take the task's target (`webchaos catalog check` reports them)
    skipped: list[Skipped] = field(default_factory=list)
    # at most N recipe variants per task and target primitive (`recipe_budget` in a recipe file), and the
    # variants it left out
    recipe_budget: RecipeBudget | None = None
    over_budget: list[Skipped] = field(default_factory=list)

    def unknown(self, kind: str, given: str) -> str:
        """Why `given` is not a task or variant id (`kind`: "task" or "variant"): the count and the closest ids,
        never all thousands of them."""
        known = self.tasks if kind == "task" else self.variants
        close = difflib.get_close_matches(given, list(known), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
        return f"unknown {kind} {given!r} ({len(known)} known: `webchaos list` names them){hint}"

    def variants_for(self, task_id: str, include_marked: bool = True) -> list[Variant]:
        """The task's variants; without those marked unfair or ineffective unless `include_marked`."""
        return [v for v in self.variants.values()
                if task_id in v.tasks and (include_marked or v.by_default)]


def _loc(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _read(path: Path) -> dict[str, Any]:
    try:
        data = parse_yaml(path.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark else "(file)"
        raise ScenarioError(path, where, f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    except OSError as exc:
        raise ScenarioError(path, "(file)", f"cannot read: {exc.strerror}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        kind = type(data).__name__
        raise ScenarioError(path, "(root)", f"expected a mapping with 'tasks', 'variants' and/or 'recipes', got {kind}")
    unknown = sorted(set(data) - {"tasks", "variants", "recipes", "recipe_budget"})
    if unknown:
        raise ScenarioError(path, unknown[0],
                            "unknown top-level key; expected 'tasks', 'variants', 'recipes' or 'recipe_budget'")
    return data


def _validate(path: Path, section: str, index: int | None,
              model: type[Task] | type[Variant] | type[Recipe] | type[RecipeBudget], raw: Any) -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = _loc((section, *([] if index is None else [index]), *first["loc"]))
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            message = f"unknown field; allowed: {', '.join(model_fields_at(model, first['loc']))}"
        raise ScenarioError(path, where, message) from exc


def model_fields_at(model: type[Any], loc: tuple[int | str, ...]) -> list[str]:
    """Names of the fields allowed where `loc` points (best effort, for error messages)."""
    current: Any = model
    for part in loc[:-1]:
        if isinstance(part, int) or current is None:
            continue
        info = getattr(current, "model_fields", {}).get(part)
        if info is None:
            return []
        current = _inner_model(info.annotation)
    return sorted(getattr(current, "model_fields", {}))


def _inner_model(annotation: Any) -> Any:
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return annotation
    for arg in get_args(annotation):
        found = _inner_model(arg)
        if found is not None:
            return found
    return None


def load_file(path: Path, catalog: Catalog) -> None:
    data = _read(path)
    for index, raw in enumerate(data.get("tasks") or []):
        task = _validate(path, "tasks", index, Task, raw)
        if task.id in catalog.tasks:
            raise ScenarioError(path, f"tasks[{index}].id", f"duplicate task id {task.id!r}")
        catalog.tasks[task.id] = task
        catalog.sources[f"task:{task.id}"] = path
    for index, raw in enumerate(data.get("variants") or []):
        variant = _validate(path, "variants", index, Variant, raw)
        for f_index, fault in enumerate(variant.faults):
            try:
                parse_fault(fault, f_index)
            except FaultError as exc:
                raise ScenarioError(path, f"variants[{index}].{exc}".split(": ", 1)[0],
                                    str(exc).split(": ", 1)[1]) from exc
        if variant.id in catalog.variants:
            raise ScenarioError(path, f"variants[{index}].id", f"duplicate variant id {variant.id!r}")
        catalog.variants[variant.id] = variant
        catalog.sources[f"variant:{variant.id}"] = path
    for index, raw in enumerate(data.get("recipes") or []):
        recipe = _validate(path, "recipes", index, Recipe, raw)
        for f_index, fault in enumerate(recipe.faults):
            if not isinstance(fault, dict) or not isinstance(fault.get("match", {}), dict):
                raise ScenarioError(path, f"recipes[{index}].faults[{f_index}]",
                                    "expected a fault envelope (a mapping; match, if given, a mapping)")
        if recipe.id in catalog.recipes:
            raise ScenarioError(path, f"recipes[{index}].id", f"duplicate recipe id {recipe.id!r}")
        catalog.recipes[recipe.id] = recipe
        catalog.sources[f"recipe:{recipe.id}"] = path
        catalog.recipe_index[recipe.id] = index
    if "recipe_budget" in data:
        if catalog.recipe_budget is not None:
            raise ScenarioError(path, "recipe_budget",
                                f"a second recipe budget (the first is in {catalog.sources['recipe_budget']})")
        catalog.recipe_budget = _validate(path, "recipe_budget", None, RecipeBudget, data["recipe_budget"])
        catalog.sources["recipe_budget"] = path


def _faults_key(faults: list[dict[str, Any]]) -> str:
    """Faults compared as written, whatever their order and ids."""
    return json.dumps(sorted(json.dumps({k: v for k, v in f.items() if k != "id"}, sort_keys=True) for f in faults))


def _expand_recipes(catalog: Catalog, profiles: Mapping[str, SiteProfile]) -> None:
    """Add every recipe's variants (recipes in id order, tasks in id order), each validated like a
    hand-written one (an error names the recipe's file and field); a recipe's variant whose faults a
    hand-written variant of the same task already has is left out, and so are those over the recipe budget."""
    written = {(task_id, _faults_key(v.faults)) for v in catalog.variants.values() for task_id in v.tasks}
    for recipe_id in sorted(catalog.recipes):
        recipe = catalog.recipes[recipe_id]
        path, index = catalog.sources[f"recipe:{recipe_id}"], catalog.recipe_index[recipe_id]
        variants, skipped = expand(recipe, catalog.tasks, profiles)
        catalog.skipped += skipped
        for variant in variants:
            if (variant.tasks[0], _faults_key(variant.faults)) in written:
                continue  # a hand-written variant of this task already has exactly these faults
            for f_index, fault in enumerate(variant.faults):
                try:
                    parse_fault(fault, f_index)
                except FaultError as exc:
                    field, message = str(exc).split(": ", 1)
                    raise ScenarioError(path, f"recipes[{index}].{field}",
                                        f"{message} (expanded onto task {variant.tasks[0]!r})") from exc
            catalog.variants[variant.id] = variant
            catalog.sources[f"variant:{variant.id}"] = path
    if catalog.recipe_budget is not None:
        expanded = [v for v in catalog.variants.values() if v.recipe]
        _, catalog.over_budget = within_budget(expanded, catalog.recipe_budget)
        for cut in catalog.over_budget:
            del catalog.variants[cut.variant_id]
            del catalog.sources[f"variant:{cut.variant_id}"]


def _cross_check(catalog: Catalog) -> None:
    for variant in catalog.variants.values():
        path = catalog.sources[f"variant:{variant.id}"]
        for t_index, task_id in enumerate(variant.tasks):
            task = catalog.tasks.get(task_id)
            if task is None:
                raise ScenarioError(path, f"variant {variant.id}.tasks[{t_index}]",
                                    f"unknown task {task_id!r}; known: {', '.join(sorted(catalog.tasks))}")
            primitives = set(task.primitives) | {variant.target_primitive}
            if len(primitives) > 2:
                raise ScenarioError(
                    path, f"variant {variant.id}.target_primitive",
                    f"task {task_id!r} already exercises {[p.value for p in task.primitives]}; "
                    "a task and its variant may exercise at most 2 primitives",
                )


def _check_sites(catalog: Catalog, profiles: Mapping[str, SiteProfile]) -> None:
    """Every task's site exists; every seed/server fault of a variant is implemented by its tasks' sites."""
    for task in catalog.tasks.values():
        if task.site not in profiles:
            raise ScenarioError(catalog.sources[f"task:{task.id}"], f"task {task.id}.site",
                                f"unknown site {task.site!r}; known: {', '.join(sorted(profiles))}")
    for variant in catalog.variants.values():
        path = catalog.sources[f"variant:{variant.id}"]
        for index, raw in enumerate(variant.faults):
            spec, params = parse_fault(raw, index)
            if type(params).site_protocol is None:
                continue
            for task_id in variant.tasks:
                profile = profiles[catalog.tasks[task_id].site]
                if spec.type not in profile.fault_types:
                    raise ScenarioError(
                        path, f"variant {variant.id}.faults[{index}].type",
                        f"site {profile.name!r} (task {task_id!r}) does not implement the {spec.layer.value} fault "
                        f"type {spec.type!r}; it implements: {', '.join(profile.fault_types) or 'none'}")


def load_catalog(*roots: Path, profiles: Mapping[str, SiteProfile] | None = None) -> Catalog:
    """Load every *.yaml under the roots (default: the built-in catalog); with the sites' profiles,
    also refuse tasks of unknown sites and faults a site does not implement, and expand the recipes
    (they need each site's host and fault types: without profiles they are read and checked only)."""
    catalog = Catalog()
    for path in catalog_files(*roots):
        load_file(path, catalog)
    _cross_check(catalog)
    if profiles is not None:
        _check_sites(catalog, profiles)
        _expand_recipes(catalog, profiles)
    return catalog

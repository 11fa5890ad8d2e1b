"""Variant recipes: faults bound to a step of a task's semantic plan instead of literal targets.

A recipe names a *binding* ("the commit step", "the search step", "the Nth fill", "the first step
that opens a detail page", "every page load", "the site") and fault envelopes without a target. At
load it expands into one variant per task that has such a step, whose site implements its seed and
server fault types and that it does not exclude: id `<recipe>@<task>`, its target primitive, a title
naming the step. A task whose target its site's implementation of a seed family cannot take
(declared by the site: `SiteProfile.target`) is skipped, with the reason. Client faults target the
bound step's role + accessible name; network and server faults the request the step causes (its
`request`, else, for a commit step, the first write request to the site). Expansion reads only the
catalog and the sites' profiles, in sorted order: the same files give the same variants.

A catalog may set a budget (`recipe_budget` in a recipe file): at most N recipe variants per task and target
primitive, so a primitive many recipes aim at (patience: every latency) does not dominate a task's variants.
Which N are kept is a seeded choice per variant id, so a recipe added later displaces at most one variant of
each group it joins and never reshuffles the rest; hand-written variants are never cut.
"""

import hashlib
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field

from scenarios.faults import Layer, Primitive, lookup
from scenarios.profile import SiteProfile
from scenarios.schema import PlanStep, Task, Variant, VariantStatus
from scenarios.strict import Strict

Binding = Literal["commit", "entry", "search", "fill", "detail", "pages", "site"]
WRITE_METHODS = ["POST", "PUT", "PATCH", "DELETE"]
_PLACEHOLDER = re.compile(r"\{[A-Za-z_][\w.]*\}")


class RecipeExclude(Strict):
    tasks: list[str] = Field(default_factory=list, description="task ids the recipe never expands onto")
    tags: list[str] = Field(default_factory=list, description="tasks carrying any of these tags are skipped")
    step_roles: list[str] = Field(default_factory=list,
                                  description="tasks whose bound step acts on a control of one of these roles")


class Recipe(Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    title: str = Field(description="the variants' title; {step} becomes the bound step's description")
    target_primitive: Primitive
    bind: Binding = Field(description="commit | entry | search | fill | detail | pages | site")
    nth: int = Field(default=1, ge=1, description="with commit or fill: the Nth such step")
    exclude: RecipeExclude = RecipeExclude()
    unfair: dict[str, str] = Field(
        default_factory=dict, description="task id -> why its variant is not fair (status unfair, not run by default)")
    ineffective: dict[str, str] = Field(
        default_factory=dict,
        description="task id -> why its fault cannot fire on that task (status ineffective, not run by default)")
    harmless: str | dict[str, str] = Field(
        default="", description="why no naive agent fails the recipe's variants, measured (status harmless, not run "
                                "by default): they cannot show the primitive they name; a reason for every variant, "
                                "or task id -> reason for those tasks' only")
    faults: list[dict[str, Any]] = Field(
        min_length=1, description="fault envelopes; `match` is filled from the binding (keys given here are kept)")


class RecipeBudget(Strict):
    per_task_and_primitive: int = Field(
        ge=1, description="recipe variants kept per task and target primitive (hand-written ones are not counted)")
    seed: int = Field(default=0, description="seeds which of a group's variants are kept")


@dataclass(frozen=True)
class BoundStep:
    """The plan step a recipe bound to (None for `pages` and `site`) and how a title names it."""

    index: int | None
    step: PlanStep | None
    label: str


def _literal(name: str | None) -> bool:
    """A name a client fault can target as written: no placeholder, not a /regex/."""
    return bool(name) and not _PLACEHOLDER.search(name or "") and not (
        len(name or "") > 1 and (name or "").startswith("/") and (name or "").endswith("/"))


def _describe(kind: str, index: int, step: PlanStep) -> str:
    what = f"{step.do} {step.role} '{step.name}'" if step.role else f"{step.do} {step.url}"
    return f"the {kind} (plan step {index + 1}: {what})"


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third"}.get(n, f"{n}th")


def bind_step(task: Task, bind: Binding, nth: int = 1) -> BoundStep | None:
    """The step of `task`'s plan that `bind` names, or None when the task has none."""
    plan = list(enumerate(task.plan))
    if bind == "site":
        return BoundStep(None, None, "the site's world")
    if bind == "pages":
        return BoundStep(None, None, "every page load")
    if bind == "commit":
        commits = [(i, s) for i, s in plan if s.effect is not None]
        if len(commits) < nth:
            return None
        kind = "commit step" if nth == 1 else f"{_ordinal(nth)} commit step"
        return BoundStep(commits[nth - 1][0], commits[nth - 1][1], _describe(kind, *commits[nth - 1]))
    if bind == "entry":
        # the link click that opens the page the first commit is on: the way into the commit's page
        first = next((i for i, s in plan if s.effect is not None), None)
        for i, s in reversed(plan[:first or 0]):
            if s.loads_a_page():
                if s.do == "click" and s.role == "link" and _literal(s.name):
                    return BoundStep(i, s, _describe("link that opens the commit's page", i, s))
                return None
        return None
    if bind == "search":
        for i, s in plan:
            if s.role == "searchbox" and s.do in ("fill", "press"):
                # the press (or the fill) that submits it causes the request; the fill names the box
                submit = next((j for j, t in plan[i:] if t.role == s.role and t.name == s.name and t.do == "press"), i)
                return BoundStep(submit, task.plan[submit], _describe("search step", submit, task.plan[submit]))
        return None
    if bind == "fill":
        fills = [(i, s) for i, s in plan if s.do == "fill"]
        if len(fills) < nth:
            return None
        return BoundStep(fills[nth - 1][0], fills[nth - 1][1], _describe(f"{_ordinal(nth)} fill", *fills[nth - 1]))
    # detail: the first step that opens one entity's page: a link named after the entity (a placeholder)
    # whose page has that name as its heading, or an open_each over such links
    for i, s in plan:
        if s.role != "link" or not s.name or not _PLACEHOLDER.search(s.name):
            continue
        if s.do == "open_each" or (s.do == "click" and s.expect is not None and s.expect.role == "heading"
                                   and s.expect.name == s.name):
            return BoundStep(i, s, _describe("first step that opens a detail page", i, s))
    return None


_STEP_WORDS = ("{step.name}", "{step.page}", "{step.expect_text}", "{prior_fill.name}")


def _step_words(task: Task, bound: BoundStep) -> dict[str, str]:
    """What `{step.name}`, `{step.page}` (its page's path glob), `{step.expect_text}` (the text the step's
    postcondition waits for, when literal: what the site says on success) and `{prior_fill.name}` (the last
    literal fill before the step on the step's own page: a client fault lives on one page, so a field typed
    in on an earlier page is never typed in where the fault waits for it) stand for."""
    words: dict[str, str] = {}
    if bound.step is not None and bound.step.name:
        words["{step.name}"] = bound.step.name
    if bound.step is not None and bound.step.page:
        words["{step.page}"] = bound.step.page
    expect = bound.step.expect if bound.step is not None else None
    if expect is not None and expect.text and _literal(expect.text):
        words["{step.expect_text}"] = expect.text
    if bound.index is not None:
        for earlier in reversed(task.plan[:bound.index]):
            if earlier.loads_a_page():
                break
            if earlier.do == "fill" and _literal(earlier.name) and earlier.name:
                words["{prior_fill.name}"] = earlier.name
                break
    return words


def _fill_words(value: Any, words: dict[str, str]) -> Any:
    """The recipe's parameters with the step's words put in; None if one it uses does not exist."""
    if isinstance(value, str):
        for key in _STEP_WORDS:
            if key in value:
                if key not in words:
                    return None
                value = value.replace(key, words[key])
        return value
    if isinstance(value, dict):
        out = {k: _fill_words(v, words) for k, v in value.items()}
        return None if any(v is None for v in out.values()) else out
    if isinstance(value, list):
        items = [_fill_words(v, words) for v in value]
        return None if any(v is None for v in items) else items
    return value


def _match(layer: Layer, recipe: Recipe, bound: BoundStep, host: str, given: dict[str, Any]) -> dict[str, Any] | None:
    """The fault's `match` for this binding, or None when the binding gives this layer no target."""
    if layer == Layer.seed:
        return None if given else {}
    step = bound.step
    match: dict[str, Any] = {"host": host}
    if layer == Layer.client:
        if step is not None:
            if not step.role or not _literal(step.name):
                return None
            match.update(role=step.role, name=step.name)
            if step.within is not None:
                match["within"] = step.within
    elif step is not None and step.request is not None:
        match.update(path=step.request.path, methods=[step.request.method])
    elif recipe.bind == "commit" and recipe.nth == 1:
        match["methods"] = list(WRITE_METHODS)  # the first write to the site is the first commit's
    elif step is not None:
        return None  # the request this step causes is not declared: nothing to bind to
    return {**match, **given}


def _implements(raw: dict[str, Any], profile: SiteProfile) -> bool:
    try:
        kind = lookup(str(raw.get("type")), Layer(str(raw.get("layer"))))
    except ValueError:
        return True  # an unknown layer: the variant's own validation names it
    if kind is None or kind.site_protocol is None:
        return True
    return raw.get("type") in profile.fault_types


@dataclass(frozen=True)
class Skipped:
    """A task a recipe would expand onto but for what its site declares its fault families can take, or
    because its client fault's target name is held by a control an earlier step uses (`_shadowed`)."""

    variant_id: str
    task_id: str
    reason: str


def _shadowed(task: Task, bound: BoundStep) -> str | None:
    """Why a client fault cannot be bound to this step by its name: an earlier step of the plan acts on a control
    of the same role whose name holds this step's ("Schedule send" before "Schedule"). The client runtime takes
    such a control when none of the exact name shows as the page loads (proxy_addons/client/core.js `byRole`),
    and a control a later step uses is often hidden until an earlier one reveals it."""
    step = bound.step
    if step is None or bound.index is None or not step.role or not _literal(step.name):
        return None
    name = " ".join((step.name or "").split()).lower()
    for index, earlier in enumerate(task.plan[:bound.index]):
        other = " ".join((earlier.name or "").split()).lower()
        if earlier.role == step.role and other != name and name in other:
            return (f"plan step {index} acts on the {step.role} {earlier.name!r}, whose name holds {step.name!r}: "
                    "the client runtime would take it for the target")
    return None


def _refusal(raw_faults: list[dict[str, Any]], profile: SiteProfile, task: Task) -> str | None:
    for raw in raw_faults:
        reason = profile.refusal(str(raw.get("type")), task.setup.params)
        if reason:
            return reason
    return None


def expand_recipe(recipe: Recipe, tasks: Mapping[str, Task], profiles: Mapping[str, SiteProfile]) -> list[Variant]:
    """One variant per eligible task, in task-id order."""
    return expand(recipe, tasks, profiles)[0]


def expand(recipe: Recipe, tasks: Mapping[str, Task],
           profiles: Mapping[str, SiteProfile]) -> tuple[list[Variant], list[Skipped]]:
    """The variants (in task-id order) and the tasks skipped because their site's family cannot take
    their target."""
    out: list[Variant] = []
    skipped: list[Skipped] = []
    excluded_tags = set(recipe.exclude.tags)
    for task_id in sorted(tasks):
        task = tasks[task_id]
        profile = profiles.get(task.site)
        if profile is None or task_id in recipe.exclude.tasks or excluded_tags & set(task.tags):
            continue
        if len(set(task.primitives) | {recipe.target_primitive}) > 2:
            continue
        if not all(_implements(raw, profile) for raw in recipe.faults):
            continue
        bound = bind_step(task, recipe.bind, recipe.nth)
        if bound is None or (bound.step is not None and bound.step.role in recipe.exclude.step_roles):
            continue
        refused = _refusal(recipe.faults, profile, task)
        if refused is None and any(raw.get("layer") == Layer.client.value for raw in recipe.faults):
            refused = _shadowed(task, bound)
        if refused:
            skipped.append(Skipped(f"{recipe.id}@{task_id}", task_id, refused))
            continue
        faults = []
        for raw in recipe.faults:
            try:
                layer = Layer(str(raw.get("layer")))
            except ValueError:
                faults.append(raw)
                continue
            given = _fill_words(dict(raw.get("match") or {}), _step_words(task, bound))
            match = None if given is None else _match(layer, recipe, bound, profile.host, given)
            if match is None:
                break
            fault = dict(raw)
            if "params" in raw:
                fault["params"] = _fill_words(raw["params"], _step_words(task, bound))
                if fault["params"] is None:
                    break
            if match:
                fault["match"] = match
            else:
                fault.pop("match", None)
            faults.append(fault)
        else:
            status, reason = _marked(recipe, task_id)
            out.append(Variant(
                id=f"{recipe.id}@{task_id}", title=recipe.title.replace("{step}", bound.label), tasks=[task_id],
                target_primitive=recipe.target_primitive, faults=faults, recipe=recipe.id,
                status=status, reason=reason,
            ))
    return out, skipped


def _marked(recipe: Recipe, task_id: str) -> tuple[VariantStatus, str]:
    """The status and reason the recipe gives its variant on `task_id` (unfair, then ineffective, then harmless
    when marked more than one way)."""
    if task_id in recipe.unfair:
        return "unfair", recipe.unfair[task_id]
    if task_id in recipe.ineffective:
        return "ineffective", recipe.ineffective[task_id]
    harmless = recipe.harmless.get(task_id, "") if isinstance(recipe.harmless, dict) else recipe.harmless
    if harmless.strip():
        return "harmless", harmless
    return "ok", ""


def _rank(seed: int, variant_id: str) -> str:
    return hashlib.sha256(f"{seed}\0{variant_id}".encode()).hexdigest()


def within_budget(variants: Iterable[Variant], budget: RecipeBudget) -> tuple[list[Variant], list[Skipped]]:
    """The recipe variants `budget` keeps (in the order given) and those it leaves out: per task and target
    primitive, the N whose seeded rank is lowest."""
    variants = list(variants)
    groups: dict[tuple[str, str], list[Variant]] = defaultdict(list)
    for variant in variants:
        groups[(variant.tasks[0], variant.target_primitive.value)].append(variant)
    cut: dict[str, Skipped] = {}
    for (task_id, primitive), group in groups.items():
        ranked = sorted(group, key=lambda v: _rank(budget.seed, v.id))
        for variant in ranked[budget.per_task_and_primitive:]:
            cut[variant.id] = Skipped(variant.id, task_id, f"over the recipe budget ({budget.per_task_and_primitive} "
                                                           f"per task and primitive; {primitive} has {len(group)})")
    return [v for v in variants if v.id not in cut], sorted(cut.values(), key=lambda s: s.variant_id)

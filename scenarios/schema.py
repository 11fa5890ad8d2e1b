"""The catalog's data model: tasks, variants, plans and the canonical_diff grammar."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from scenarios.faults import Primitive


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


# Predicate keys the grader understands; each predicate is a one-key mapping, e.g. {eq: 1}.
PREDICATE_KEYS = frozenset({
    "eq", "ne", "gt", "gte", "lt", "lte", "in", "not_in", "set_eq", "contains", "not_contains",
    "substring", "icontains", "startswith", "endswith", "regex", "exists", "any", "not", "all_of", "any_of",
})


def check_predicate(predicate: Any, where: str) -> None:
    """Raise ValueError naming `where` if `predicate` is not a well-formed predicate."""
    if not isinstance(predicate, dict) or len(predicate) != 1:
        raise ValueError(f"{where}: a predicate is a mapping with exactly one key, got {predicate!r}")
    ((key, arg),) = predicate.items()
    if key not in PREDICATE_KEYS:
        raise ValueError(f"{where}: unknown predicate {key!r}; allowed: {', '.join(sorted(PREDICATE_KEYS))}")
    if key == "not":
        check_predicate(arg, f"{where}.not")
    elif key in ("all_of", "any_of"):
        if not isinstance(arg, list) or not arg:
            raise ValueError(f"{where}.{key}: expected a non-empty list of predicates")
        for i, sub in enumerate(arg):
            check_predicate(sub, f"{where}.{key}[{i}]")
    elif key in ("in", "not_in", "set_eq") and not isinstance(arg, list | str):
        raise ValueError(f"{where}.{key}: expected a list")
    elif key in ("exists", "any") and not isinstance(arg, bool):
        raise ValueError(f"{where}.{key}: expected true or false")


Predicates = dict[str, dict[str, Any]]


def _check_predicates(preds: Predicates | None, where: str) -> None:
    for field, pred in (preds or {}).items():
        check_predicate(pred, f"{where}.{field}")


class EntityExpectation(Strict):
    """One expected created/updated/deleted entity."""

    collection: str = Field(description="top-level state collection, e.g. cart_items; a singleton like user")
    desc: str = ""
    where: Predicates | None = Field(default=None, description="update/delete: which entity (by its fields)")
    properties: Predicates = Field(default_factory=dict, description="what must hold of the entity")
    weight: float = Field(default=1.0, gt=0)

    @model_validator(mode="after")
    def _predicates(self) -> "EntityExpectation":
        _check_predicates(self.where, "where")
        _check_predicates(self.properties, "properties")
        return self


class Invariant(Strict):
    """A collection that must not change, except entities the explicit sections matched."""

    collection: str
    preserve: Literal["ALL"] | list[str] = Field(
        default="ALL", description="ALL: no entity created/updated/deleted; a list: those fields unchanged"
    )
    desc: str = ""
    severity: Literal["critical", "high", "medium", "low"] = "high"


class CanonicalDiff(Strict):
    create: list[EntityExpectation] = Field(default_factory=list)
    update: list[EntityExpectation] = Field(default_factory=list)
    delete: list[EntityExpectation] = Field(default_factory=list)
    invariant: list[Invariant] = Field(default_factory=list)


class Subgoal(Strict):
    name: str
    checks: list[str] = Field(min_length=1, description="refs into canonical_diff, e.g. 'create[0]'")

    @field_validator("checks")
    @classmethod
    def _refs(cls, refs: list[str]) -> list[str]:
        import re

        for ref in refs:
            if not re.fullmatch(r"(create|update|delete|invariant)\[\d+\]", ref):
                raise ValueError(f"bad check ref {ref!r}; expected e.g. 'create[0]' or 'invariant[1]'")
        return refs


class Expect(Strict):
    """A postcondition on the page, checked after a step (all given fields must hold)."""

    text: str | None = Field(default=None, description="text visible somewhere on the page")
    role: str | None = None
    name: str | None = Field(default=None, description="with role: an element with this accessible name")
    url_contains: str | None = None
    timeout_ms: int = Field(default=4000, ge=0)


class PlanStep(Strict):
    """One step of the oracle trajectory, in role + accessible-name terms."""

    do: Literal["goto", "click", "fill", "check", "press", "open_each"]
    role: str | None = None
    name: str | None = Field(default=None, description="accessible name; /…/ for a regular expression")
    exact: bool = True
    within: str | None = Field(default=None, description="scope: the nearest region/article/row with this text")
    url: str | None = Field(default=None, description="goto: a path on the start site or a full URL")
    value: str | None = Field(default=None, description="fill: the text to type")
    key: str | None = Field(default=None, description="press: a key such as Enter")
    until: Expect | None = Field(default=None, description="open_each: the page to stop on")
    expect: Expect | None = None
    note: str = ""

    @model_validator(mode="after")
    def _fields(self) -> "PlanStep":
        needs: dict[str, list[str]] = {
            "goto": ["url"], "click": ["role", "name"], "fill": ["role", "name", "value"],
            "check": ["role", "name"], "press": ["role", "name", "key"], "open_each": ["role", "name", "until"],
        }
        for name in needs[self.do]:
            if getattr(self, name) is None:
                raise ValueError(f"step 'do: {self.do}' needs field {name!r}")
        return self


class Setup(Strict):
    params: dict[str, Any] = Field(default_factory=dict, description="passed to the site's world generator")
    start_path: str = "/"


class Task(Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    site: str
    title: str
    instruction: str = Field(description="what the agent is told; {placeholders} come from the world's bindings")
    primitives: list[Primitive] = Field(default_factory=list, max_length=2)
    setup: Setup = Setup()
    plan: list[PlanStep] = Field(min_length=1)
    canonical_diff: CanonicalDiff
    subgoals: list[Subgoal] = Field(default_factory=list)

    @model_validator(mode="after")
    def _subgoal_refs(self) -> "Task":
        sizes = {k: len(getattr(self.canonical_diff, k)) for k in ("create", "update", "delete", "invariant")}
        for i, goal in enumerate(self.subgoals):
            for ref in goal.checks:
                section, index = ref[:-1].split("[")
                if int(index) >= sizes[section]:
                    raise ValueError(f"subgoals[{i}] ({goal.name}): {ref} does not exist in canonical_diff")
        return self


class Variant(Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    title: str
    tasks: list[str] = Field(min_length=1, description="ids of the base tasks this variant applies to")
    target_primitive: Primitive
    faults: list[dict[str, Any]] = Field(min_length=1, description="fault envelopes (DESIGN.md)")

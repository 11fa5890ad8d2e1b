"""The catalog's data model: tasks, variants, plans and the canonical_diff grammar (its predicates:
scenarios/predicates.py)."""

import re
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from scenarios.answers import AnswerSpec, TaskKind
from scenarios.faults import Primitive, lookup
from scenarios.predicates import Predicates, check_expr, check_predicate, check_predicates
from scenarios.strict import Strict

Severity = Literal["critical", "high", "medium", "low"]


class EntityExpectation(Strict):
    """One expected created/updated/deleted entity."""

    collection: str = Field(description="top-level state collection, e.g. cart_items; a singleton like user")
    desc: str = ""
    where: Predicates | None = Field(default=None, description="which entities are eligible (by their fields)")
    properties: Predicates = Field(default_factory=dict, description="what must hold of the entity")
    weight: float = Field(default=1.0, gt=0)

    @model_validator(mode="after")
    def _predicates(self) -> "EntityExpectation":
        check_predicates(self.where, "where")
        check_predicates(self.properties, "properties")
        return self


class Invariant(Strict):
    """A collection that must not change, except entities the explicit sections matched."""

    collection: str
    preserve: Literal["ALL"] | list[str] = Field(
        default="ALL", description="ALL: no entity created/updated/deleted; a list: those fields unchanged"
    )
    filter: Predicates | str | None = Field(
        default=None,
        description="which entities the invariant covers: field predicates, or an expression over `a`",
    )
    desc: str = ""
    severity: Severity = "high"

    @model_validator(mode="after")
    def _filter(self) -> "Invariant":
        if isinstance(self.filter, str):
            check_expr(self.filter, "filter")
        else:
            check_predicates(self.filter, "filter")
        return self


class Constraint(Strict):
    """A state-wide condition on the final state: an expression, a count, or a value at a path."""

    desc: str = ""
    expr: str | None = Field(default=None, description="over initial, final, target, bindings")
    collection: str | None = Field(default=None, description="with count: entities of the final state")
    where: Predicates | None = Field(default=None, description="with collection: which entities are counted")
    count: dict[str, Any] | None = Field(default=None, description="a predicate on the number counted")
    path: str | None = Field(default=None, description="dotted path into the final state, e.g. user.email")
    value: dict[str, Any] | None = Field(default=None, description="with path: a predicate on the value")
    severity: Severity = "high"

    @model_validator(mode="after")
    def _one_form(self) -> "Constraint":
        forms = [self.expr is not None, self.collection is not None or self.count is not None,
                 self.path is not None or self.value is not None]
        if sum(forms) != 1:
            raise ValueError("a constraint is exactly one of: expr; collection + count; path + value")
        if self.expr is not None:
            check_expr(self.expr, "expr")
        if forms[1]:
            if self.collection is None or self.count is None:
                raise ValueError("collection and count go together")
            check_predicate(self.count, "count")
            check_predicates(self.where, "where")
        if forms[2]:
            if self.path is None or self.value is None:
                raise ValueError("path and value go together")
            check_predicate(self.value, "value")
        return self


_REF = r"(create|update|delete|invariant|constraints)\[\d+\]"


class NamedInvariant(Strict):
    """A human-readable name and a severity for one invariant or constraint."""

    name: str = Field(min_length=1)
    ref: str = Field(pattern=r"^(invariant|constraints)\[\d+\]$", description="e.g. invariant[0]")
    severity: Severity | None = Field(default=None, description="overrides the referenced check's severity")


class Alternative(Strict):
    """One acceptable way to do the task; the best applicable alternative of a oneof counts."""

    desc: str = ""
    when: str | None = Field(default=None, description="an expression: is this alternative applicable at all")
    create: list[EntityExpectation] = Field(default_factory=list)
    update: list[EntityExpectation] = Field(default_factory=list)
    delete: list[EntityExpectation] = Field(default_factory=list)
    invariant: list[Invariant] = Field(default_factory=list)
    constraints: list[Constraint] = Field(default_factory=list)

    @model_validator(mode="after")
    def _when(self) -> "Alternative":
        if self.when is not None:
            check_expr(self.when, "when")
        return self


class CanonicalDiff(Strict):
    create: list[EntityExpectation] = Field(default_factory=list)
    update: list[EntityExpectation] = Field(default_factory=list)
    delete: list[EntityExpectation] = Field(default_factory=list)
    invariant: list[Invariant] = Field(default_factory=list)
    constraints: list[Constraint] = Field(default_factory=list)
    oneof: list[Alternative] = Field(default_factory=list, description="alternatives; empty or at least two")
    named_invariants: list[NamedInvariant] = Field(default_factory=list)
    ignore: list[str] = Field(
        default_factory=list,
        description="exempt from the collateral sweep: 'collection' or 'collection.field' (globs allowed)",
    )

    @model_validator(mode="after")
    def _refs(self) -> "CanonicalDiff":
        if len(self.oneof) == 1:
            raise ValueError("oneof: give at least two alternatives (or move the one into the main sections)")
        for i, named in enumerate(self.named_invariants):
            section, index = named.ref[:-1].split("[")
            if int(index) >= len(getattr(self, section)):
                raise ValueError(f"named_invariants[{i}] ({named.name}): {named.ref} does not exist")
        return self

    def ref_exists(self, ref: str) -> bool:
        """True if a subgoal may name `ref` (see Subgoal)."""
        if ref in ("oneof", "collateral"):
            return ref != "oneof" or bool(self.oneof)
        alt = re.fullmatch(r"oneof\[(\d+)\]\.(.+)", ref)
        owner: Any = self
        if alt:
            if int(alt.group(1)) >= len(self.oneof):
                return False
            owner, ref = self.oneof[int(alt.group(1))], alt.group(2)
        section, index = ref[:-1].split("[")
        return int(index) < len(getattr(owner, section))


class Subgoal(Strict):
    name: str
    checks: list[str] = Field(
        min_length=1,
        description="refs into canonical_diff: 'create[0]', 'constraints[1]', 'oneof[1].update[0]', "
                    "'oneof' (the chosen alternative passed) or 'collateral' (no uncovered change)",
    )

    @field_validator("checks")
    @classmethod
    def _refs(cls, refs: list[str]) -> list[str]:
        for ref in refs:
            if not re.fullmatch(rf"{_REF}|oneof\[\d+\]\.{_REF}|oneof|collateral", ref):
                raise ValueError(f"bad check ref {ref!r}; expected e.g. 'create[0]', 'invariant[1]', "
                                 "'oneof[0].create[0]', 'oneof' or 'collateral'")
        return refs


class RelevantAttributes(Strict):
    """Attributes of some entities a careful agent should have seen (informational coverage)."""

    entity: str | list[str] = Field(description="entity id(s); '{placeholders}' allowed, e.g. '{hard_negative_ids}'")
    attributes: list[str] = Field(min_length=1, description="attribute names as events reveal them")
    required: bool = Field(default=False, description="evidence a correct agent has seen before its first commit")


class ProcessSpec(Strict):
    """What the process metrics need to know about a task (grader/process.py)."""

    target: str | None = Field(default="{target.id}",
                               description="the entity the agent must isolate (exploration success); null: none")
    relevant_attributes: list[RelevantAttributes] = Field(default_factory=list)
    evidence: list[Literal["inspect", "navigate", "search", "filter"]] = Field(
        default_factory=list, description="kinds of evidence a correct agent gathers before its first commit"
    )


class Expect(Strict):
    """A postcondition on the page, checked after a step (all given fields must hold)."""

    text: str | None = Field(default=None, description="text visible somewhere on the page")
    role: str | None = None
    name: str | None = Field(default=None, description="with role: an element with this accessible name")
    value: str | None = Field(default=None, description="with role + name: the control's current value")
    url_contains: str | None = None
    timeout_ms: int = Field(default=4000, ge=0)


class Effect(Strict):
    """A page that shows whether a step's write happened, for an agent that checks before retrying."""

    visit: str = Field(description="a path on the site, e.g. /cart")
    expect: Expect
    complete: list["PlanStep"] = Field(
        default_factory=list,
        description="steps on the `visit` page that finish a write it shows only in part (a flag dropped, a "
                    "quantity doubled); an agent that verifies runs them once before it repeats the write")


class StepRequest(Strict):
    """The HTTP request a step causes (what network and server recipes bind to)."""

    method: str = Field(pattern=r"^(GET|POST|PUT|PATCH|DELETE)$")
    path: str = Field(min_length=1, description="path glob, e.g. /api/cart or /api/posts/*/vote")


class PlanStep(Strict):
    """One step of the oracle trajectory, in role + accessible-name terms."""

    do: Literal["goto", "click", "fill", "check", "select", "press", "open_each", "answer", "upload", "download"]
    role: str | None = None
    name: str | None = Field(default=None, description="accessible name; /…/ for a regular expression")
    exact: bool = True
    within: str | None = Field(default=None, description="scope: the nearest region/article/row with this text")
    url: str | None = Field(default=None, description="goto: a path on the start site or a full URL")
    value: str | None = Field(default=None, description="fill: the text to type; select: the option's label; "
                                                        "upload: the name of one of the user's files (Setup.files)")
    key: str | None = Field(default=None, description="press: a key such as Enter")
    until: Expect | None = Field(default=None, description="open_each: the page to stop on")
    expect: Expect | None = None
    effect: "Effect | None" = Field(
        default=None, description="where to confirm a write took effect before repeating it (e.g. the cart page)"
    )
    request: StepRequest | None = Field(
        default=None, description="the request this step causes (recipes bind network/server faults to it)")
    page: str | None = Field(
        default=None, description="path glob of the page the step acts on, e.g. /product/* (recipes' {step.page})")
    pattern: str | None = Field(
        default=None, description="answer: a regular expression whose first group (or whole match) is the answer, "
                                  "read from the element's text")
    each: bool = Field(default=False, description="answer: every element with this role + name, as a list")
    infeasible: bool = Field(default=False, description="answer: report that the task cannot be done")
    note: str = ""

    @model_validator(mode="after")
    def _fields(self) -> "PlanStep":
        needs: dict[str, list[str]] = {
            "goto": ["url"], "click": ["role", "name"], "fill": ["role", "name", "value"],
            "check": ["role", "name"], "select": ["role", "name", "value"], "press": ["role", "name", "key"],
            "open_each": ["role", "name", "until"], "answer": [] if self.infeasible else ["role", "name"],
            "upload": ["role", "name", "value"], "download": ["role", "name"],
        }
        for name in needs[self.do]:
            if getattr(self, name) is None:
                raise ValueError(f"step 'do: {self.do}' needs field {name!r}")
        if self.do != "answer" and (self.pattern is not None or self.each or self.infeasible):
            raise ValueError("pattern, each and infeasible belong to 'do: answer' steps")
        if self.pattern is not None:
            try:
                re.compile(self.pattern)
            except re.error as exc:
                raise ValueError(f"pattern: {exc}") from None
        return self

    def cut_answer(self, text: str) -> str | None:
        """An answer step's value in an element's text: its `pattern`'s first group (or whole match), or the
        text itself without one; None when the pattern does not match."""
        if self.pattern is None:
            return text
        found = re.search(self.pattern, text)
        if found is None:
            return None
        return found.group(1) if found.groups() else found.group(0)

    def loads_a_page(self) -> bool:
        """Does the step (as plans write them) load another page: a goto, a link, a search submitted?"""
        return (self.do in ("goto", "open_each") or (self.do == "click" and self.role == "link")
                or (self.do == "press" and self.role == "searchbox"))



Effect.model_rebuild()

USER_FILES_DIR = "files"  # the folder of an episode's directory that holds the user's files (Setup.files)


class UserFile(Strict):
    """A file the user has on their computer for the task (what an `upload` step sends)."""

    name: str = Field(min_length=1, description="the file's name; {placeholders} come from the world's bindings")
    kind: Literal["image", "text"] = Field(
        description="image: a small PNG picture drawn from the seed (name it .png); text: `text` as UTF-8")
    text: str = Field(default="", description="text: the file's content; {placeholders} as in `name`")

    @model_validator(mode="after")
    def _kind(self) -> "UserFile":
        if self.kind == "image" and "{" not in self.name and not self.name.lower().endswith(".png"):
            raise ValueError(f"an image file is a PNG: name it *.png, not {self.name!r}")
        if self.kind == "image" and self.text:
            raise ValueError("text belongs to kind 'text' files")
        return self


class Setup(Strict):
    params: dict[str, Any] = Field(default_factory=dict, description="passed to the site's world generator")
    start_path: str = "/"
    files: list[UserFile] = Field(default_factory=list, description="the user's files, written to the episode's "
                                                                    f"`{USER_FILES_DIR}/` folder before it starts")


class Task(Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+$")
    site: str
    title: str
    instruction: str = Field(description="what the agent is told; {placeholders} come from the world's bindings")
    primitives: list[Primitive] = Field(default_factory=list, max_length=2)
    tags: list[str] = Field(default_factory=list, description="free labels a recipe may exclude by")
    setup: Setup = Setup()
    plan: list[PlanStep] = Field(min_length=1)
    canonical_diff: CanonicalDiff
    subgoals: list[Subgoal] = Field(default_factory=list)
    process: ProcessSpec = ProcessSpec()
    answer: AnswerSpec | None = Field(
        default=None, description="what a correct final answer is (an answer task); infeasible: true for a task "
                                  "that cannot be done")

    @model_validator(mode="after")
    def _subgoal_refs(self) -> "Task":
        for i, goal in enumerate(self.subgoals):
            for ref in goal.checks:
                if not self.canonical_diff.ref_exists(ref):
                    raise ValueError(f"subgoals[{i}] ({goal.name}): {ref} does not exist in canonical_diff")
        answering = [i for i, step in enumerate(self.plan) if step.do == "answer"]
        if self.answer is None and answering:
            raise ValueError(f"plan[{answering[0]}]: an answer step, but the task has no answer block")
        if self.answer is not None and answering != [len(self.plan) - 1]:
            raise ValueError("a task with an answer block ends its plan with one 'do: answer' step")
        if self.answer is not None and self.answer.infeasible != self.plan[-1].infeasible:
            raise ValueError("the plan's answer step and the answer block disagree on infeasible")
        if self.answer is not None and self.answer.infeasible and self.writes:
            raise ValueError("an infeasible task expects nothing written: its canonical_diff has no "
                             "create/update/delete")
        return self

    @property
    def writes(self) -> bool:
        """Does a correct agent change server state (create/update/delete, here or in an alternative)?"""
        blocks: list[CanonicalDiff | Alternative] = [self.canonical_diff, *self.canonical_diff.oneof]
        return any(b.create or b.update or b.delete for b in blocks)

    @property
    def kind(self) -> TaskKind:
        if self.answer is None:
            return "action"
        if self.answer.infeasible:
            return "infeasible"
        return "action+answer" if self.writes else "answer"


# Why a variant is left out of default runs (it stays in the catalog, runnable by name, with its reason):
# unfair (the reference agent cannot pass it), ineffective (its fault cannot fire on the way a robust agent does
# the task), harmless (fair and effective, but no naive agent fails it: it cannot show the primitive it names).
VariantStatus = Literal["ok", "unfair", "ineffective", "harmless"]


class Variant(Strict):
    id: str = Field(pattern=r"^[a-z0-9_]+(@[a-z0-9_]+)?$", description="<recipe>@<task> when a recipe made it")
    title: str
    tasks: list[str] = Field(min_length=1, description="ids of the base tasks this variant applies to")
    target_primitive: Primitive
    faults: list[dict[str, Any]] = Field(min_length=1, description="fault envelopes (DESIGN.md)")
    status: VariantStatus = Field(
        default="ok", description="left out of default runs: unfair (the reference agent cannot pass it), "
                                  "ineffective (its fault cannot fire on the way a robust agent does the task) or "
                                  "harmless (no naive agent fails it)")
    reason: str = Field(default="", description="with a status other than ok: why")
    recipe: str | None = Field(default=None, description="the recipe this variant was expanded from")

    @model_validator(mode="after")
    def _reason(self) -> "Variant":
        if self.status != "ok" and not self.reason.strip():
            raise ValueError(f"status {self.status} needs a reason")
        return self

    @property
    def by_default(self) -> bool:
        """Is it in default runs (not marked unfair, ineffective or harmless)?"""
        return self.status == "ok"

    @property
    def makes_infeasible(self) -> bool:
        """Does one of its (seed) faults make the task impossible (e.g. `target_missing`)?"""
        return any((kind := lookup(str(f.get("type")), str(f.get("layer", "seed")))) is not None
                   and kind.makes_infeasible for f in self.faults if f.get("layer") == "seed")


def kind_of(task: Task, variant: Variant | None = None) -> TaskKind:
    """What a correct outcome is: the task's kind, or `infeasible` under a variant that removes its target."""
    return "infeasible" if variant is not None and variant.makes_infeasible else task.kind

"""Grade an episode from server state: the task's canonical_diff against the state diff."""

from typing import Any

from pydantic import BaseModel, Field

from grader.bindings import fill
from grader.diff import StateDiff, compute_diff
from grader.predicates import holds
from scenarios.schema import EntityExpectation, Invariant, Task

SEVERITY_PENALTY = {"critical": 0.30, "high": 0.20, "medium": 0.15, "low": 0.10}
HARD_SEVERITIES = ("critical", "high")


class CheckResult(BaseModel):
    ref: str = Field(description="where in canonical_diff, e.g. create[0]")
    desc: str
    passed: bool
    weight: float = 0.0
    penalty: float = 0.0
    detail: str = ""
    matched_id: str | None = None


class SubgoalResult(BaseModel):
    name: str
    passed: bool
    checks: list[str]


class Verdict(BaseModel):
    success: bool
    score: float = Field(ge=0, le=1)
    subgoals: list[SubgoalResult]
    checks: list[CheckResult]
    failures: list[str]
    changes: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="per collection: created/updated/deleted counts"
    )


def _describe(fields: list[str], entity: dict[str, Any]) -> str:
    return ", ".join(f"{f}={entity.get(f)!r}" for f in fields)


def _match_entities(
    ref: str, expectation: EntityExpectation, candidates: list[tuple[str, dict[str, Any]]], used: set[str]
) -> CheckResult:
    """The first unused candidate that satisfies `where` and `properties` (greedy)."""
    closest: tuple[int, str, list[str]] | None = None
    for entity_id, entity in candidates:
        if f"{expectation.collection}:{entity_id}" in used:
            continue
        if expectation.where and holds(expectation.where, entity):
            continue
        failing = holds(expectation.properties, entity)
        if not failing:
            used.add(f"{expectation.collection}:{entity_id}")
            return CheckResult(ref=ref, desc=expectation.desc, passed=True, weight=expectation.weight,
                               matched_id=entity_id)
        if closest is None or len(failing) < closest[0]:
            closest = (len(failing), entity_id, failing)
    if closest is None:
        detail = f"no matching entity in {expectation.collection}"
    else:
        entity = dict(candidates)[closest[1]]
        detail = f"closest {expectation.collection} {closest[1]} fails: {_describe(closest[2], entity)}"
    return CheckResult(ref=ref, desc=expectation.desc, passed=False, weight=expectation.weight, detail=detail)


def _invariant(ref: str, inv: Invariant, diff: StateDiff, used: set[str]) -> CheckResult:
    change = diff.of(inv.collection)

    def free(entity_id: str) -> bool:
        return f"{inv.collection}:{entity_id}" not in used

    touched: list[str] = []
    if inv.preserve == "ALL":
        touched += [f"created {e['id']}" for e in change.created if free(str(e.get("id")))]
        touched += [f"deleted {e['id']}" for e in change.deleted if free(str(e.get("id")))]
        touched += [f"updated {u.id} ({', '.join(u.changed)})" for u in change.updated if free(u.id)]
    else:
        for u in change.updated:
            hit = [f for f in u.changed if f in inv.preserve]
            if hit and free(u.id):
                touched.append(f"updated {u.id} ({', '.join(hit)})")
    passed = not touched
    return CheckResult(
        ref=ref, desc=inv.desc or f"{inv.collection} preserved", passed=passed,
        penalty=0.0 if passed else SEVERITY_PENALTY[inv.severity],
        detail="" if passed else f"{inv.collection}: " + "; ".join(touched),
    )


def grade(task: Task, bindings: dict[str, Any], initial: dict[str, Any], final: dict[str, Any]) -> Verdict:
    diff = compute_diff(initial, final)
    canonical = task.canonical_diff.model_validate(fill(task.canonical_diff.model_dump(), bindings))
    used: set[str] = set()
    checks: list[CheckResult] = []
    for i, exp in enumerate(canonical.create):
        created = [(str(e.get("id")), e) for e in diff.of(exp.collection).created]
        checks.append(_match_entities(f"create[{i}]", exp, created, used))
    for i, exp in enumerate(canonical.update):
        updated = [(u.id, u.after) for u in diff.of(exp.collection).updated]
        checks.append(_match_entities(f"update[{i}]", exp, updated, used))
    for i, exp in enumerate(canonical.delete):
        deleted = [(str(e.get("id")), e) for e in diff.of(exp.collection).deleted]
        checks.append(_match_entities(f"delete[{i}]", exp, deleted, used))
    invariant_checks = [_invariant(f"invariant[{i}]", inv, diff, used) for i, inv in enumerate(canonical.invariant)]

    total = sum(c.weight for c in checks)
    raw = sum(c.weight for c in checks if c.passed) / total if total else 1.0
    penalty = sum(c.penalty for c in invariant_checks if not c.passed)
    score = max(0.0, min(1.0, raw - penalty))

    failures = [f"{c.ref} {c.desc}: {c.detail}" for c in checks if not c.passed]
    for inv, check in zip(canonical.invariant, invariant_checks, strict=True):
        if not check.passed and inv.severity in HARD_SEVERITIES:
            failures.append(f"{check.ref} {check.desc}: {check.detail}")
    by_ref = {c.ref: c for c in [*checks, *invariant_checks]}
    subgoals = [
        SubgoalResult(name=g.name, passed=all(by_ref[r].passed for r in g.checks), checks=g.checks)
        for g in task.subgoals
    ]
    changes = {
        name: {"created": len(c.created), "updated": len(c.updated), "deleted": len(c.deleted)}
        for name, c in diff.collections.items()
    }
    return Verdict(success=not failures, score=round(score, 4), subgoals=subgoals,
                   checks=[*checks, *invariant_checks], failures=failures, changes=changes)

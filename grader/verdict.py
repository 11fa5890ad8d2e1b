"""Grade an episode from server state: the task's canonical_diff against the state diff.

Pipeline: fill the canonical_diff from the bindings → diff initial/final → for the
main sections and each applicable `oneof` alternative: bipartite matching of
create/update/delete, invariants, constraints, collateral sweep → keep the best
alternative → score, failures, subgoals (and, given a trace, process metrics).
"""

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from grader.answers import AnswerCheck, check_answer
from grader.bindings import fill
from grader.diff import EntityChange, StateDiff, compute_diff
from grader.matching import Candidate, match_pool
from grader.predicates import MISSING, Context, evaluate
from grader.process import ProcessMetrics, missing_evidence, process_metrics
from grader.sweep import COLLATERAL_PENALTY, COLLATERAL_SEVERITY, Collateral, Sweep
from grader.trace import EpisodeTrace
from scenarios.answers import Answer, AnswerSpec, expects_infeasible
from scenarios.expr import ExprRuntimeError, evaluate_expr
from scenarios.ledger import fault_created_ids
from scenarios.profile import GENERIC_VOCABULARY, EventVocabulary
from scenarios.schema import Alternative, CanonicalDiff, Constraint, EntityExpectation, Invariant, Task

SEVERITY_PENALTY = {"critical": 0.30, "high": 0.20, "medium": 0.15, "low": 0.10}
HARD_SEVERITIES = ("critical", "high")
_ENTITY_SECTIONS = ("create", "update", "delete")


class CheckResult(BaseModel):
    ref: str = Field(description="where in canonical_diff, e.g. create[0], oneof[1].invariant[0], collateral[2]")
    kind: str = Field(default="create", description="create|update|delete|invariant|constraint|collateral|oneof")
    desc: str
    passed: bool
    weight: float = 0.0
    credit: float = Field(default=0.0, description="positive checks: fraction of properties that held (best match)")
    severity: str | None = None
    penalty: float = 0.0
    name: str | None = Field(default=None, description="named_invariants: the human-readable name")
    detail: str = ""
    matched_id: str | None = None


class SubgoalResult(BaseModel):
    name: str
    passed: bool
    checks: list[str]


class Verdict(BaseModel):
    success: bool
    score: float = Field(ge=0, le=1)
    raw_score: float = Field(default=0.0, ge=0, le=1, description="before penalties")
    penalty: float = 0.0
    subgoals: list[SubgoalResult]
    checks: list[CheckResult] = Field(description="positive checks: create, update, delete")
    negative_checks: list[CheckResult] = Field(default_factory=list,
                                               description="invariants, constraints, collateral")
    failures: list[str]
    chosen_alternative: int | None = Field(default=None, description="index into oneof, if the task has one")
    changes: dict[str, dict[str, int]] = Field(
        default_factory=dict, description="per collection: created/updated/deleted counts"
    )
    answer: AnswerCheck | None = Field(
        default=None, description="the answer's check: answer tasks, infeasible ones, or an agent that gave up")
    process: ProcessMetrics | None = None


@dataclass
class _Evaluation:
    checks: list[CheckResult] = field(default_factory=list)
    negative: list[CheckResult] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    raw: float = 1.0
    penalty: float = 0.0
    score: float = 1.0
    alternative: int | None = None

    @property
    def key(self) -> tuple[bool, float, float]:
        return (not self.failures, self.score, -(self.alternative or 0))


def _describe(fields: list[str], entity: dict[str, Any]) -> str:
    return ", ".join(f"{f}={entity.get(f, MISSING)!r}" for f in fields)


def _candidates(diff: StateDiff, section: str, collection: str) -> list[Candidate]:
    change = diff.of(collection)
    if section == "create":
        return [Candidate(str(e.get("id", collection)), e) for e in change.created]
    if section == "update":
        return [Candidate(u.id, u.after, u.before) for u in change.updated]
    return [Candidate(str(e.get("id", collection)), e) for e in change.deleted]


def _filter_holds(inv: Invariant, entity: dict[str, Any], ctx: Context) -> bool:
    if inv.filter is None:
        return True
    if isinstance(inv.filter, str):
        names = {**ctx.names(entity), "a": entity, "entity": entity}
        try:
            return bool(evaluate_expr(inv.filter, names))
        except ExprRuntimeError:
            return False
    local = Context(bindings=ctx.bindings, initial=ctx.initial, final=ctx.final, entity=entity)
    return all(evaluate(p, entity.get(n, MISSING), local) for n, p in inv.filter.items())


def _lookup_path(state: dict[str, Any], path: str) -> Any:
    value: Any = state
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return MISSING
    return value


def _constraint_holds(con: Constraint, ctx: Context) -> tuple[bool, str]:
    if con.expr is not None:
        try:
            return bool(evaluate_expr(con.expr, ctx.names(None))), ""
        except ExprRuntimeError as exc:
            return False, f"expression failed: {exc}"
    if con.collection is not None and con.count is not None:
        raw = ctx.final.get(con.collection, [])
        entities = [raw] if isinstance(raw, dict) else [e for e in raw if isinstance(e, dict)]
        n = 0
        for entity in entities:
            local = Context(bindings=ctx.bindings, initial=ctx.initial, final=ctx.final, entity=entity)
            if all(evaluate(p, entity.get(k, MISSING), local) for k, p in (con.where or {}).items()):
                n += 1
        return evaluate(con.count, n, ctx), f"{con.collection}: {n} counted"
    assert con.path is not None and con.value is not None
    value = _lookup_path(ctx.final, con.path)
    return evaluate(con.value, value, ctx), f"{con.path}={value!r}"


class _Grader:
    def __init__(self, canonical: CanonicalDiff, diff: StateDiff, ctx: Context) -> None:
        self.canonical, self.diff, self.ctx = canonical, diff, ctx
        self.named = {n.ref: n for n in canonical.named_invariants}

    def mentioned(self, sections: list[tuple[str, Any]]) -> set[str]:
        names: set[str] = set()
        for _, block in sections:
            for key in (*_ENTITY_SECTIONS, "invariant"):
                names.update(item.collection for item in getattr(block, key))
            names.update(c.collection for c in block.constraints if c.collection)
        return names

    def evaluate(self, blocks: list[tuple[str, CanonicalDiff | Alternative]], alternative: int | None) -> _Evaluation:
        ev = _Evaluation(alternative=alternative)
        covered: dict[tuple[str, str, str], set[str]] = {}
        kind_of = {"create": "created", "update": "updated", "delete": "deleted"}
        # Positive sections: one matching pool per (section, collection) across all blocks.
        for section in _ENTITY_SECTIONS:
            pools: dict[str, list[tuple[str, EntityExpectation]]] = {}
            for prefix, block in blocks:
                for i, exp in enumerate(getattr(block, section)):
                    pools.setdefault(exp.collection, []).append((f"{prefix}{section}[{i}]", exp))
            for collection, members in pools.items():
                candidates = _candidates(self.diff, section, collection)
                assigned = match_pool([e for _, e in members], candidates, self.ctx)
                for (ref, exp), got in zip(members, assigned, strict=True):
                    check = CheckResult(ref=ref, kind=section, desc=exp.desc, passed=False, weight=exp.weight)
                    if got.candidate is None or got.score is None:
                        check.detail = f"no eligible {kind_of[section]} entity in {collection}"
                    else:
                        cand = candidates[got.candidate]
                        check.credit = round(got.score.credit, 4)
                        check.passed = not got.score.failing
                        check.matched_id = cand.id
                        if got.score.credit > 0:
                            covered[(collection, kind_of[section], cand.id)] = {*exp.properties, *(exp.where or {})}
                        if not check.passed:
                            check.detail = f"closest {collection} {cand.id} fails: " + _describe(
                                got.score.failing, cand.entity)
                    ev.checks.append(check)
        ev.checks.sort(key=lambda c: _ref_order(c.ref))
        # Invariants.
        invariants = [(f"{p}invariant[{i}]", inv) for p, b in blocks for i, inv in enumerate(b.invariant)]
        for ref, inv in invariants:
            ev.negative.append(self._invariant(ref, inv, covered))
        # Constraints.
        constraints = [(f"{p}constraints[{i}]", c) for p, b in blocks for i, c in enumerate(b.constraints)]
        con_checks = []
        for ref, con in constraints:
            ok, detail = _constraint_holds(con, self.ctx)
            named = self.named.get(ref)
            severity = (named.severity if named and named.severity else None) or con.severity
            con_checks.append(CheckResult(
                ref=ref, kind="constraint", desc=con.desc or (con.expr or con.path or con.collection or ""),
                passed=ok, severity=severity, name=named.name if named else None, detail="" if ok else detail,
                penalty=0.0 if ok else SEVERITY_PENALTY[severity], weight=1.0,
            ))
        # Collateral sweep.
        sweep = Sweep(self.canonical.ignore, self.mentioned(blocks))

        def shielded(collection: str, kind: str, entity: dict[str, Any], fields: list[str] | None = None) -> bool:
            for _, inv in invariants:
                if inv.collection != collection or not _filter_holds(inv, entity, self.ctx):
                    continue
                if inv.preserve == "ALL" or kind == "updated":
                    return True
            return False

        collateral = sweep.run(self.diff, covered, shielded)
        coll_checks = [_collateral_check(i, c) for i, c in enumerate(collateral)]
        # Score.
        total = sum(c.weight for c in ev.checks)
        if total > 0:
            ev.raw = sum(c.weight * c.credit for c in ev.checks) / total
            for c in con_checks:
                c.weight = 0.0
        elif con_checks:
            ev.raw = sum(c.passed for c in con_checks) / len(con_checks)
            for c in con_checks:
                c.penalty = 0.0
        ev.negative.extend(con_checks)
        ev.negative.extend(coll_checks)
        ev.penalty = sum(c.penalty for c in ev.negative if not c.passed)
        ev.score = max(0.0, min(1.0, ev.raw - ev.penalty))
        ev.failures = [f"{c.ref} {c.desc}: {c.detail}" for c in ev.checks if not c.passed]
        ev.failures += [f"{c.ref} {c.desc}: {c.detail}" for c in ev.negative
                        if not c.passed and c.severity in HARD_SEVERITIES]
        return ev

    def _invariant(self, ref: str, inv: Invariant, covered: dict[tuple[str, str, str], set[str]]) -> CheckResult:
        change = self.diff.of(inv.collection)

        def free(kind: str, entity_id: str) -> bool:
            return (inv.collection, kind, entity_id) not in covered

        def scoped(entity: dict[str, Any]) -> bool:
            return _filter_holds(inv, entity, self.ctx)

        touched: list[str] = []
        if inv.preserve == "ALL":
            touched += [f"created {e.get('id')}" for e in change.created
                        if free("created", str(e.get("id", inv.collection))) and scoped(e)]
            touched += [f"deleted {e.get('id')}" for e in change.deleted
                        if free("deleted", str(e.get("id", inv.collection))) and scoped(e)]
            touched += [f"updated {u.id} ({', '.join(u.changed)})" for u in change.updated
                        if free("updated", u.id) and scoped(u.before)]
        else:
            for u in change.updated:
                hit = [f for f in u.changed if f in inv.preserve]
                if hit and scoped(u.before) and _not_named(covered, inv.collection, u, hit):
                    touched.append(f"updated {u.id} ({', '.join(hit)})")
        named = self.named.get(ref)
        severity = (named.severity if named and named.severity else None) or inv.severity
        passed = not touched
        return CheckResult(
            ref=ref, kind="invariant", desc=inv.desc or f"{inv.collection} preserved", passed=passed,
            severity=severity, name=named.name if named else None,
            penalty=0.0 if passed else SEVERITY_PENALTY[severity],
            detail="" if passed else f"{inv.collection}: " + "; ".join(touched),
        )


def _not_named(covered: dict[tuple[str, str, str], set[str]], collection: str, u: EntityChange,
               hit: list[str]) -> bool:
    """A preserved field an expectation explicitly asked to change is not a violation."""
    named = covered.get((collection, "updated", u.id))
    return named is None or any(f not in named for f in hit)


def _collateral_check(index: int, c: Collateral) -> CheckResult:
    scope = "mentioned" if c.mentioned else "unmentioned"
    where = "a collection the task names" if c.mentioned else "a collection the task never mentions"
    return CheckResult(
        ref=f"collateral[{index}]", kind="collateral", desc=f"uncovered change in {where}", passed=False,
        severity=COLLATERAL_SEVERITY[scope], penalty=COLLATERAL_PENALTY[scope], detail=c.describe(),
        matched_id=c.entity_id,
    )


_SECTION_ORDER = {"create": 0, "update": 1, "delete": 2, "invariant": 3, "constraints": 4}


def _ref_order(ref: str) -> tuple[int, int, int]:
    alt = 0
    if ref.startswith("oneof["):
        head, ref = ref.split(".", 1)
        alt = int(head[6:-1]) + 1
    section, index = ref[:-1].split("[")
    return (alt, _SECTION_ORDER.get(section, 9), int(index))


def fill_canonical(task: Task, bindings: dict[str, Any]) -> CanonicalDiff:
    """The task's canonical_diff for this world; when the world makes the task impossible (a seed fault
    removed its target), nothing may be written: only the task's `ignore` list is kept."""
    canonical = CanonicalDiff.model_validate(fill(task.canonical_diff.model_dump(exclude_defaults=True), bindings))
    if expects_infeasible(task.answer, bindings):
        return CanonicalDiff(ignore=canonical.ignore)
    return canonical


def _answer_check(task: Task, bindings: dict[str, Any], answer: Answer | None,
                  trace: EpisodeTrace | None) -> AnswerCheck | None:
    if expects_infeasible(task.answer, bindings):
        check = check_answer(AnswerSpec(infeasible=True), answer)
        if check.passed and task.answer is not None and task.answer.infeasible and trace is not None and (
                missing := missing_evidence(task, bindings, trace.events)):
            # A task that cannot be done says so only after looking: an agent a fault stopped before the
            # search, or one that gave up, names the right outcome without having found anything.
            return check.model_copy(update={"passed": False, "detail": (
                "reported infeasible without looking where the task says to: no " + ", ".join(missing))})
        return check
    if task.answer is not None:
        return check_answer(AnswerSpec.model_validate(fill(task.answer.model_dump(exclude_defaults=True), bindings)),
                            answer)
    if answer is not None and answer.infeasible:  # an action task the agent gave up on
        return AnswerCheck(passed=False, predicate="none", expected="the task done (no answer asked for)",
                           given=answer.shown(), normaliser="flag",
                           detail="the agent reported the task infeasible; it can be done")
    return None


def _with_answer(ev: _Evaluation, check: AnswerCheck) -> None:
    """Fold the answer's check into the chosen evaluation: a positive check weighted beside the others."""
    positive = sum(c.weight for c in ev.checks)
    if check.predicate == "none":
        pass  # nothing asked, nothing to credit; the failure below is what counts
    elif positive > 0:
        ev.raw = (ev.raw * positive + check.weight * check.passed) / (positive + check.weight)
    elif any(c.kind == "constraint" for c in ev.negative):
        ev.raw = (ev.raw + check.passed) / 2
    else:
        ev.raw = float(check.passed)
    ev.score = max(0.0, min(1.0, ev.raw - ev.penalty))
    if not check.passed:
        ev.failures.append(f"answer ({check.predicate}): expected {check.expected}, given {check.given}"
                           + (f": {check.detail}" if check.detail else ""))


def grade(
    task: Task, bindings: dict[str, Any], initial: dict[str, Any], final: dict[str, Any],
    trace: EpisodeTrace | None = None, vocabulary: EventVocabulary = GENERIC_VOCABULARY,
    answer: Answer | None = None,
) -> Verdict:
    """The episode's verdict; with a `trace` (events, ledger, actions) it carries process metrics too,
    read through the site's event `vocabulary`. `answer` is what the agent said (None: nothing)."""
    # Records a server fault created (arriving while the agent works) are the world's changes, not the agent's.
    diff = compute_diff(initial, final).without_created(fault_created_ids(trace.ledger) if trace else set())
    canonical = fill_canonical(task, bindings)
    ctx = Context(bindings=bindings, initial=initial, final=final)
    grader = _Grader(canonical, diff, ctx)
    base: tuple[str, CanonicalDiff | Alternative] = ("", canonical)
    chosen: _Evaluation
    oneof_check: CheckResult | None = None
    if canonical.oneof:
        options = []
        for i, alt in enumerate(canonical.oneof):
            if alt.when is not None:
                try:
                    applicable = bool(evaluate_expr(alt.when, ctx.names(None)))
                except ExprRuntimeError:
                    applicable = False
                if not applicable:
                    continue
            options.append(grader.evaluate([base, (f"oneof[{i}].", alt)], i))
        if options:
            chosen = max(options, key=lambda e: e.key)
        else:
            chosen = grader.evaluate([base], None)
            oneof_check = CheckResult(ref="oneof", kind="oneof", desc="one of the alternatives applies",
                                      passed=False, severity="high", detail="no alternative's `when` holds")
            chosen.negative.insert(0, oneof_check)
            chosen.failures.append(f"oneof: {oneof_check.detail}")
    else:
        chosen = grader.evaluate([base], None)
    answer_check = _answer_check(task, bindings, answer, trace)
    if answer_check is not None:
        _with_answer(chosen, answer_check)

    by_ref = {c.ref: c for c in [*chosen.checks, *chosen.negative]}

    def ref_passed(ref: str) -> bool:
        if ref == "collateral":
            return all(c.passed for c in chosen.negative if c.kind == "collateral")
        if ref == "oneof":
            prefix = f"oneof[{chosen.alternative}]."
            return chosen.alternative is not None and all(
                c.passed for c in [*chosen.checks, *chosen.negative] if c.ref.startswith(prefix))
        check = by_ref.get(ref)
        return check is not None and check.passed

    subgoals = [SubgoalResult(name=g.name, passed=all(ref_passed(r) for r in g.checks), checks=g.checks)
                for g in task.subgoals]
    changes = {
        name: {"created": len(c.created), "updated": len(c.updated), "deleted": len(c.deleted)}
        for name, c in diff.collections.items()
    }
    verdict = Verdict(
        success=not chosen.failures, score=round(chosen.score, 4), raw_score=round(chosen.raw, 4),
        penalty=round(chosen.penalty, 4), subgoals=subgoals, checks=chosen.checks, negative_checks=chosen.negative,
        failures=chosen.failures, chosen_alternative=chosen.alternative, changes=changes, answer=answer_check,
    )
    if trace is not None:
        matched = {c.matched_id for c in chosen.checks if c.passed and c.matched_id}
        final_ids = {str(e["id"]) for v in final.values() if isinstance(v, list)
                     for e in v if isinstance(e, dict) and "id" in e}
        verdict.process = process_metrics(task, bindings, trace, verdict.success, matched, final_ids, vocabulary)
    return verdict

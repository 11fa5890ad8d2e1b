"""Process-level metrics of one episode, from its semantic events, GUI actions and fault ledger.

- exploration success: the last entity inspected before the first commit is the task's target;
- execution success: terminal success, given exploration success (None otherwise);
- informational coverage: the fraction of the task's relevant (entity, attribute) pairs some
  event revealed (`detail.revealed` of an event about that entity);
- GUI steps (actions.jsonl lines, else the agent's attempts), semantic steps (events) and their ratio;
- first wrong step (failed episodes only) and its category;
- premature commit: evidence the task declares necessary that was missing at the first commit;
- recovery: for every fault firing, the time until the next successful state-changing request.
  Ledger times are on the proxy's episode clock; the HAR's wall clock is aligned to it through
  a ledger line that the HAR carries as a `_webchaos` mark.
"""

from collections import Counter
from typing import Any, Literal

from pydantic import BaseModel, Field

from grader.bindings import BindingError, fill
from grader.trace import EpisodeTrace, HarEntry
from scenarios.ledger import is_firing
from scenarios.profile import GENERIC_VOCABULARY, EventVocabulary
from scenarios.schema import Task

MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
_NOT_PROGRESS_PREFIXES = ("/__webchaos/", "/static/")


class WrongStep(BaseModel):
    seq: int | None = Field(description="event seq; None when the wrong step is an omission")
    kind: str = Field(description="inspect | navigate | search | filter | commit")
    name: str
    target: str | None = None
    reason: str


class FaultRecovery(BaseModel):
    seq: int
    layer: str
    type: str
    fault_id: str | None
    t_ms: float
    recovered: bool
    recover_ms: float | None = Field(default=None, description="firing → end of the next successful write")
    via: str | None = Field(default=None, description="the request that showed progress, e.g. 'POST /api/orders'")


class ProcessMetrics(BaseModel):
    terminal_success: bool
    target_id: str | None = None
    exploration_success: bool | None = None
    execution_success: bool | None = None
    inspected_before_commit: list[str] = Field(default_factory=list)
    informational_coverage: float | None = None
    relevant_missing: list[str] = Field(default_factory=list)
    gui_steps: int | None = None
    gui_steps_source: Literal["actions", "attempts"] | None = None
    semantic_steps: int = 0
    gui_per_semantic: float | None = None
    steps_by_kind: dict[str, int] = Field(default_factory=dict)
    first_wrong_step: WrongStep | None = None
    premature_commit: bool = False
    missing_evidence: list[str] = Field(default_factory=list, description="kinds (and entity.attribute pairs)")
    recoveries: list[FaultRecovery] = Field(default_factory=list)


def _fill(value: Any, bindings: dict[str, Any]) -> Any:
    try:
        return fill(value, bindings)
    except BindingError:
        return None


def _relevant(task: Task, bindings: dict[str, Any]) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """All relevant (entity, attribute) pairs, and the required ones."""
    pairs: list[tuple[str, str]] = []
    required: list[tuple[str, str]] = []
    for spec in task.process.relevant_attributes:
        raw = _fill(spec.entity, bindings)
        ids = raw if isinstance(raw, list) else ([] if raw is None else [raw])
        for entity in ids:
            for attr in spec.attributes:
                pair = (str(entity), attr)
                if pair not in pairs:
                    pairs.append(pair)
                    if spec.required:
                        required.append(pair)
    return pairs, required


def _revealed(events: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The (entity, attribute) pairs the events showed the agent."""
    seen: set[tuple[str, str]] = set()
    for e in events:
        revealed = (e.get("detail") or {}).get("revealed")
        if isinstance(revealed, list) and e.get("target") is not None:
            seen.update((str(e["target"]), str(attr)) for attr in revealed)
    return seen


def missing_evidence(task: Task, bindings: dict[str, Any], events: list[dict[str, Any]]) -> list[str]:
    """What the task declares an agent must have looked at (its evidence kinds and required attributes)
    that `events` do not show: the kinds first, then "inspect" and the entity.attribute pairs."""
    kinds = {str(e.get("kind")) for e in events}
    missing: list[str] = [str(k) for k in task.process.evidence if k not in kinds]
    seen = _revealed(events)
    _, required = _relevant(task, bindings)
    unseen = [f"{e}.{a}" for e, a in required if (e, a) not in seen]
    if unseen and "inspect" not in missing:
        missing.append("inspect")
    return missing + unseen


def _first_wrong_step(events: list[dict[str, Any]], target: str | None, matched: set[str],
                      final_ids: set[str], vocabulary: EventVocabulary) -> WrongStep:
    """The earliest decision that left the winning branch; an omission when the agent just stopped."""

    def _listed(event: dict[str, Any]) -> list[str]:
        return vocabulary.listed_ids(event.get("detail") or {})

    last_inspect: dict[str, Any] | None = None
    for e in events:
        kind = e.get("kind")
        if kind == "inspect":
            last_inspect = e
        elif kind == "commit":
            touched = vocabulary.touched_ids(e.get("detail") or {})
            wrong = (target is not None and touched is not None and target not in touched) or (
                (target is None or touched is None) and e.get("target") not in matched
                and e.get("target") in final_ids)
            if wrong:
                if last_inspect is not None and target is not None and last_inspect.get("target") != target:
                    return WrongStep(seq=last_inspect.get("seq"), kind="inspect", name=str(last_inspect.get("name")),
                                     target=last_inspect.get("target"),
                                     reason="committed to the item last inspected, which is not the target")
                return WrongStep(seq=e.get("seq"), kind="commit", name=str(e.get("name")), target=e.get("target"),
                                 reason="this commit changed the wrong thing")
        elif kind in ("search", "filter") and target is not None and _listed(e) is not None:
            listed = _listed(e)
            later = [x for x in events if (x.get("seq") or 0) > (e.get("seq") or 0)]
            found_later = any(target in _listed(x) or x.get("target") == target for x in later)
            if target not in listed and not found_later and not any(
                    target in _listed(x) for x in events if (x.get("seq") or 0) < (e.get("seq") or 0)):
                return WrongStep(seq=e.get("seq"), kind=str(kind), name=str(e.get("name")), target=e.get("target"),
                                 reason=f"the {kind} results exclude the target and it never showed up again")
    if target is not None:
        if not any(target in _listed(e) for e in events) and not any(e.get("target") == target for e in events):
            return WrongStep(seq=None, kind="search", name="(missing)", reason="the target was never listed")
        if not any(e.get("kind") == "inspect" and e.get("target") == target for e in events):
            return WrongStep(seq=None, kind="inspect", name="(missing)", reason="the target was never inspected")
    return WrongStep(seq=None, kind="commit", name="(missing)",
                     reason="the needed change was never committed (or did not stick)")


def _anchor(ledger: list[dict[str, Any]], har: list[HarEntry]) -> float | None:
    """Offset (ms) from ledger t_ms to the HAR's wall clock, from the first line the HAR also carries."""
    for line in ledger:
        for entry in har:
            for mark in entry.marks:
                if (mark.get("fault_id") == line.get("fault_id") and mark.get("type") == line.get("type")
                        and mark.get("layer") == line.get("layer") and mark.get("detail") == line.get("detail")):
                    return entry.start_ms - float(line.get("t_ms", 0.0))
    return None


def _recoveries(trace: EpisodeTrace) -> list[FaultRecovery]:
    firings = [line for line in trace.ledger if is_firing(line)]
    if not firings:
        return []
    har = trace.har or []
    offset = _anchor(trace.ledger, har) if har else None
    progress = sorted(
        (e for e in har if e.method in MUTATING and 200 <= e.status < 400
         and not e.path.startswith(_NOT_PROGRESS_PREFIXES)),
        key=lambda e: e.start_ms + e.duration_ms,
    )
    out = []
    for line in firings:
        t_ms = float(line.get("t_ms", 0.0))
        rec = FaultRecovery(seq=int(line.get("seq", 0)), layer=str(line.get("layer")), type=str(line.get("type")),
                            fault_id=line.get("fault_id"), t_ms=t_ms, recovered=False)
        if offset is not None:
            fired_at = t_ms + offset
            for e in progress:
                if e.start_ms >= fired_at - 1.0:
                    rec.recovered = True
                    rec.recover_ms = round(max(0.0, e.start_ms + e.duration_ms - fired_at), 1)
                    rec.via = f"{e.method} {e.path}"
                    break
        out.append(rec)
    return out


def process_metrics(task: Task, bindings: dict[str, Any], trace: EpisodeTrace, terminal_success: bool,
                    matched_ids: set[str], final_ids: set[str] | None = None,
                    vocabulary: EventVocabulary = GENERIC_VOCABULARY) -> ProcessMetrics:
    """`vocabulary` is the episode's site's (its `SiteProfile`): which event details list entities."""
    events = sorted(trace.events, key=lambda e: e.get("seq", 0))
    target_raw = _fill(task.process.target, bindings) if task.process.target else None
    target = str(target_raw) if isinstance(target_raw, str | int) else None
    commits = [i for i, e in enumerate(events) if e.get("kind") == "commit"]
    before_commit = events[: commits[0]] if commits else events
    inspected = [str(e.get("target")) for e in before_commit if e.get("kind") == "inspect"]
    m = ProcessMetrics(terminal_success=terminal_success, target_id=target, inspected_before_commit=inspected)
    if target is not None:
        m.exploration_success = bool(inspected) and inspected[-1] == target
        m.execution_success = terminal_success if m.exploration_success else None
    # informational coverage
    pairs, _ = _relevant(task, bindings)
    seen = _revealed(events)
    if pairs:
        m.informational_coverage = round(sum(p in seen for p in pairs) / len(pairs), 4)
        m.relevant_missing = [f"{e}.{a}" for e, a in pairs if (e, a) not in seen]
    # steps
    m.semantic_steps = len(events)
    m.steps_by_kind = dict(sorted(Counter(str(e.get("kind")) for e in events).items()))
    if trace.actions is not None:
        m.gui_steps, m.gui_steps_source = len(trace.actions), "actions"
    elif trace.attempts is not None:
        m.gui_steps, m.gui_steps_source = trace.attempts, "attempts"
    if m.gui_steps is not None and m.semantic_steps:
        m.gui_per_semantic = round(m.gui_steps / m.semantic_steps, 4)
    # premature commit: declared evidence missing at the first commit
    if commits:
        m.missing_evidence = missing_evidence(task, bindings, before_commit)
        m.premature_commit = bool(m.missing_evidence)
    if not terminal_success:
        m.first_wrong_step = _first_wrong_step(events, target, matched_ids, final_ids or set(), vocabulary)
    m.recoveries = _recoveries(trace)
    return m

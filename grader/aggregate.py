"""Run-level statistics: primitive × site matrix, variant drops with bootstrap CIs, pass^k, attribution.

Every function takes episode records (anything with the attributes of `Record`, e.g. the
harness's EpisodeResult) and returns plain JSON-ready data. Episodes the harness could not
run (infrastructure errors: `status == "infra_error"`, or `error` set) are left out: they say
nothing about the agent, and are counted apart (`infra_errors`). Randomness (bootstrap) comes
from a seeded `random.Random`, so the same run always yields the same numbers.
"""

import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import comb
from typing import Any

BASE = "base"


@dataclass(frozen=True)
class Record:
    task_id: str
    variant_id: str | None
    target_primitive: str | None
    site: str | None
    seed: int
    agent: str
    success: bool
    score: float
    error: str | None = None


def records_from(results: Iterable[Any], sites: dict[str, str] | None = None) -> list[Record]:
    """Records from result objects; `sites` maps task id → site when a result lacks `site`."""
    out = []
    for r in results:
        if is_infra_error(r) or getattr(r, "profile", None):  # chaos-profile episodes: `profile_robustness`
            continue
        site = getattr(r, "site", None) or (sites or {}).get(r.task_id)
        out.append(Record(r.task_id, r.variant_id, r.target_primitive, site, int(r.seed), r.agent,
                          bool(r.success), float(r.score)))
    return out


def is_infra_error(result: Any) -> bool:
    """An episode webchaos itself could not run to a verdict (not the agent's failure)."""
    return bool(getattr(result, "error", None)) or getattr(result, "status", None) == "infra_error"


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def score_matrix(records: Sequence[Record]) -> dict[str, dict[str, dict[str, dict[str, float]]]]:
    """{agent: {primitive: {site: {n, mean_score, success_rate}}}}; base episodes form the 'base' row.

    Agents are kept apart: mixing a careful and a careless agent in one cell would say nothing."""
    cells: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
    for r in records:
        cells[(r.agent, r.target_primitive or BASE if r.variant_id else BASE, r.site or "?")].append(r)
    matrix: dict[str, dict[str, dict[str, dict[str, float]]]] = {}
    for (agent, primitive, site), rs in sorted(cells.items()):
        matrix.setdefault(agent, {}).setdefault(primitive, {})[site] = {
            "n": len(rs),
            "mean_score": round(_mean([r.score for r in rs]), 4),
            "success_rate": round(_mean([float(r.success) for r in rs]), 4),
        }
    return matrix


def bootstrap_ci(values: Sequence[float], *, resamples: int = 2000, alpha: float = 0.05,
                 seed: int = 0) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean."""
    if not values:
        return (0.0, 0.0)
    if len(values) == 1:
        return (values[0], values[0])
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    lo = means[int((alpha / 2) * (resamples - 1))]
    hi = means[int((1 - alpha / 2) * (resamples - 1))]
    return (lo, hi)


def variant_drops(records: Sequence[Record], *, resamples: int = 2000, seed: int = 0) -> list[dict[str, Any]]:
    """For every (variant, agent): base score − variant score over (task, seed) pairs, with a 95% CI."""
    base = {(r.task_id, r.seed, r.agent): r for r in records if not r.variant_id}
    pairs: dict[tuple[str, str], list[tuple[Record, Record]]] = defaultdict(list)
    for r in records:
        if r.variant_id and (r.task_id, r.seed, r.agent) in base:
            pairs[(r.variant_id, r.agent)].append((base[(r.task_id, r.seed, r.agent)], r))
    out = []
    for (variant, agent), ps in sorted(pairs.items()):
        drops = [b.score - v.score for b, v in ps]
        lo, hi = bootstrap_ci(drops, resamples=resamples, seed=seed)
        out.append({
            "variant_id": variant, "agent": agent, "target_primitive": ps[0][1].target_primitive,
            "n_pairs": len(ps),
            "base_mean": round(_mean([b.score for b, _ in ps]), 4),
            "variant_mean": round(_mean([v.score for _, v in ps]), 4),
            "drop": round(_mean(drops), 4), "ci95": [round(lo, 4), round(hi, 4)],
            "success_drop": round(_mean([float(b.success) - float(v.success) for b, v in ps]), 4),
        })
    return out


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Probability that k draws without replacement from n trials (c successes) all succeed."""
    if k > n:
        raise ValueError(f"k={k} > n={n}")
    return comb(c, k) / comb(n, k)


def pass_k(records: Sequence[Record]) -> list[dict[str, Any]]:
    """pass^k for k = 1..n over repeated seeds of each (task, variant, agent)."""
    groups: dict[tuple[str, str, str], list[Record]] = defaultdict(list)
    for r in records:
        groups[(r.task_id, r.variant_id or BASE, r.agent)].append(r)
    out = []
    for (task, variant, agent), rs in sorted(groups.items()):
        n, c = len(rs), sum(r.success for r in rs)
        out.append({"task_id": task, "variant_id": variant, "agent": agent, "n": n, "successes": c,
                    "pass_k": {str(k): round(pass_hat_k(n, c, k), 4) for k in range(1, n + 1)}})
    return out


def failure_attribution(records: Sequence[Record]) -> dict[str, dict[str, dict[str, int]]]:
    """Per agent and target primitive: variant failures whose base (same task, seed, agent) passed are
    attributed; those whose base failed too are confounded; those without a base episode are unpaired."""
    base = {(r.task_id, r.seed, r.agent): r for r in records if not r.variant_id}
    out: dict[str, dict[str, dict[str, int]]] = {}
    for r in records:
        if not r.variant_id:
            continue
        row = out.setdefault(r.agent, {}).setdefault(r.target_primitive or "?",
                             {"episodes": 0, "failures": 0, "attributed": 0, "confounded": 0, "unpaired": 0})
        row["episodes"] += 1
        if r.success:
            continue
        row["failures"] += 1
        paired = base.get((r.task_id, r.seed, r.agent))
        if paired is None:
            row["unpaired"] += 1
        elif paired.success:
            row["attributed"] += 1
        else:
            row["confounded"] += 1
    return {agent: dict(sorted(rows.items())) for agent, rows in sorted(out.items())}


def profile_robustness(results: Iterable[Any], *, resamples: int = 2000, seed: int = 0) -> list[dict[str, Any]]:
    """Per agent and chaos profile: the score under the profile next to the clean base on the same
    (task, seed), paired. `robustness` = mean profile score / mean base score (1.0: unaffected;
    None when the base scored 0), `drop` = base − profile with a bootstrap 95% CI, `firings` = fault
    firings over the profile's episodes."""
    graded = [r for r in results if not is_infra_error(r) and not getattr(r, "script", None)]
    base = {(r.task_id, int(r.seed), r.agent): r for r in graded
            if not r.variant_id and not getattr(r, "profile", None)}
    pairs: dict[tuple[str, str], list[tuple[Any, Any]]] = defaultdict(list)
    for r in graded:
        profile = getattr(r, "profile", None)
        key = (r.task_id, int(r.seed), r.agent)
        if profile and not r.variant_id and key in base:
            pairs[(r.agent, profile)].append((base[key], r))
    out = []
    for (agent, profile), ps in sorted(pairs.items()):
        base_mean = _mean([float(b.score) for b, _ in ps])
        profile_mean = _mean([float(p.score) for _, p in ps])
        low, high = bootstrap_ci([float(b.score) - float(p.score) for b, p in ps], resamples=resamples, seed=seed)
        out.append({
            "agent": agent, "profile": profile, "n": len(ps),
            "base_score": round(base_mean, 4), "profile_score": round(profile_mean, 4),
            "base_success_rate": round(_mean([1.0 if b.success else 0.0 for b, _ in ps]), 4),
            "profile_success_rate": round(_mean([1.0 if p.success else 0.0 for _, p in ps]), 4),
            "robustness": round(profile_mean / base_mean, 4) if base_mean > 0 else None,
            "drop": round(base_mean - profile_mean, 4), "drop_ci95": [round(low, 4), round(high, 4)],
            "firings": sum(int(getattr(p, "firings", 0)) for _, p in ps),
        })
    return out


def wilson_ci(successes: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """Wilson score interval of a success rate (95% by default): sound at 0/n and n/n, unlike the normal one."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * ((p * (1 - p) / n + z * z / (4 * n * n)) ** 0.5) / (1 + z * z / n)
    return (max(0.0, centre - half) if successes else 0.0, min(1.0, centre + half) if successes < n else 1.0)


def _card_row(rs: Sequence[Record], base_scores: Sequence[float], *, seed: int) -> dict[str, Any]:
    successes = sum(r.success for r in rs)
    scores = [r.score for r in rs]
    s_lo, s_hi = wilson_ci(successes, len(rs))
    m_lo, m_hi = bootstrap_ci(scores, seed=seed)
    base = _mean(base_scores)
    return {"n": len(rs), "success_rate": round(successes / len(rs), 4),
            "success_ci95": [round(s_lo, 4), round(s_hi, 4)],
            "mean_score": round(_mean(scores), 4), "score_ci95": [round(m_lo, 4), round(m_hi, 4)],
            "base_score": round(base, 4) if base_scores else None,
            "robustness": round(_mean(scores) / base, 4) if base_scores and base > 0 else None}


def score_card(records: Sequence[Record], *, seed: int = 0) -> dict[str, dict[str, Any]]:
    """Per agent: per target primitive and overall (every variant episode), the success rate with its Wilson
    95% interval, the mean score with its bootstrap 95% interval, and robustness = the variants' mean score /
    the mean score of the same tasks' base episodes (same agent, same seeds; None without bases); plus the
    base episodes' own row."""
    card: dict[str, dict[str, Any]] = {}
    for agent in sorted({r.agent for r in records}):
        mine = [r for r in records if r.agent == agent]
        bases = [r for r in mine if not r.variant_id]
        variants = [r for r in mine if r.variant_id]

        def base_of(rs: Sequence[Record], bases: Sequence[Record] = bases) -> list[float]:
            keys = {(r.task_id, r.seed) for r in rs}
            return [b.score for b in bases if (b.task_id, b.seed) in keys]

        rows: dict[str, Any] = {}
        by_primitive: dict[str, list[Record]] = defaultdict(list)
        for r in variants:
            by_primitive[r.target_primitive or "?"].append(r)
        for primitive, rs in sorted(by_primitive.items()):
            rows[primitive] = _card_row(rs, base_of(rs), seed=seed)
        if variants:
            rows["overall"] = _card_row(variants, base_of(variants), seed=seed)
        if bases:
            rows[BASE] = _card_row(bases, [], seed=seed)
        card[agent] = rows
    return card


def run_aggregates(results: Iterable[Any], sites: dict[str, str] | None = None, *, seed: int = 0) -> dict[str, Any]:
    """Everything above, as written into run.json."""
    results = list(results)
    records = records_from(results, sites)
    return {
        "episodes": len(records),
        "infra_errors": sum(1 for r in results if is_infra_error(r)),
        "score_matrix": score_matrix(records),
        "variant_drops": variant_drops(records, seed=seed),
        "pass_k": pass_k(records),
        "failure_attribution": failure_attribution(records),
        "score_card": score_card(records, seed=seed),
        "profile_robustness": profile_robustness(results, seed=seed),
    }

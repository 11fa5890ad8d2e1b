"""Match expected entities to changed ones: maximum-weight bipartite matching with partial credit.

Every expectation of one (section, collection) pool is scored against every changed
entity of that pool: an entity is eligible when the expectation's `where` holds, and
its credit is the fraction of `properties` that hold (1.0: a full match). The
assignment maximising the total weighted credit wins (ties: more full matches, then
the earlier entity), so the order of the YAML or of the state never decides.
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grader.predicates import MISSING, Context, evaluate
from scenarios.schema import EntityExpectation

_TIE = 1e-6  # prefers full matches among equal credit


@dataclass(frozen=True)
class Candidate:
    id: str
    entity: dict[str, Any]  # after (create/update) or the removed entity (delete)
    before: dict[str, Any] | None = None


@dataclass
class PairScore:
    eligible: bool
    credit: float
    failing: list[str]


@dataclass
class Assignment:
    expectation: int
    candidate: int | None
    score: PairScore | None


def score_pair(exp: EntityExpectation, cand: Candidate, ctx: Context) -> PairScore:
    local = Context(bindings=ctx.bindings, initial=ctx.initial, final=ctx.final, entity=cand.entity,
                    before=cand.before)
    if exp.where:
        for name, pred in exp.where.items():
            if not evaluate(pred, cand.entity.get(name, MISSING), local):
                return PairScore(False, 0.0, [name])
    if not exp.properties:
        return PairScore(True, 1.0, [])
    failing = [n for n, p in exp.properties.items() if not evaluate(p, cand.entity.get(n, MISSING), local)]
    return PairScore(True, 1.0 - len(failing) / len(exp.properties), failing)


def _hungarian_max(weights: list[list[float]]) -> list[int]:
    """Rows (≤ columns) to distinct columns maximising the total weight; returns the column per row."""
    n, m = len(weights), len(weights[0])
    inf = float("inf")
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)  # owner[j]: row (1-based) assigned to column j
    for row in range(1, n + 1):
        owner[0] = row
        col0 = 0
        minv, used = [inf] * (m + 1), [False] * (m + 1)
        while True:
            used[col0] = True
            r, delta, col1 = owner[col0], inf, 0
            for col in range(1, m + 1):
                if not used[col]:
                    cur = -weights[r - 1][col - 1] - u[r] - v[col]
                    if cur < minv[col] - 1e-12:
                        minv[col], way[col] = cur, col0
                    if minv[col] < delta - 1e-12:
                        delta, col1 = minv[col], col
            for col in range(m + 1):
                if used[col]:
                    u[owner[col]] += delta
                    v[col] -= delta
                else:
                    minv[col] -= delta
            col0 = col1
            if owner[col0] == 0:
                break
        while col0:
            prev = way[col0]
            owner[col0] = owner[prev]
            col0 = prev
    result = [-1] * n
    for col in range(1, m + 1):
        if owner[col]:
            result[owner[col] - 1] = col - 1
    return result


def match_pool(expectations: Sequence[EntityExpectation], candidates: Sequence[Candidate],
               ctx: Context) -> list[Assignment]:
    """One Assignment per expectation; `candidate` is None when no eligible entity is left for it."""
    if not candidates:
        return [Assignment(i, None, None) for i in range(len(expectations))]
    scores = [[score_pair(exp, cand, ctx) for cand in candidates] for exp in expectations]
    order_step = _TIE * 1e-4 / len(candidates)

    def value(i: int, j: int) -> float:
        s = scores[i][j]
        if not s.eligible:
            return 0.0
        w = expectations[i].weight
        # tiny bonus for eligibility, so an eligible 0-credit entity is still reported as the closest
        return w * s.credit + (_TIE if s.credit >= 1.0 else 0.0) + _TIE * 1e-3 - j * order_step

    if len(expectations) == 1:
        best = max(range(len(candidates)), key=lambda j: value(0, j))
        chosen = [best]
    else:
        matrix = [[value(i, j) for j in range(len(candidates))] for i in range(len(expectations))]
        if len(expectations) <= len(candidates):
            chosen = _hungarian_max(matrix)
        else:
            transposed = [list(col) for col in zip(*matrix, strict=True)]
            per_col = _hungarian_max(transposed)
            chosen = [-1] * len(expectations)
            for j, i in enumerate(per_col):
                if i >= 0:
                    chosen[i] = j
    out = []
    for i, j in enumerate(chosen):
        if j < 0 or not scores[i][j].eligible:
            out.append(Assignment(i, None, None))
        else:
            out.append(Assignment(i, j, scores[i][j]))
    return out

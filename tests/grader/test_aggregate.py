"""Run-level statistics."""

import pytest

from grader.aggregate import (
    Record,
    bootstrap_ci,
    failure_attribution,
    pass_hat_k,
    pass_k,
    run_aggregates,
    score_matrix,
    variant_drops,
)


def rec(task: str, variant: str | None, seed: int, success: bool, score: float, primitive: str | None = None,
        agent: str = "a", site: str = "shop") -> Record:
    return Record(task, variant, primitive, site, seed, agent, success, score)


RECORDS = [
    *(rec("t1", None, s, True, 1.0) for s in range(4)),
    rec("t1", "slow", 0, True, 1.0, "patience"), rec("t1", "slow", 1, False, 0.0, "patience"),
    rec("t1", "slow", 2, False, 0.2, "patience"), rec("t1", "slow", 3, True, 0.9, "patience"),
    rec("t2", None, 0, False, 0.0), rec("t2", "overlay", 0, False, 0.0, "grounding"),
    rec("t2", "overlay", 1, False, 0.0, "grounding"),
]


def test_score_matrix_rows_are_primitives_and_columns_sites() -> None:
    matrix = score_matrix(RECORDS)["a"]
    assert matrix["patience"]["shop"] == {"n": 4, "mean_score": 0.525, "success_rate": 0.5}
    assert matrix["base"]["shop"]["n"] == 5
    assert set(matrix) == {"base", "patience", "grounding"}


def test_variant_drop_with_a_seeded_bootstrap_ci() -> None:
    drops = {d["variant_id"]: d for d in variant_drops(RECORDS)}
    slow = drops["slow"]
    assert (slow["n_pairs"], slow["base_mean"], slow["variant_mean"], slow["drop"]) == (4, 1.0, 0.525, 0.475)
    lo, hi = slow["ci95"]
    assert 0.0 <= lo <= slow["drop"] <= hi <= 1.0
    assert variant_drops(RECORDS) == variant_drops(RECORDS)  # seeded: same numbers every time
    assert drops["overlay"]["n_pairs"] == 1  # seed 1 has no base episode


def test_bootstrap_ci_edge_cases() -> None:
    assert bootstrap_ci([]) == (0.0, 0.0)
    assert bootstrap_ci([0.3]) == (0.3, 0.3)
    assert bootstrap_ci([0.5] * 10) == (0.5, 0.5)


def test_pass_hat_k() -> None:
    assert pass_hat_k(4, 4, 4) == 1.0
    assert pass_hat_k(4, 2, 1) == 0.5
    assert pass_hat_k(4, 2, 2) == pytest.approx(1 / 6)
    assert pass_hat_k(4, 3, 4) == 0.0
    with pytest.raises(ValueError):
        pass_hat_k(2, 1, 3)
    rows = {(r["task_id"], r["variant_id"]): r for r in pass_k(RECORDS)}
    assert rows[("t1", "slow")]["pass_k"] == {"1": 0.5, "2": 0.1667, "3": 0.0, "4": 0.0}
    assert rows[("t1", "base")]["pass_k"]["4"] == 1.0


def test_failures_are_attributed_only_when_the_base_passed() -> None:
    table = failure_attribution(RECORDS)["a"]
    assert table["patience"] == {"episodes": 4, "failures": 2, "attributed": 2, "confounded": 0, "unpaired": 0}
    assert table["grounding"] == {"episodes": 2, "failures": 2, "attributed": 0, "confounded": 1, "unpaired": 1}


def test_run_aggregates_skips_harness_errors() -> None:
    class Result:
        def __init__(self, error: str | None) -> None:
            self.task_id, self.variant_id, self.target_primitive, self.seed = "t1", None, None, 1
            self.agent, self.success, self.score, self.error, self.site = "a", True, 1.0, error, None

    out = run_aggregates([Result(None), Result("boom")], {"t1": "shop"})
    assert out["episodes"] == 1 and out["score_matrix"]["a"]["base"]["shop"]["n"] == 1


def test_agents_are_never_mixed_in_one_cell() -> None:
    records = [rec("t1", "slow", 0, True, 1.0, "patience", agent="careful"),
               rec("t1", "slow", 0, False, 0.0, "patience", agent="careless")]
    matrix = score_matrix(records)
    assert matrix["careful"]["patience"]["shop"]["success_rate"] == 1.0
    assert matrix["careless"]["patience"]["shop"]["success_rate"] == 0.0
    assert set(failure_attribution(records)) == {"careful", "careless"}

"""The score card: success with a Wilson interval, score with a bootstrap interval, robustness against the same
tasks' bases, per agent and target primitive."""

from grader.aggregate import Record, score_card, wilson_ci


def rec(task: str, variant: str | None, primitive: str | None, seed: int, success: bool, score: float,
        agent: str = "a") -> Record:
    return Record(task, variant, primitive, "shop", seed, agent, success, score)


def test_wilson_interval_is_sound_at_the_edges_and_narrows_with_n() -> None:
    assert wilson_ci(0, 0) == (0.0, 0.0)
    lo, hi = wilson_ci(10, 10)
    assert hi == 1.0 and 0.65 < lo < 0.75
    lo0, hi0 = wilson_ci(0, 10)
    assert lo0 == 0.0 and 0.25 < hi0 < 0.35
    assert (wilson_ci(50, 100)[1] - wilson_ci(50, 100)[0]) < (wilson_ci(5, 10)[1] - wilson_ci(5, 10)[0])


def test_robustness_divides_by_the_bases_of_the_same_tasks_and_seeds() -> None:
    records = [
        rec("t1", None, None, 1, True, 1.0), rec("t1", None, None, 2, True, 0.8),
        rec("t2", None, None, 1, False, 0.2),  # no patience variant on t2: not in patience's base
        rec("t1", "v1", "patience", 1, True, 0.5), rec("t1", "v1", "patience", 2, False, 0.4),
        rec("t2", "v2", "grounding", 1, False, 0.1),
        rec("t1", "v1", "patience", 1, True, 1.0, agent="b"),
    ]
    card = score_card(records)
    patience = card["a"]["patience"]
    assert patience["n"] == 2 and patience["success_rate"] == 0.5
    assert patience["base_score"] == 0.9 and patience["robustness"] == round(0.45 / 0.9, 4)
    assert card["a"]["grounding"]["robustness"] == 0.5
    overall = card["a"]["overall"]
    assert overall["n"] == 3 and overall["base_score"] == round((1.0 + 0.8 + 0.2) / 3, 4)
    assert card["a"]["base"]["n"] == 3 and card["a"]["base"]["robustness"] is None
    assert card["b"]["patience"]["robustness"] is None  # agent b ran no base: nothing to divide by
    lo, hi = patience["score_ci95"]
    assert lo <= patience["mean_score"] <= hi

"""A travel question end to end (sites server, proxy, headless Chromium): the reference agent reads the stay's
total off the hotel page and passes; the same world graded with a wrong total, or the list's nightly rate,
fails."""

import json
from pathlib import Path

import pytest

import webchaos
from harness.agents import ReferenceAgent
from harness.run.runner import run_matrix
from sites.travel.pages import money

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TASK = "travel_answer_stay_total"


async def test_reference_agent_answers_the_stay_total(api_stack: webchaos.Stack, tmp_path: Path) -> None:
    summary, _ = await run_matrix([api_stack.spec(TASK, None, 1)], [ReferenceAgent(recovery=True)],
                                  runs_dir=tmp_path, stack=api_stack.services, concurrency=1, time_budget_s=90,
                                  record_replay=False)
    (result,) = summary.episodes
    assert result.outcome.status == "done" and result.success, result.verdict
    assert result.outcome.answer is not None and result.outcome.answer.value is not None
    assert result.verdict is not None and result.verdict.answer is not None and result.verdict.answer.passed


async def test_a_wrong_total_fails_and_the_right_one_passes(api_stack: webchaos.Stack) -> None:
    verdicts = {}
    for label in ("right", "nightly", "wrong"):
        async with api_stack.episode(TASK, seed=1, cdp=False) as ep:
            asked = json.loads((ep.out_dir / "episode.json").read_text())["bindings"]["stay_total"]
            said = {"right": money(asked["total_cents"]), "nightly": money(asked["nightly_cents"]),
                    "wrong": money(asked["total_cents"] + 100)}[label]
            verdicts[label] = await ep.grade(answer=f"The total is {said}.")
    assert verdicts["right"].success
    assert not verdicts["nightly"].success and not verdicts["wrong"].success
    for label in ("nightly", "wrong"):
        check = verdicts[label].verdict.answer  # type: ignore[union-attr]
        assert check is not None and not check.passed and check.predicate == "number"

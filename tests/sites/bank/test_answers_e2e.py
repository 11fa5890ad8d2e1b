"""A bank question task end to end: real sites server, real mitmdump, real headless Chromium. The
reference agent reads the answer off the page and passes; the same episode graded with a wrong answer
fails on the answer alone."""

import json
from pathlib import Path

import pytest

from grader.verdict import Verdict
from harness.agents import ReferenceAgent
from harness.episodes.manager import grade_episode
from harness.services.processes import Services
from scenarios.answers import Answer
from tests.harness.episodes import CATALOG, episode_dir, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TASK = "bank_answer_category_spending"


async def test_the_reference_agent_answers_the_spending_question_and_a_wrong_answer_fails(
        stack: Services, tmp_path: Path) -> None:
    (result,) = await run(stack, tmp_path, TASK, None, [ReferenceAgent(recovery=True)])
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict
    folder = episode_dir(tmp_path, result)
    bindings = json.loads((folder / "episode.json").read_bytes())["bindings"]
    asked = bindings["answers"]["spending"]
    given = result.outcome.answer
    assert given is not None and not given.infeasible and given.value == asked["total_text"].lstrip("$")
    assert result.verdict.answer is not None and result.verdict.answer.passed

    def graded(answer: Answer | None) -> Verdict:
        return grade_episode(CATALOG.tasks[TASK], bindings, (folder / "state_initial.json").read_bytes(),
                             (folder / "state_final.json").read_bytes(), answer=answer)

    one_cent_off = f"${(asked['total_cents'] + 1) // 100:,}.{(asked['total_cents'] + 1) % 100:02d}"
    for wrong in (Answer(value=one_cent_off), Answer(infeasible=True), None):
        verdict = graded(wrong)
        assert not verdict.success and verdict.answer is not None and not verdict.answer.passed, wrong
        assert verdict.changes == {} or all(not any(c.values()) for c in verdict.changes.values())
    right = graded(Answer(value=f"I spent {asked['total_text']} on {asked['category']}"))
    assert right.success and right.score == 1.0, right.failures

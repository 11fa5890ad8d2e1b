"""End to end: the reference agent answers a learn answer task through the real stack (sites server,
mitmdump, headless Chromium), and the same episode graded with a wrong answer fails."""

import json
from pathlib import Path

import pytest

from grader.verdict import grade
from harness.agents import ReferenceAgent
from harness.services.processes import Services
from scenarios.answers import Answer
from tests.harness.episodes import CATALOG, episode_dir, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]


async def test_reference_agent_lists_the_students_awaiting_a_grade(stack: Services, tmp_path: Path) -> None:
    (result,) = await run(stack, tmp_path, "learn_answer_to_grade", None, [ReferenceAgent(recovery=True)])
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict
    folder = episode_dir(tmp_path, result)
    bindings = json.loads((folder / "episode.json").read_text())["bindings"]
    names = bindings["to_grade"]["names"]
    assert result.outcome.answer is not None and sorted(result.outcome.answer.value or []) == sorted(names)
    initial = json.loads((folder / "state_initial.json").read_text())
    final = json.loads((folder / "state_final.json").read_text())
    task = CATALOG.tasks["learn_answer_to_grade"]
    assert grade(task, bindings, initial, final, answer=Answer(value=", ".join(names))).success
    short = grade(task, bindings, initial, final, answer=Answer(value=names[1:]))
    assert not short.success and short.answer is not None and "missing" in short.answer.detail
    gave_up = grade(task, bindings, initial, final, answer=Answer(infeasible=True))
    assert not gave_up.success

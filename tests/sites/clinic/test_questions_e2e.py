"""End to end: a clinic question task through the real stack (sites server, mitmdump, headless Chromium) with
the reference agent, which reads the answer off the visit's bill; the same episode graded with the bill's
total instead of the patient's share fails."""

import json
from pathlib import Path

import pytest

from harness.agents import ReferenceAgent
from harness.episodes.manager import grade_episode
from harness.services.processes import Services
from scenarios.answers import Answer
from sites.clinic.billing import dollars
from tests.harness.episodes import CATALOG, episode_dir, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="session")]

TASK = "clinic_last_visit_cost"


async def test_the_reference_agent_says_the_copay_and_the_bill_total_fails(stack: Services, tmp_path: Path) -> None:
    (result,) = await run(stack, tmp_path, TASK, None, [ReferenceAgent(recovery=True)], seed=1)
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict.failures
    folder = episode_dir(tmp_path, result)
    bindings = json.loads((folder / "episode.json").read_bytes())["bindings"]
    copay = bindings["copay"]
    answer = result.verdict.answer
    assert answer is not None and answer.passed and answer.given == repr(dollars(copay["patient_cents"]))

    initial, final = (folder / "state_initial.json").read_bytes(), (folder / "state_final.json").read_bytes()
    task = CATALOG.tasks[TASK]
    billed = grade_episode(task, bindings, initial, final, answer=Answer(value=dollars(copay["price_cents"])))
    assert not billed.success and billed.answer is not None and not billed.answer.passed
    gave_up = grade_episode(task, bindings, initial, final, answer=Answer(infeasible=True))
    assert not gave_up.success
    again = grade_episode(task, bindings, initial, final,
                          answer=Answer(value=f"I paid {dollars(copay['patient_cents'])}"))
    assert again.success

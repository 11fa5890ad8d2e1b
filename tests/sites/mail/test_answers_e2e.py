"""A mail answer task end to end on a real stack (sites server, proxy, headless Chromium): the reference agent
reads the amount due off the invoice and passes; the same task graded with a wrong amount fails."""

from pathlib import Path

import pytest

import webchaos
from harness.agents import ReferenceAgent
from harness.run.runner import run_matrix

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TASK = "mail_invoice_amount"


async def test_the_reference_agent_reads_the_amount_due_and_passes(api_stack: webchaos.Stack, tmp_path: Path) -> None:
    spec = api_stack.spec(TASK, None, 1)
    summary, _ = await run_matrix([spec], [ReferenceAgent()], runs_dir=tmp_path, stack=api_stack.services,
                                  concurrency=1, time_budget_s=90, record_replay=False)
    (result,) = summary.episodes
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict
    check = result.verdict.answer if result.verdict else None
    assert check is not None and check.passed and check.predicate == "number"
    assert isinstance(result.outcome.answer, webchaos.Answer) and "$" in str(result.outcome.answer.value)


async def test_a_wrong_amount_fails_and_the_right_one_passes(api_stack: webchaos.Stack) -> None:
    async with api_stack.episode(task=TASK, seed=1, cdp=False) as ep:
        wrong = await ep.grade(answer="$0.01")
    assert not wrong.success
    check = wrong.verdict.answer if wrong.verdict else None
    assert check is not None and not check.passed and check.detail == f"0.01 is not {check.expected}"
    async with api_stack.episode(task=TASK, seed=1, cdp=False) as ep:
        right = await ep.grade(answer=f"The amount due is ${check.expected}.")
    assert right.success, right.verdict

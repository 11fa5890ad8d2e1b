"""The answer channel end to end on a real stack: the Python API's `answer()` / `grade(answer=...)`, a `cmd:`
agent's WEBCHAOS_ANSWER_FILE, result.json keeping the answer, and `webchaos grade` re-grading with it."""

import asyncio
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

import webchaos
from harness.agents import CommandAgent
from harness.config import PROJECT_ROOT
from harness.run.runner import run_matrix

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]


async def test_giving_up_on_a_feasible_task_fails_naming_it_and_the_answer_is_kept(
        api_stack: webchaos.Stack, tmp_path: Path) -> None:
    async with api_stack.episode(task="shop_add_to_cart", seed=1, cdp=False) as ep:
        assert ep.given_answer is None
        ep.answer("it is not sold here")
        ep.answer(infeasible=True)  # the last answer given counts
        result = await ep.grade()
    assert not result.success
    assert result.outcome.answer == webchaos.Answer(infeasible=True)
    check = result.verdict.answer if result.verdict else None
    assert check is not None and not check.passed and check.given == "infeasible"
    assert "it can be done" in result.verdict.failures[-1]  # type: ignore[union-attr]
    stored = json.loads((ep.out_dir / "result.json").read_text())
    assert stored["outcome"]["answer"] == {"value": None, "infeasible": True}
    # Offline, the stored answer is what is graded again; --answer grades another one instead.
    again = await asyncio.to_thread(subprocess.run, [*WEBCHAOS, "grade", str(ep.out_dir), "--check"],
                                    capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["answer"]["given"] == "infeasible"
    other = await asyncio.to_thread(subprocess.run, [*WEBCHAOS, "grade", str(ep.out_dir), "--answer", "42", "--check"],
                                    capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    assert other.returncode == 1 and json.loads(other.stdout)["answer"] is None  # no answer asked, none refused
    assert "differs from result.json" in other.stderr


async def test_a_command_agent_answers_through_its_answer_file(api_stack: webchaos.Stack, tmp_path: Path) -> None:
    write = ("import json, os; open(os.environ['WEBCHAOS_ANSWER_FILE'], 'w').write("
             "json.dumps({'answer': 'no such product', 'infeasible': True}))")
    broken = "import os; open(os.environ['WEBCHAOS_ANSWER_FILE'], 'w').write('{\"answr\": 1}')"
    agents = [CommandAgent(f"{sys.executable} -c {shlex.quote(write)}", name="writes"),
              CommandAgent(f"{sys.executable} -c {shlex.quote(broken)}", name="broken"),
              CommandAgent(f"{sys.executable} -c pass", name="silent")]
    spec = api_stack.spec("shop_add_to_cart", None, 2)
    summary, run_dir = await run_matrix([spec], agents, runs_dir=tmp_path, stack=api_stack.services,
                                        concurrency=3, time_budget_s=60, record_replay=False)
    by_agent = {r.agent: r for r in summary.episodes}
    assert by_agent["writes"].outcome.answer == webchaos.Answer(value="no such product", infeasible=True)
    assert by_agent["writes"].verdict.answer.given == "infeasible ('no such product')"  # type: ignore[union-attr]
    assert by_agent["silent"].outcome.answer is None and by_agent["silent"].verdict.answer is None  # type: ignore[union-attr]
    broken_result = by_agent["broken"]
    assert broken_result.outcome.answer is None
    error = broken_result.outcome.error or ""
    assert "answer file" in error and "unknown key(s) answr" in error
    report = (run_dir / "report.html").read_text()
    assert "infeasible (&#39;no such product&#39;)" in report

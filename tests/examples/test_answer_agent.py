"""The browserless answering example (examples/http_answer_agent.py) run by webchaos as a user would: it passes
the shop's cheapest-seller question on seeds 1-3, and answering the dearest offer's seller instead fails with
a verdict that names both answers. Then the same agent's answer through the pytest plugin's fixture."""

import sys
from pathlib import Path

import pytest

from harness.agents import agents_from_specs
from harness.episodes.manager import EpisodeSpec
from harness.run.runner import run_matrix
from harness.services.processes import Services
from tests.examples.conftest import ROOT
from tests.harness.episodes import CATALOG

pytest_plugins = ["pytester"]
pytestmark = [pytest.mark.e2e]

TASK = "shop_cheapest_seller"
AGENT = f"{sys.executable} {ROOT / 'examples' / 'http_answer_agent.py'}"


@pytest.mark.asyncio(loop_scope="module")
async def test_the_answering_example_passes_on_three_seeds_and_a_wrong_answer_is_named(
        stack: Services, tmp_path: Path) -> None:
    specs = [EpisodeSpec(CATALOG.tasks[TASK], None, seed) for seed in (1, 2, 3)]
    agents = agents_from_specs([f"right=cmd:{AGENT}", f"wrong=cmd:{AGENT} --dearest"])
    summary, _ = await run_matrix(specs, agents, runs_dir=tmp_path, stack=stack, concurrency=3, time_budget_s=90)
    right = sorted((r for r in summary.episodes if r.agent == "right"), key=lambda r: r.seed)
    wrong = sorted((r for r in summary.episodes if r.agent == "wrong"), key=lambda r: r.seed)
    assert [r.success for r in right] == [True, True, True], [r.verdict.failures for r in right if r.verdict]
    for result in wrong:
        assert not result.success and result.verdict is not None and result.verdict.answer is not None
        check = result.verdict.answer
        assert check.given != check.expected and check.given.strip("'") in result.verdict.failures[-1]
        assert check.expected in result.verdict.failures[-1]
        assert result.outcome.answer is not None and not result.outcome.answer.infeasible
    assert all(r.verdict.changes == {} for r in summary.episodes if r.verdict)  # nothing written


SUITE = f'''
import json, os, subprocess, sys
import pytest

@pytest.mark.webchaos(task="{TASK}", variants=["base"], seeds=[1, 2], cdp=False)
def test_agent_answers(webchaos_episode, tmp_path):
    ep = webchaos_episode
    answer_file = tmp_path / "answer.txt"
    env = {{**os.environ, "WEBCHAOS_PROXY": ep.proxy_url, "WEBCHAOS_START_URL": ep.start_url,
            "WEBCHAOS_INSTRUCTION": ep.instruction, "WEBCHAOS_ANSWER_FILE": str(answer_file)}}
    subprocess.run([sys.executable, {str(ROOT / "examples" / "http_answer_agent.py")!r}], env=env, check=True,
                   timeout=60)
    result = ep.grade_sync(answer=json.loads(answer_file.read_text())["answer"])
    assert result.success, result.verdict.failures
'''


def test_the_pytest_plugins_episode_takes_the_answer(pytester: pytest.Pytester, tmp_path: Path) -> None:
    pytester.makepyfile(test_answers=SUITE)
    result = pytester.runpytest_subprocess("-v", "-p", "no:cacheprovider", f"--webchaos-run-dir={tmp_path}")
    result.assert_outcomes(passed=2)

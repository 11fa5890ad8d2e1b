"""Usage end to end on a real stack: `cmd:` agents (the browserless answering example) that write usage.json,
write a malformed one or none at all, seen in result.json, run.json and report.html; and the Python API's
`ep.report_usage()` adding up into result.json."""

import json
import shlex
import sys
from pathlib import Path

import pytest

import webchaos
from harness.agents import agents_from_specs
from harness.config import PROJECT_ROOT
from harness.episodes.manager import EpisodeSpec
from harness.run.runner import run_matrix
from harness.services.processes import Services
from tests.harness.episodes import CATALOG

pytestmark = [pytest.mark.e2e]

TASK = "shop_cheapest_seller"
AGENT = f"{shlex.quote(sys.executable)} {PROJECT_ROOT / 'examples' / 'http_answer_agent.py'}"
PRICED = {"input_tokens": 1200, "output_tokens": 80, "cost_usd": 0.0123, "model": "test-model"}


def _then_write(text: str) -> str:
    """The example agent, then a usage.json with `text` (as an agent that called a model would leave)."""
    code = f"import os; open(os.path.join(os.environ['WEBCHAOS_OUT_DIR'], 'usage.json'), 'w').write({text!r})"
    return f"{AGENT} && {shlex.quote(sys.executable)} -c {shlex.quote(code)}"


@pytest.mark.asyncio(loop_scope="session")
async def test_command_agents_usage_reaches_result_run_and_report(stack: Services, tmp_path: Path) -> None:
    specs = [EpisodeSpec(CATALOG.tasks[TASK], None, seed) for seed in (1, 2)]
    agents = agents_from_specs([f"priced=cmd:{_then_write(json.dumps(PRICED))}", f"zero=cmd:{AGENT} --usage",
                                f"silent=cmd:{AGENT}", "broken=cmd:" + _then_write('{"tokens": 5}')])
    summary, run_dir = await run_matrix(specs, agents, runs_dir=tmp_path, stack=stack, concurrency=4,
                                        time_budget_s=90, record_replay=False)
    assert all(r.success for r in summary.episodes), [(r.agent, r.verdict and r.verdict.failures, r.outcome.error)
                                                      for r in summary.episodes if not r.success]
    by_agent = {agent: [r for r in summary.episodes if r.agent == agent] for agent in ("priced", "zero", "silent",
                                                                                       "broken")}
    for result in by_agent["priced"]:
        stored = json.loads((run_dir / "episodes" / result.episode_id / "result.json").read_text())
        assert stored["outcome"]["usage"] == PRICED
    for result in by_agent["silent"]:
        stored = json.loads((run_dir / "episodes" / result.episode_id / "result.json").read_text())
        assert stored["outcome"]["usage"] is None and stored["outcome"]["error"] is None
    for result in by_agent["broken"]:  # graded all the same; the refusal names the file and the key
        assert result.outcome.usage is None and result.outcome.error is not None
        assert result.outcome.error.startswith("usage file: ") and "usage.json: unknown key(s) 'tokens'" in (
            result.outcome.error)

    usage = json.loads((run_dir / "run.json").read_text())["aggregates"]["usage"]
    priced = usage["priced"]
    assert (priced["episodes"], priced["reported"]) == (2, 2)
    assert priced["input_tokens"] == {"total": 2400, "episodes": 2, "mean": 1200}
    assert priced["output_tokens"] == {"total": 160, "episodes": 2, "mean": 80}
    assert priced["cost_usd"]["total"] == pytest.approx(0.0246) and priced["cost_per_success"] == pytest.approx(0.0123)
    assert priced["models"] == ["test-model"]
    zero = usage["zero"]  # reported nothing spent: zeros, not "not reported"
    assert zero["input_tokens"]["total"] == 0 and zero["cost_usd"]["total"] == 0 and zero["cost_per_success"] == 0
    for absent in (usage["silent"], usage["broken"]):
        assert absent["reported"] == 0 and absent["episodes"] == 2
        assert absent["input_tokens"] is absent["cost_usd"] is absent["cost_per_success"] is None

    html = (run_dir / "report.html").read_text()
    cards = {agent: html[html.index(f">{agent}</div>"):] for agent in by_agent}
    cards = {agent: card[:card.index("</dl>")] for agent, card in cards.items()}
    assert "cost per success</dt><dd>$0.0123" in cards["priced"]
    assert "tokens in / out per episode</dt><dd>1,200 / 80" in cards["priced"]
    assert "cost per success</dt><dd>$0.0000" in cards["zero"]
    for agent in ("silent", "broken"):
        assert "usage reported</dt><dd>0/2 episodes" in cards[agent]
        assert "cost per success</dt><dd>not reported" in cards[agent] and "$0" not in cards[agent]


@pytest.mark.asyncio
async def test_the_python_apis_reports_add_up_into_the_result(tmp_path: Path) -> None:
    async with webchaos.Stack(state_dir=tmp_path / "state", run_dir=tmp_path / "run") as stack:
        async with stack.episode(task="shop_add_to_cart", seed=1, cdp=False) as ep:
            assert ep.usage is None
            ep.report_usage(input_tokens=500, output_tokens=40, model="m-1")
            ep.report_usage(input_tokens=700, output_tokens=60, cost_usd=0.002, model="m-1")
            assert ep.usage == webchaos.Usage(input_tokens=1200, output_tokens=100, cost_usd=0.002, model="m-1")
            with pytest.raises(ValueError, match="input_tokens"):
                ep.report_usage(input_tokens=-5)
            result = await ep.grade()
            with pytest.raises(ValueError, match="graded"):
                ep.report_usage(input_tokens=1)
        async with stack.episode(task="shop_add_to_cart", seed=1, cdp=False) as quiet:
            unreported = await quiet.grade()
    assert result.outcome.usage == webchaos.Usage(input_tokens=1200, output_tokens=100, cost_usd=0.002, model="m-1")
    stored = json.loads((ep.out_dir / "result.json").read_text())["outcome"]["usage"]
    assert stored == {"input_tokens": 1200, "output_tokens": 100, "cost_usd": 0.002, "model": "m-1"}
    assert unreported.outcome.usage is None

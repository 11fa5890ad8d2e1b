"""BrowserGym over webchaos: the scripted example run in BrowserGym's own venv (its pinned Playwright driving the
system Chromium on each episode's proxy), and every reward it got equal to `webchaos grade` of the same
episode folder."""

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from tests.examples.conftest import ROOT, needs

pytestmark = pytest.mark.e2e
PYTHON = ROOT / ".venv-browsergym" / "bin" / "python"
SCRIPT = ROOT / "examples" / "browsergym" / "run_scripted.py"


def regrade(episode_dir: str) -> dict[str, Any]:
    out = CliRunner().invoke(app, ["grade", "--check", episode_dir])
    assert out.exit_code == 0, out.output
    return dict(json.loads(out.output))


def test_scripted_browsergym_agent_rewards_equal_webchaos_grade(tmp_path: Path) -> None:
    needs(PYTHON, "run `make frameworks` (it creates .venv-browsergym)")
    env = {**os.environ, "WEBCHAOS": f"{sys.executable} -m harness.cli.main"}
    env.pop("PLAYWRIGHT_BROWSERS_PATH", None)  # the example points BrowserGym's Playwright at the system Chromium
    done = subprocess.run([str(PYTHON), str(SCRIPT), "--run-dir", str(tmp_path)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=1200)
    print(done.stdout, done.stderr[-4000:])
    assert done.returncode == 0
    results = {r["env_id"]: r for r in (json.loads(line) for line in done.stdout.splitlines() if line.startswith("{"))}
    assert list(results) == [
        "browsergym/webchaos.shop_add_to_cart", "browsergym/webchaos.shop_add_to_cart.shop_product_click_swallow",
        "browsergym/webchaos.shop_cheapest_seller", "browsergym/webchaos.shop_cheapest_seller.search_latency",
        "browsergym/webchaos.shop_buy_unsold_product",
        "browsergym/webchaos.shop_buy_unsold_product.search_503_then_success",
    ]
    for env_id, result in results.items():
        assert result["done"] is True, env_id
        verdict = regrade(result["episode_dir"])
        assert result["reward"] == verdict["score"] and result["success"] == verdict["success"], env_id
        assert result["failures"] == verdict["failures"], env_id
        # BrowserGym's own observation over a proxied page: AXTree, DOM, screenshot, set-of-marks
        seen = result["first_observation"]
        assert seen["url"] == "http://shop.test/" and seen["axtree_nodes"] > 50 and seen["dom_documents"] >= 1
        assert seen["marked"] > 50 and seen["screenshot"][2] == 3 and seen["som"][:2] == seen["screenshot"][:2]
        stored = json.loads((Path(result["episode_dir"]) / "result.json").read_text())
        assert stored["agent"] == "browsergym" and stored["outcome"]["status"] == "done"
        if "." in env_id.removeprefix("browsergym/webchaos."):
            assert stored["firings"] >= 1, env_id  # each variant's fault fired on the way
    # What the script does, graded: the bases pass; the swallowed click leaves the cart empty (the agent
    # believes the page, which never confirms); an answer and an infeasibility report reach the grader.
    assert results["browsergym/webchaos.shop_add_to_cart"]["reward"] == 1.0
    assert results["browsergym/webchaos.shop_add_to_cart.shop_product_click_swallow"]["reward"] == 0.0
    cheapest = json.loads((Path(results["browsergym/webchaos.shop_cheapest_seller"]["episode_dir"])
                           / "result.json").read_text())
    assert cheapest["success"] and cheapest["verdict"]["answer"]["passed"] and cheapest["outcome"]["answer"]["value"]
    unsold = json.loads((Path(results["browsergym/webchaos.shop_buy_unsold_product"]["episode_dir"])
                         / "result.json").read_text())
    assert unsold["success"] and unsold["outcome"]["answer"] == {"value": None, "infeasible": True}


SUITE_PROBE = """
import json, sys
import gymnasium as gym
sys.path.insert(0, "examples/browsergym")
import webchaos_browsergym as wb
with wb.WebchaosServer(run_dir=sys.argv[1]) as server:
    episodes = wb.register_suite("smoke", server)
    env = gym.make(episodes[-1][0], disable_env_checker=True)  # made, not reset: no episode opened yet
    print(json.dumps({"episodes": episodes, "env": type(env.unwrapped).__name__}))
    env.close()
"""


def test_a_suite_registers_its_episodes_in_order(tmp_path: Path) -> None:
    from scenarios.suites import load_suite

    needs(PYTHON, "run `make frameworks` (it creates .venv-browsergym)")
    env = {**os.environ, "WEBCHAOS": f"{sys.executable} -m harness.cli.main"}
    done = subprocess.run([str(PYTHON), "-c", SUITE_PROBE, str(tmp_path)], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-4000:]
    probe = json.loads(done.stdout.splitlines()[-1])
    suite = load_suite("smoke")
    expected = [[f"browsergym/webchaos.{task}" + (f".{variant.removesuffix('@' + task)}" if variant else ""), seed]
                for task, variant, seed in suite.episodes()]
    assert probe["episodes"] == expected and probe["env"] == "WebchaosEnv"
    assert not (tmp_path / "episodes").exists()


def test_agentlab_runs_the_scripted_agent_with_its_ray_backend(tmp_path: Path) -> None:
    """AgentLab is not installed by `make frameworks` (7 GB with torch, and its pins need care: docs/agents.md);
    this runs when WEBCHAOS_AGENTLAB_PYTHON names the python of a venv that has it."""
    python = os.environ.get("WEBCHAOS_AGENTLAB_PYTHON")
    if not python:
        pytest.skip("WEBCHAOS_AGENTLAB_PYTHON is not set (a venv with AgentLab: see docs/agents.md#browsergym)")
    env = {**os.environ, "WEBCHAOS": f"{sys.executable} -m harness.cli.main",
           "WEBCHAOS_BROWSERGYM_RUN_DIR": str(tmp_path / "webchaos")}
    env.pop("PLAYWRIGHT_BROWSERS_PATH", None)
    done = subprocess.run([python, str(ROOT / "examples" / "browsergym" / "agentlab_study.py"), "--results",
                           str(tmp_path / "agentlab"), "--jobs", "2", "--backend", "ray"],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=1500)
    assert done.returncode == 0, done.stderr[-4000:]
    rewards = {r["env_id"]: r for r in (json.loads(line) for line in done.stdout.splitlines() if line.startswith("{"))}
    assert len(rewards) == 6 and all(r["error"] is None for r in rewards.values()), rewards
    episodes = sorted((tmp_path / "webchaos" / "episodes").iterdir())
    assert len(episodes) == 6
    for folder in episodes:
        stored = json.loads((folder / "result.json").read_text())
        variant = stored["variant_id"]
        env_id = f"browsergym/webchaos.{stored['task_id']}" + (
            f".{variant.removesuffix('@' + stored['task_id'])}" if variant else "")
        assert rewards[env_id]["reward"] == regrade(str(folder))["score"] == stored["score"], env_id

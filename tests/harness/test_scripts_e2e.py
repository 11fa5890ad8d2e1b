"""The example scenario scripts, each run beside the reference agent and graded (real stack, real Chromium)."""

from pathlib import Path
from typing import Any

import pytest

from harness.agents import ReferenceAgent
from harness.config import PROJECT_ROOT
from harness.episodes.manager import EpisodeSpec
from harness.run.overlays import with_overlays
from harness.run.results import EpisodeResult
from harness.run.runner import run_matrix
from harness.services.processes import Services
from scenarios.ledger import is_firing
from tests.harness.episodes import CATALOG, episode_dir, jsonl

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

SCRIPTS = PROJECT_ROOT / "examples" / "scripts"


async def run_script(stack: Services, runs_dir: Path, name: str, task: str, seed: int = 1
                     ) -> tuple[EpisodeResult, list[dict[str, Any]]]:
    specs = with_overlays([EpisodeSpec(CATALOG.tasks[task], None, seed)], script=SCRIPTS / name)
    summary, _ = await run_matrix(specs, [ReferenceAgent()], runs_dir=runs_dir, stack=stack, time_budget_s=120)
    (result,) = summary.episodes
    return result, jsonl(episode_dir(runs_dir, result) / "faults.jsonl")


def story(ledger: list[dict[str, Any]], fault_id: str) -> list[str]:
    return ["fired" if is_firing(line) else line["detail"].get("control") or line["detail"].get("event") or "context"
            for line in ledger if line["fault_id"] == fault_id]


def graded(result: EpisodeResult) -> None:
    assert result.status == "graded" and result.verdict is not None, (result.error, result.infra)
    assert result.script is not None and result.outcome.status in ("done", "failed")


async def test_flapping_checkout(stack: Services, tmp_path: Path) -> None:
    result, ledger = await run_script(stack, tmp_path, "flapping_checkout.py", "shop_buy_by_seller")
    graded(result)
    assert story(ledger, "error@1") == ["armed", "triggered", "fired", "disarmed"]
    assert story(ledger, "error@2") == ["armed", "triggered", "fired", "disarmed"]
    assert result.success, result.verdict  # the reference agent reloads and retries through both bursts


async def test_degrading_network(stack: Services, tmp_path: Path) -> None:
    result, ledger = await run_script(stack, tmp_path, "degrading_network.py", "shop_add_to_cart")
    graded(result)
    armed = [line["fault_id"] for line in ledger if line["detail"].get("control") == "armed"]
    # How many steps the script sees depends on how long the agent takes; each one is 250 ms slower.
    assert len(armed) >= 2 and armed == [f"latency-{250 * (i + 1)}ms" for i in range(len(armed))]
    delays = [line["detail"]["delay_ms"] for line in ledger if line["type"] == "latency" and is_firing(line)]
    assert delays == sorted(delays) and delays[0] == 250  # it only ever gets slower


async def test_session_expires_at_cart(stack: Services, tmp_path: Path) -> None:
    result, ledger = await run_script(stack, tmp_path, "session_expires_at_cart.py", "shop_buy_by_seller")
    graded(result)
    events = story(ledger, "session_expiry@1")
    assert events[:4] == ["armed", "triggered", "fired", "signed_in"] and events[-1] == "disarmed"
    assert result.success, result.verdict  # it signs in again and finishes


async def test_price_changes_while_comparing(stack: Services, tmp_path: Path) -> None:
    result, ledger = await run_script(stack, tmp_path, "price_changes_while_comparing.py", "shop_buy_by_seller")
    graded(result)
    assert story(ledger, "price_change_at_checkout@1")[:3] == ["armed", "triggered", "fired"]

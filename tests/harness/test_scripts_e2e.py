"""The example scenario scripts, each run beside the reference agent and graded (real stack, real Chromium)."""

from typing import Any

import pytest
import pytest_asyncio

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


# Each example script and the task it is run on (seed 1).
SCRIPTED = {"flapping_checkout.py": "shop_buy_by_seller", "degrading_network.py": "shop_add_to_cart",
            "session_expires_at_cart.py": "shop_buy_by_seller",
            "price_changes_while_comparing.py": "shop_buy_by_seller"}
Scripted = dict[str, tuple[EpisodeResult, list[dict[str, Any]]]]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def scripted(stack: Services, tmp_path_factory: pytest.TempPathFactory) -> Scripted:
    """Per script: its episode's result and fault ledger, every script run beside the reference agent in one run
    (one Chromium, two episodes at once: an episode mostly waits on its page), asserted per script below."""
    runs_dir = tmp_path_factory.mktemp("runs")
    names = list(SCRIPTED)
    specs = [spec for name in names
             for spec in with_overlays([EpisodeSpec(CATALOG.tasks[SCRIPTED[name]], None, 1)], script=SCRIPTS / name)]
    assert len(specs) == len(names)
    summary, _ = await run_matrix(specs, [ReferenceAgent()], runs_dir=runs_dir, stack=stack, concurrency=2,
                                  time_budget_s=120, record_replay=False)
    by_index = {int(r.episode_id[:4]): r for r in summary.episodes}
    assert sorted(by_index) == list(range(len(names))), [r.episode_id for r in summary.episodes]
    return {name: (by_index[index], jsonl(episode_dir(runs_dir, by_index[index]) / "faults.jsonl"))
            for index, name in enumerate(names)}


def story(ledger: list[dict[str, Any]], fault_id: str) -> list[str]:
    return ["fired" if is_firing(line) else line["detail"].get("control") or line["detail"].get("event") or "context"
            for line in ledger if line["fault_id"] == fault_id]


def graded(result: EpisodeResult) -> None:
    assert result.status == "graded" and result.verdict is not None, (result.error, result.infra)
    assert result.script is not None and result.outcome.status in ("done", "failed")


async def test_flapping_checkout(scripted: Scripted) -> None:
    result, ledger = scripted["flapping_checkout.py"]
    graded(result)
    assert story(ledger, "error@1") == ["armed", "triggered", "fired", "disarmed"]
    assert story(ledger, "error@2") == ["armed", "triggered", "fired", "disarmed"]
    assert result.success, result.verdict  # the reference agent reloads and retries through both bursts


async def test_degrading_network(scripted: Scripted) -> None:
    result, ledger = scripted["degrading_network.py"]
    graded(result)
    armed = [line["fault_id"] for line in ledger if line["detail"].get("control") == "armed"]
    # How many steps the script sees depends on how long the agent takes; each one is 250 ms slower.
    assert len(armed) >= 2 and armed == [f"latency-{250 * (i + 1)}ms" for i in range(len(armed))]
    delays = [line["detail"]["delay_ms"] for line in ledger if line["type"] == "latency" and is_firing(line)]
    assert delays == sorted(delays) and delays[0] == 250  # it only ever gets slower


async def test_session_expires_at_cart(scripted: Scripted) -> None:
    result, ledger = scripted["session_expires_at_cart.py"]
    graded(result)
    events = story(ledger, "session_expiry@1")
    assert events[:4] == ["armed", "triggered", "fired", "signed_in"] and events[-1] == "disarmed"
    assert result.success, result.verdict  # it signs in again and finishes


async def test_price_changes_while_comparing(scripted: Scripted) -> None:
    result, ledger = scripted["price_changes_while_comparing.py"]
    graded(result)
    assert story(ledger, "price_change_at_checkout@1")[:3] == ["armed", "triggered", "fired"]

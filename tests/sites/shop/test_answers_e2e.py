"""An answer task of the shop end to end: real sites server, proxy and Chromium; the reference agent reads the
answer off the page, and the grader checks what an agent says against the world's own figure."""

from pathlib import Path

import pytest

import webchaos
from harness.agents import ReferenceAgent
from harness.services.processes import Services
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.kit.templating import format_cents
from sites.registry import all_sites
from tests.harness.episodes import CATALOG, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TASK = "shop_order_total"


def expected_total_cents(seed: int) -> int:
    """The total the task asks for, from the same world the episode opens (generated in-process)."""
    store = EpisodeStore({"shop": all_sites()["shop"]})
    episode = store.create(site="shop", task_id=TASK, seed=seed,
                           setup=WorldSetup(params=CATALOG.tasks[TASK].setup.params))
    return int(episode.bindings["asked_order"]["total_cents"])


async def test_the_reference_agent_reads_the_order_total_and_passes(stack: Services, tmp_path: Path) -> None:
    (result,) = await run(stack, tmp_path, TASK, None, [ReferenceAgent()], seed=1)
    assert result.success, result.verdict
    assert result.outcome.answer is not None and result.outcome.answer.value == format_cents(expected_total_cents(1))
    assert result.verdict is not None and result.verdict.answer is not None and result.verdict.answer.passed


async def test_a_wrong_total_fails_and_the_right_one_passes(tmp_path: Path) -> None:
    total = expected_total_cents(1)
    async with webchaos.Stack(state_dir=tmp_path / "state", run_dir=tmp_path / "run") as stack:
        async with stack.episode(task=TASK, seed=1, cdp=False) as wrong:
            wrong_result = await wrong.grade(answer=f"{format_cents(total + 100)} in total")
        async with stack.episode(task=TASK, seed=1, cdp=False) as right:
            right_result = await right.grade(answer=f"You paid {format_cents(total)}.")
    assert not wrong_result.success
    assert wrong_result.verdict is not None and wrong_result.verdict.answer is not None
    assert not wrong_result.verdict.answer.passed
    assert right_result.success, right_result.verdict

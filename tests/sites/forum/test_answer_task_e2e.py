"""An answer task through the real stack (sites server, proxy, Chromium): the reference agent reads the
first answerer of the user's question off the Timeline page and passes; a wrong answer, the top-voted
answer's author when it differs, or 'infeasible' given to the grader fails the same task."""

from pathlib import Path

import pytest

import webchaos
from harness.agents import ReferenceAgent
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites
from tests.harness.episodes import run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
TASK = "forum_first_answerer"


async def test_the_reference_agent_reads_the_first_answerer(api_stack: webchaos.Stack, tmp_path: Path) -> None:
    (result,) = await run(api_stack.services, tmp_path, TASK, None, [ReferenceAgent(recovery=True)])
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict
    assert result.verdict is not None and result.verdict.answer is not None
    assert result.verdict.answer.passed and result.verdict.answer.predicate == "eq"


async def test_a_wrong_answer_fails_and_the_right_one_passes(api_stack: webchaos.Stack) -> None:
    # The same (task, seed) gives the same world in-process: the expected name, without the episode's internals.
    task = api_stack.catalog.tasks[TASK]
    world = EpisodeStore(all_sites()).create(site="forum", task_id=TASK, seed=1,
                                             setup=WorldSetup(params=task.setup.params))
    author = world.bindings["lookup"]["author"]
    results = {}
    for label, given in (("right", author), ("wrong", "Somebody Else"),
                         ("infeasible", webchaos.Answer(infeasible=True))):
        episode = await api_stack.open(TASK, seed=1, cdp=False)
        results[label] = await episode.grade(answer=given)
    assert results["right"].success, results["right"].verdict
    for label in ("wrong", "infeasible"):
        verdict = results[label].verdict
        assert not results[label].success
        assert verdict is not None and verdict.answer is not None and not verdict.answer.passed

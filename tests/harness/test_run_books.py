"""The run's books (run.json) against its episodes' own results: how often run.json is rewritten, and that a
run stopped with run.json behind loses no finished episode on `--resume`."""

import asyncio
import shutil
from pathlib import Path

import pytest

from harness.agents.base import Agent, AgentOutcome, EpisodeContext
from harness.episodes.manager import EpisodeSpec
from harness.run import runner
from harness.run.results import EpisodeResult, RunSummary, write_json_atomic
from harness.run.runner import episodes_to_rerun, run_json_due, run_matrix
from tests.catalog import builtin_catalog


def test_run_json_is_rewritten_a_fifteenth_as_often_as_episodes_end_and_never_misses_a_twentieth() -> None:
    written, points = 0, []
    for results in range(1, 2001):
        if run_json_due(results, written):
            written = results
            points.append(results)
        assert results - written <= max(1, written // 20)  # what a stop with nothing written out would miss
    assert len(points) * 15 < 2000  # it was rewritten after each of the 2,000
    assert points[:42] == [*range(1, 41), 42, 44]  # a short run's after each episode


class Quiet:
    name = "quiet"
    needs_browser = False

    async def run(self, ctx: EpisodeContext) -> AgentOutcome:
        raise AssertionError("the executor below does not run agents")


class Books:
    """An executor that finishes each episode at once, its result.json written as a real episode's is."""
    capacity = 3

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    async def run(self, episode_id: str, spec: EpisodeSpec, agent: Agent, out_dir: Path) -> EpisodeResult:
        result = EpisodeResult(episode_id=episode_id, task_id=spec.task.id, variant_id=None, target_primitive=None,
                               seed=spec.seed, agent=agent.name, instruction=spec.task.instruction, success=True,
                               score=1.0, outcome=AgentOutcome(status="done"))
        out_dir.mkdir(parents=True)
        write_json_atomic(out_dir / "result.json", result)
        return result


def test_a_run_stopped_with_run_json_behind_keeps_every_finished_episode(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "write_replay_quietly", lambda out_dir: None)
    task = builtin_catalog().tasks["shop_add_to_cart"]
    specs = [EpisodeSpec(task, None, seed) for seed in range(1, 61)]
    run_dir = tmp_path / "r"
    stopped_at = tmp_path / "run.json as a kill left it"
    seen: list[str] = []

    def on_result(result: EpisodeResult) -> None:
        seen.append(result.episode_id)
        if len(seen) == 51:  # the process killed here: run.json as it is now is all that is left of the books
            shutil.copy(run_dir / "run.json", stopped_at)

    summary, _ = asyncio.run(run_matrix(specs, [Quiet()], run_id="r", runs_dir=tmp_path, executor=Books(),
                                        on_result=on_result))
    assert len(summary.episodes) == 60
    behind = RunSummary.model_validate_json(stopped_at.read_bytes())
    assert len(behind.episodes) < 51  # run.json was behind the episodes when the kill came...
    ids = [r.episode_id for r in summary.episodes]
    kept, rerun = episodes_to_rerun(behind, run_dir, ids)
    assert [r.episode_id for r in kept] == ids and rerun == []  # ...and --resume finds every one of them

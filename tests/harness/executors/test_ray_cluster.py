"""The Ray executor on a real two-node Ray cluster on this machine (1 CPU per node, small object stores).

The same plan runs on the local executor and on Ray: same seeds, same verdicts, the same files in
each episode folder, a report. A worker killed mid-run loses only its in-flight episode, which
runs again on the other worker; with no worker left the rest are infrastructure errors, the run
finishes, and `--resume` (on Ray) runs exactly those again.
"""

import asyncio
import os
import shutil
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from harness.agents import CommandAgent, ReferenceAgent
from harness.cli.main import app
from harness.episodes.manager import EpisodeSpec
from harness.executors.ray_cluster import RayExecutor, RayExecutorError
from harness.run.results import EpisodeResult, RunSummary
from harness.run.runner import run_matrix
from tests.catalog import builtin_catalog

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")

pytestmark = pytest.mark.e2e
CATALOG = builtin_catalog()
# Two sites, a base and variants: three quick episodes for the reference agent (two workers, and a third
# episode for the one that finishes first to be killed in).
PLAN = [("shop_add_to_cart", None), ("shop_add_to_cart", "shop_product_distractor_modal"),
        ("mail_send_draft", "mail_send_503_then_success")]
NODE = {"num_cpus": 1, "object_store_memory": 80 * 2**20}


def specs(plan: list[tuple[str, str | None]] = PLAN, seed: int = 3) -> list[EpisodeSpec]:
    return [EpisodeSpec(CATALOG.tasks[t], CATALOG.variants[v] if v else None, seed) for t, v in plan]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    made = cluster_utils.Cluster(initialize_head=True, head_node_args={**NODE, "include_dashboard": False})
    made.add_node(**NODE)
    made.wait_for_nodes()
    ray.init(address=made.address, log_to_driver=False, configure_logging=False)
    yield made
    ray.shutdown()
    made.shutdown()


def verdicts(summary: RunSummary) -> dict[str, tuple[str, bool, float, str]]:
    """Per episode: status, success, score and the verdict's checks (its process metrics hold timings)."""
    return {r.episode_id: (r.status, r.success, r.score,
                           r.verdict.model_dump_json(exclude={"process"}) if r.verdict else "")
            for r in summary.episodes}


def files(run_dir: Path, result: EpisodeResult) -> set[str]:
    folder = run_dir / "episodes" / result.episode_id
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.suffix != ".log"}


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunSummary, Path]:
    runs = tmp_path_factory.mktemp("local")
    return asyncio.run(run_matrix(specs(), [ReferenceAgent()], run_id="local", runs_dir=runs, concurrency=2,
                                  time_budget_s=60))


class KillWorkerInFlight:
    """An `on_result` hook: at the first result, SIGKILL the first of the workers `indexes` seen with an episode
    in flight (its scratch folder holds the episode's folder, from the episode's start until its result is
    packed). Waiting on the folders, not on a clock, because a quick episode (under a second) could finish
    before a timed kill on a loaded machine; and watching every worker, because the one that is not running the
    last episodes may have none left to be killed in (a folder gone at the run's end counts as empty)."""

    def __init__(self, executor: RayExecutor, *indexes: int) -> None:
        self.executor, self.indexes, self.armed = executor, indexes, False
        self.killed = threading.Event()

    def __call__(self, result: EpisodeResult) -> None:
        if not self.armed:
            self.armed = True
            watched = [(int(info["pid"]), Path(info["scratch"]))
                       for info in (self.executor.worker_info[i] for i in self.indexes)]
            threading.Thread(target=self._kill_in_flight, args=(watched,), daemon=True).start()

    def _kill_in_flight(self, watched: list[tuple[int, Path]]) -> None:
        for _ in range(60_000):  # gives up after ~10 min without an episode (the test then fails on its counts)
            for pid, scratch in watched:
                if in_flight(scratch):
                    os.kill(pid, signal.SIGKILL)
                    self.killed.set()
                    return
            time.sleep(0.01)


def in_flight(scratch: Path) -> bool:
    try:
        return any(scratch.iterdir())
    except FileNotFoundError:  # the worker stopped: its folder went with it
        return False


def test_ray_run_is_the_local_run_and_a_killed_worker_loses_only_its_episode_which_runs_again_elsewhere(
        cluster: Any, local_run: tuple[RunSummary, Path], tmp_path: Path) -> None:
    # One Ray run proves both (each took 80+ s of a loaded two-core machine): a worker is killed mid-run, and
    # the run is still the local run in every way (seeds, verdicts, the files of each episode folder, report).
    local, local_dir = local_run
    executor = RayExecutor([ReferenceAgent()], workers=2, per_worker=1, time_budget_s=60)
    arrived: list[str] = []
    kill = KillWorkerInFlight(executor, 0, 1)

    def on_result(result: EpisodeResult) -> None:
        arrived.append(result.episode_id)
        kill(result)

    summary, run_dir = asyncio.run(run_matrix(specs(), [ReferenceAgent()], run_id="ray", runs_dir=tmp_path,
                                              executor=executor, on_result=on_result))
    assert kill.killed.is_set()
    assert len({info["pid"] for info in executor.worker_info}) == 2
    assert summary.finished_at is not None and len(summary.episodes) == len(PLAN)
    assert sorted(arrived) == sorted(r.episode_id for r in summary.episodes)
    assert len(executor.retried) == 1
    assert all(r.status == "graded" for r in summary.episodes), [r.infra for r in summary.episodes]
    assert verdicts(summary) == verdicts(local)
    assert any(r.success for r in summary.episodes)
    for ours, theirs in zip(summary.episodes, local.episodes, strict=True):
        assert files(run_dir, ours) == files(local_dir, theirs), ours.episode_id
        assert {"trace.har", "result.json", "episode.json", "replay.html"} <= files(run_dir, ours)
    assert (run_dir / "report.html").is_file()
    assert summary.aggregates is not None and local.aggregates is not None
    assert summary.aggregates.keys() == local.aggregates.keys()


def test_with_no_worker_left_the_rest_are_infra_errors_and_resume_runs_them(
        cluster: Any, local_run: tuple[RunSummary, Path], tmp_path: Path) -> None:
    executor = RayExecutor([ReferenceAgent()], workers=1, per_worker=1, time_budget_s=60)
    summary, run_dir = asyncio.run(run_matrix(
        specs(), [ReferenceAgent()], run_id="alone", runs_dir=tmp_path, executor=executor,
        on_result=(kill := KillWorkerInFlight(executor, 0))))
    assert kill.killed.is_set()
    assert summary.finished_at is not None and len(summary.episodes) == len(PLAN)
    graded = [r for r in summary.episodes if r.status == "graded"]
    failed = [r for r in summary.episodes if r.status == "infra_error"]
    assert len(graded) == 1 and len(failed) == 2
    for result in failed:
        assert result.infra is not None and result.infra.process == "ray worker", result.infra
        assert "died" in result.infra.cause or "no Ray worker is alive" in result.infra.cause
        assert (run_dir / "episodes" / result.episode_id / "result.json").is_file()
    assert any("no other worker alive" in r.infra.cause for r in failed if r.infra is not None)

    again = RayExecutor([ReferenceAgent()], workers=1, per_worker=1, time_budget_s=60)
    resumed, _ = asyncio.run(run_matrix(specs(), [ReferenceAgent()], run_id="alone", runs_dir=tmp_path,
                                        executor=again, resume=True))
    assert [r.status for r in resumed.episodes] == ["graded"] * len(PLAN)
    local = verdicts(local_run[0])
    assert verdicts(resumed) == {k: local[k] for k in verdicts(resumed)}


def test_a_command_missing_on_the_worker_is_named(cluster: Any) -> None:
    executor = RayExecutor([CommandAgent("no-such-agent-program --fast", name="ghost")], workers=1, per_worker=1)
    with pytest.raises(RayExecutorError, match=r"agent 'ghost' cannot run on Ray worker .*'no-such-agent-program' "
                                               r"is not on PATH"):
        asyncio.run(executor.start())


def test_the_ray_options_are_recorded_and_resume_keeps_them_unless_told_otherwise(cluster: Any,
                                                                                   tmp_path: Path) -> None:
    # The agent prints the folder it runs in: a Ray worker's scratch folder, or the run folder when local.
    where = "cmd:sh -c 'echo \"$WEBCHAOS_OUT_DIR\"'"
    run_dir = tmp_path / "r"

    def invoke(*args: str) -> None:
        out = CliRunner().invoke(app, ["run", *args], catch_exceptions=False)
        assert out.exit_code == 0, out.output

    def ran_on(result: EpisodeResult) -> str:
        log = (run_dir / "episodes" / result.episode_id / "agent.log").read_text()
        return "ray" if "webchaos-worker-" in log else "local" if str(run_dir) in log else log

    def drop_the_last_episode() -> EpisodeResult:
        summary = RunSummary.model_validate_json((run_dir / "run.json").read_bytes())
        dropped = summary.episodes.pop()
        shutil.rmtree(run_dir / "episodes" / dropped.episode_id)
        (run_dir / "run.json").write_text(summary.model_dump_json())
        return dropped

    def after() -> RunSummary:
        return RunSummary.model_validate_json((run_dir / "run.json").read_bytes())

    invoke("-t", "shop_add_to_cart", "--base-only", "--seeds", "1-2", "-a", where, "-j", "1", "--run-id", "r",
           "--runs-dir", str(tmp_path), "--time-budget", "20", "--executor", "ray", "--address", cluster.address,
           "--workers", "1")
    first = after()
    assert first.config is not None
    assert (first.config.executor, first.config.address, first.config.workers) == ("ray", cluster.address, 1)
    assert [ran_on(r) for r in first.episodes] == ["ray", "ray"]
    assert f"Ray at {cluster.address} · 1 worker · 1 at once each" in (run_dir / "report.html").read_text()

    dropped = drop_the_last_episode()
    invoke("--resume", str(run_dir))
    resumed = after()
    assert [r.episode_id for r in resumed.episodes] == [r.episode_id for r in first.episodes]
    assert ran_on(resumed.episodes[-1]) == "ray" and resumed.config == first.config

    drop_the_last_episode()
    invoke("--resume", str(run_dir), "--executor", "local")
    local = after()
    assert local.episodes[-1].episode_id == dropped.episode_id and ran_on(local.episodes[-1]) == "local"
    assert local.config is not None and (local.config.executor, local.config.address) == ("local", None)
    assert "local · 1 at once" in (run_dir / "report.html").read_text()

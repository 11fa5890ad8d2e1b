"""Kill -9 a webchaos process in the middle of a run: the run goes on, the episode it was running is an
infrastructure error naming the process and the signal (never an agent failure), what died is
restarted, and the episodes after it pass. Real processes throughout."""

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
import pytest_asyncio

from harness.agents import CommandAgent
from harness.agents.base import AgentOutcome, EpisodeContext
from harness.config import PROJECT_ROOT
from harness.episodes import manager
from harness.episodes.manager import EpisodeSpec
from harness.run.results import RunSummary
from harness.run.runner import run_matrix
from harness.services.processes import Services
from tests.catalog import builtin_catalog

AGENT = f"{sys.executable} {PROJECT_ROOT / 'tests' / 'harness' / 'lingering_agent.py'}"
SEEDS = (1, 2, 3, 4)
VICTIM = 1  # the second episode is the one running when the process dies


@pytest_asyncio.fixture
async def stack(tmp_path: Path) -> AsyncIterator[Services]:
    running = Services(state_dir=tmp_path / "state")
    await running.start()
    yield running
    await running.stop()


_parents: dict[int, int] = {}


def _parent(pid: int) -> int:
    return _parents.get(pid, -1)


def _chromium_on(proxy_url: str) -> int:
    """The browser process (not a renderer) of the Chromium using `proxy_url`."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
            except OSError:
                continue
            if f"--proxy-server={proxy_url}" in argv and not any(a.startswith("--type=") for a in argv):
                return int(entry.name)
    raise AssertionError(f"no chromium on {proxy_url}")


async def _run_and_kill(stack: Services, tmp_path: Path, victim: Callable[[int, str], int], *,
                        cdp: bool = False) -> tuple[RunSummary, int]:
    """Four add-to-cart episodes one at a time; when the second one's agent starts, SIGKILL `victim(...)`."""
    task = builtin_catalog().tasks["shop_add_to_cart"]
    specs = [EpisodeSpec(task, None, seed) for seed in SEEDS]
    agent = CommandAgent(AGENT, name="lingering", cdp=cdp)
    run_dir = tmp_path / "runs" / "crash"

    async def killer() -> int:
        while True:
            marks = list((run_dir / "episodes").glob(f"{VICTIM:04d}-*/agent.pid"))
            if marks:
                agent_pid, proxy_url = marks[0].read_text().split()
                pid = victim(int(agent_pid), proxy_url)
                _parents[pid] = int((Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
                os.kill(pid, signal.SIGKILL)
                return pid
            await asyncio.sleep(0.02)

    kill = asyncio.create_task(killer())
    started = time.monotonic()
    summary, _ = await run_matrix(specs, [agent], run_id="crash", runs_dir=tmp_path / "runs", stack=stack,
                                  concurrency=1, time_budget_s=30, record_replay=False)
    assert time.monotonic() - started < 50
    assert kill.done()
    return summary, kill.result()


def _check(summary: RunSummary, process: str, pid: int) -> None:
    by_index = {int(r.episode_id[:4]): r for r in summary.episodes}
    assert sorted(by_index) == list(range(len(SEEDS)))
    hit = by_index[VICTIM]
    assert hit.status == "infra_error" and hit.infra is not None, hit
    assert (hit.infra.process, hit.infra.signal) == (process, "SIGKILL"), hit.infra
    if process == "agent":  # the command's shell reports its child's death (exit status 128 + 9)
        assert hit.infra.pid is not None and hit.infra.pid in (pid, _parent(pid)), hit.infra
    else:
        assert hit.infra.pid == pid and f"pid {pid}" in hit.infra.cause, hit.infra
    assert "SIGKILL" in hit.infra.cause
    for index, result in by_index.items():
        if index != VICTIM:
            assert result.status == "graded" and result.success, (index, result.outcome, result.error)
    agg = summary.aggregates or {}
    assert agg["infra_errors"] == 1 and agg["episodes"] == len(SEEDS) - 1
    assert agg["score_matrix"]["lingering"]["base"]["shop"]["success_rate"] == 1.0  # not counted as a failure


async def _kill_service_mid_run(stack: Services, tmp_path: Path, index: int, name: str) -> None:
    """Kill the stack's service `index` (`name`) mid-run: its episode is an infra error, and the stack restarts
    it as a new process. The sites server's and the proxy's tests differ only in which service dies."""
    service = stack.services[index]
    assert service.name == name and service.process is not None
    old = service.process.pid
    summary, pid = await _run_and_kill(stack, tmp_path, lambda *_: old)
    _check(summary, name, pid)
    assert [d.service for d in stack.deaths] == [name]
    assert service.process is not None and service.process.pid != old and service.process.returncode is None


async def test_sites_server_killed_mid_run(stack: Services, tmp_path: Path) -> None:
    await _kill_service_mid_run(stack, tmp_path, 0, "sites server")


async def test_proxy_killed_mid_run(stack: Services, tmp_path: Path) -> None:
    await _kill_service_mid_run(stack, tmp_path, 1, "proxy")


async def test_agent_killed_mid_run(stack: Services, tmp_path: Path) -> None:
    summary, pid = await _run_and_kill(stack, tmp_path, lambda agent_pid, _: agent_pid)
    _check(summary, "agent", pid)
    assert stack.deaths == []


@pytest.mark.e2e
async def test_episode_chromium_killed_mid_run(stack: Services, tmp_path: Path) -> None:
    summary, pid = await _run_and_kill(stack, tmp_path, lambda _, proxy_url: _chromium_on(proxy_url), cdp=True)
    _check(summary, "chromium", pid)
    assert stack.deaths == []


@pytest.mark.e2e
async def test_shared_chromium_killed_mid_run(stack: Services, tmp_path: Path) -> None:
    """The reference agent's Chromium (one per run) dies under an episode: that episode is an infrastructure
    error; the pool launches another and the next episodes pass."""
    from harness.agents import ReferenceAgent
    from harness.browser.pool import BrowserPool

    task = builtin_catalog().tasks["shop_add_to_cart"]
    specs = [EpisodeSpec(task, None, seed) for seed in (1, 2, 3)]
    pools: list[BrowserPool] = []
    real_start = BrowserPool.start

    async def remember(self: BrowserPool) -> BrowserPool:
        pools.append(self)
        return await real_start(self)

    run_dir = tmp_path / "runs" / "pool"

    async def killer() -> int:
        while True:
            if list((run_dir / "episodes").glob("0001-*/episode.json")):
                break
            await asyncio.sleep(0.02)
        await asyncio.sleep(0.5)  # the agent is at work in its page
        pid = pools[0].pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        return pid

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BrowserPool, "start", remember)
        kill = asyncio.create_task(killer())
        started = time.monotonic()
        summary, _ = await run_matrix(specs, [ReferenceAgent(recovery=True)], run_id="pool",
                                      runs_dir=tmp_path / "runs", stack=stack, concurrency=1, time_budget_s=30,
                                      record_replay=False)
    assert time.monotonic() - started < 55
    pid = kill.result()
    by_index = {int(r.episode_id[:4]): r for r in summary.episodes}
    hit = by_index[1]
    assert hit.status == "infra_error" and hit.infra is not None and hit.infra.process == "chromium", hit
    assert hit.infra.pid == pid and f"pid {pid}" in hit.infra.cause
    assert by_index[0].success and by_index[2].success, (by_index[0].outcome, by_index[2].outcome)
    assert len(pools) == 2 and pools[1].pid != pid
    assert (summary.aggregates or {})["infra_errors"] == 1


class _StuckAgent:
    """Its run never returns (as a browser call that never answers): only the runner can end its episode."""

    name = "stuck"
    needs_browser = False

    def __init__(self) -> None:
        self.cancelled = False

    async def run(self, ctx: EpisodeContext) -> AgentOutcome:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        raise AssertionError("unreachable")


async def test_an_agent_stuck_past_its_budget_is_stopped_and_the_run_goes_on(
        stack: Services, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(manager, "OVERRUN_GRACE_MIN_S", 0.0)
    catalog = builtin_catalog()
    specs = [EpisodeSpec(catalog.tasks["shop_add_to_cart"], None, seed) for seed in (1, 2)]
    agent = _StuckAgent()
    summary, _ = await run_matrix(specs, [agent], run_id="stuck", runs_dir=tmp_path / "runs", stack=stack,
                                  concurrency=1, time_budget_s=0.5)
    assert agent.cancelled
    assert [(r.status, r.outcome.status) for r in summary.episodes] == [("graded", "timeout")] * 2
    assert all("still running 1 s after its episode opened (its time budget 0.5 s)" in (r.outcome.error or "")
               for r in summary.episodes), [r.outcome.error for r in summary.episodes]
    assert not any(r.success for r in summary.episodes)

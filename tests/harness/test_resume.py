"""`webchaos run --resume`: a run with an infrastructure error, stopped by SIGTERM, then resumed, ends with
every planned episode; the episodes that had finished are kept byte for byte."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from harness.config import PROJECT_ROOT
from harness.run.results import RunSummary

WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]
AGENT = f"cmd:python {PROJECT_ROOT / 'tests' / 'harness' / 'lingering_agent.py'}"


def _wait_for(predicate, timeout_s: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _finished(run_dir: Path) -> list[dict]:  # type: ignore[type-arg]
    try:
        return list(json.loads((run_dir / "run.json").read_text())["episodes"])
    except (OSError, ValueError, KeyError):
        return []


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_interrupted_run_with_an_infra_error_resumes_to_the_full_set(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    run_dir = runs / "r1"
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "LINGER_S": "1.0", "COLUMNS": "200"}
    first = subprocess.Popen(
        [*WEBCHAOS, "run", "-t", "shop_add_to_cart", "-v", "shop_product_overlay_returns", "--seeds", "1-2",
         "-a", AGENT, "-j", "1", "--run-id", "r1",
         "--runs-dir", str(runs), "--time-budget", "30"],
        cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True)
    try:
        # Episode 0: its agent is killed from outside (an infrastructure error).
        marks = run_dir / "episodes"
        _wait_for(lambda: any(marks.glob("0000-*/agent.pid")), 120, "the first agent")
        pid = int(next(marks.glob("0000-*/agent.pid")).read_text().split()[0])
        os.kill(pid, signal.SIGKILL)
        # Episode 1 finishes; SIGTERM while episode 2 runs.
        _wait_for(lambda: len(_finished(run_dir)) >= 2, 120, "two finished episodes")
        _wait_for(lambda: any(marks.glob("0002-*/agent.pid")), 120, "the third agent")
        first.send_signal(signal.SIGTERM)
        out, _ = first.communicate(timeout=30)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 130, out
    before = RunSummary.model_validate_json((run_dir / "run.json").read_bytes())
    assert before.interrupted and before.planned == 4
    statuses = {r.episode_id[:4]: r.status for r in before.episodes}
    assert statuses == {"0000": "infra_error", "0001": "graded"}, statuses
    kept = next(r for r in before.episodes if r.status == "graded")
    kept_files = _snapshot(run_dir / "episodes" / kept.episode_id)
    assert "result.json" in kept_files

    second = subprocess.run([*WEBCHAOS, "run", "--resume", str(run_dir)], cwd=PROJECT_ROOT, env=env,
                            capture_output=True, text=True, timeout=60)
    assert second.returncode == 0, second.stdout + second.stderr
    after = RunSummary.model_validate_json((run_dir / "run.json").read_bytes())
    assert [r.episode_id[:4] for r in after.episodes] == ["0000", "0001", "0002", "0003"]
    assert all(r.status == "graded" and r.success for r in after.episodes), [r.outcome for r in after.episodes]
    assert not after.interrupted and after.finished_at and len(after.resumed_at) == 1
    assert after.started_at == before.started_at
    assert _snapshot(run_dir / "episodes" / kept.episode_id) == kept_files  # not a byte changed
    assert sorted(p.name[:4] for p in (run_dir / "episodes").iterdir()) == ["0000", "0001", "0002", "0003"]
    assert (after.aggregates or {})["episodes"] == 4

    again = subprocess.run([*WEBCHAOS, "run", "--resume", str(run_dir)], cwd=PROJECT_ROOT, env=env,
                           capture_output=True, text=True, timeout=60)
    assert again.returncode == 0
    assert RunSummary.model_validate_json((run_dir / "run.json").read_bytes()).episodes == after.episodes


def test_resume_of_a_folder_without_a_run_is_a_clear_error(tmp_path: Path) -> None:
    out = subprocess.run([*WEBCHAOS, "run", "--resume", str(tmp_path / "nope")], cwd=PROJECT_ROOT,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and str(tmp_path / "nope" / "run.json") in out.stderr

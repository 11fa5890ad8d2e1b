"""The CLI as a user runs it: bad input, and Ctrl-C leaving no orphans."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.config import PROJECT_ROOT

WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]


def test_broken_scenario_file_names_file_and_field(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("tasks:\n  - id: x\n    site: shop\n    title: t\n    instruction: i\n    plan: []\n"
                   "    canonical_diff: {}\n")
    out = subprocess.run([*WEBCHAOS, "run", "--catalog", str(bad)], capture_output=True, text=True,
                         cwd=PROJECT_ROOT, timeout=60)
    assert out.returncode == 2
    assert out.stderr.startswith("webchaos: error: scenario error: ") and out.stderr.count("\n") == 1, out.stderr
    assert str(bad) in out.stderr and "tasks[0].plan" in out.stderr


def test_unknown_task_is_a_clear_error() -> None:
    out = subprocess.run([*WEBCHAOS, "run", "--task", "nope"], capture_output=True, text=True,
                         cwd=PROJECT_ROOT, timeout=60)
    assert out.returncode == 2
    assert out.stderr.startswith("webchaos: error: ") and "unknown task 'nope'" in out.stderr, out.stderr


def test_faults_lists_registered_types() -> None:
    out = subprocess.run([*WEBCHAOS, "faults"], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60,
                         env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 0
    rows = {line.split("│")[1].strip(): [c.strip() for c in line.split("│")[2:4]]
            for line in out.stdout.splitlines() if line.count("│") > 4 and line.split("│")[1].strip()}
    assert rows["latency"] == ["network", "patience"]
    assert rows["overlay"] == ["client", "grounding"]
    assert "delay_ms: int [ms] = required" in out.stdout


def test_docs_faults_md_is_generated_from_the_registry() -> None:
    from scenarios.faultdocs import render_markdown

    on_disk = (PROJECT_ROOT / "docs" / "faults.md").read_text()
    assert on_disk == render_markdown(), "regenerate: webchaos faults --markdown > docs/faults.md"


def _children(pid: int) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.add(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.e2e
def test_up_prints_the_episode_and_ctrl_c_leaves_no_orphans(tmp_path: Path) -> None:
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "200"}
    process = subprocess.Popen([*WEBCHAOS, "up", "--runs-dir", str(tmp_path / "runs")], cwd=PROJECT_ROOT, env=env,
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        lines.append(line)
        if "Press Enter" in line:
            break
    text = "".join(lines)
    assert "proxy" in text and "http://127.0.0.1:" in text and re.search(r"http://\w+\.test/", text), text
    children = _children(process.pid)
    assert len(children) >= 2, "sites server and proxy should be running"
    process.send_signal(signal.SIGINT)
    rest, _ = process.communicate(timeout=60)
    assert process.returncode == 0, rest
    assert "score" in rest
    time.sleep(0.2)
    assert not [pid for pid in children if _alive(pid)]


def _descendants(pid: int) -> set[int]:
    found, frontier = set(), {pid}
    while frontier:
        children = set().union(*(_children(p) for p in frontier)) - found
        found |= children
        frontier = children
    return found


@pytest.mark.e2e
def test_ctrl_c_during_a_run_keeps_finished_results_and_leaves_no_orphans(tmp_path: Path) -> None:
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "200"}
    runs = tmp_path / "runs"
    # Like a terminal's Ctrl-C: SIGINT to the whole foreground process group.
    process = subprocess.Popen(
        [*WEBCHAOS, "run", "--task", "shop_add_to_cart", "--task", "shop_buy_by_seller", "--seeds", "1-3",
         "-j", "1", "--run-id", "interrupted", "--runs-dir", str(runs)],
        cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
    )
    assert process.stdout is not None
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if " pass " in process.stdout.readline():  # one episode finished
            break
    family = _descendants(process.pid)
    assert len(family) >= 3, "sites server, proxy and browser should be running"
    os.killpg(process.pid, signal.SIGINT)
    rest, _ = process.communicate(timeout=60)
    assert process.returncode == 130, rest
    assert "finished episodes are kept" in rest
    time.sleep(0.3)
    assert not [pid for pid in family if _alive(pid)]
    summary = json.loads((runs / "interrupted" / "run.json").read_text())
    assert summary["interrupted"] is True
    # Every finished episode is kept (whether the agent won each variant is not the point here).
    assert summary["episodes"] and any(e["success"] for e in summary["episodes"])
    for episode in summary["episodes"]:
        assert (runs / "interrupted" / "episodes" / episode["episode_id"] / "result.json").is_file()

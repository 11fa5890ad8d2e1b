"""An unwritable or full runs folder is one clear line and exit status 2 before the first episode."""

import os
import shutil
import subprocess
import sys
from collections import namedtuple
from pathlib import Path

import pytest

from harness.config import PROJECT_ROOT
from harness.run import runner
from harness.run.runner import MIN_FREE_MB, RunsDirError, check_runs_dir

WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]
RUN = ["run", "-t", "shop_add_to_cart", "-v", "shop_product_overlay_returns", "-a", "cmd:true"]
Usage = namedtuple("Usage", "total used free")


def _can_unshare() -> bool:
    if shutil.which("unshare") is None:
        return False
    probe = subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs /mnt"],
                           capture_output=True, timeout=10)
    return probe.returncode == 0


def _webchaos_in_tmpfs(tmp_path: Path, mount_options: str) -> subprocess.CompletedProcess[str]:
    """`webchaos run` with runs/ on a real tmpfs of its own (a private mount namespace; root or not)."""
    runs = tmp_path / "runs"
    runs.mkdir()
    command = " ".join([f"mount -t tmpfs -o {mount_options} tmpfs {runs} &&", "exec", *WEBCHAOS, *RUN,
                        "--runs-dir", str(runs)])
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "300"}
    env.pop("WEBCHAOS_MIN_FREE_MB", None)
    return subprocess.run(["unshare", "-rm", "sh", "-c", command], cwd=PROJECT_ROOT, env=env,
                          capture_output=True, text=True, timeout=60)


def _assert_one_line(out: subprocess.CompletedProcess[str], folder: Path, problem: str) -> None:
    assert out.returncode == 2, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr + out.stdout, out.stderr
    assert str(folder) in out.stderr and problem in out.stderr, out.stderr
    assert "episodes" not in out.stdout  # no progress bar: nothing started


def test_check_refuses_too_little_free_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WEBCHAOS_MIN_FREE_MB", raising=False)
    monkeypatch.setattr(runner.shutil, "disk_usage", lambda _: Usage(10 * 2**30, 10 * 2**30 - 5 * 2**20, 5 * 2**20))
    with pytest.raises(RunsDirError, match=rf"{tmp_path} has only 5 MiB free; a run needs at least {MIN_FREE_MB} MiB"):
        check_runs_dir(tmp_path)
    check_runs_dir(tmp_path, min_free_mb=4)  # the threshold is the limit, nothing else
    monkeypatch.setenv("WEBCHAOS_MIN_FREE_MB", "0")
    check_runs_dir(tmp_path)
    assert list(tmp_path.iterdir()) == []  # the write probe leaves nothing behind


def test_check_refuses_a_file_where_the_folder_should_be(tmp_path: Path) -> None:
    blocker = tmp_path / "runs"
    blocker.write_text("not a folder")
    with pytest.raises(RunsDirError, match=rf"runs folder {tmp_path}/runs/x is not writable"):
        check_runs_dir(blocker / "x")


def test_cli_unwritable_runs_dir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    runs = blocker / "runs"
    out = subprocess.run([*WEBCHAOS, *RUN, "--runs-dir", str(runs)], cwd=PROJECT_ROOT, capture_output=True,
                         text=True, timeout=60, env={**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state")})
    _assert_one_line(out, runs, "not writable")


@pytest.mark.skipif(not _can_unshare(), reason="needs unshare -rm (user and mount namespaces)")
def test_cli_read_only_runs_dir_is_one_line(tmp_path: Path) -> None:
    out = _webchaos_in_tmpfs(tmp_path, "ro,size=64m")
    _assert_one_line(out, tmp_path / "runs", "Read-only file system")


@pytest.mark.skipif(not _can_unshare(), reason="needs unshare -rm (user and mount namespaces)")
def test_cli_full_disk_is_one_line(tmp_path: Path) -> None:
    out = _webchaos_in_tmpfs(tmp_path, "size=1m")  # a real, nearly full file system: 1 MiB in all
    _assert_one_line(out, tmp_path / "runs", "has only 1 MiB free")

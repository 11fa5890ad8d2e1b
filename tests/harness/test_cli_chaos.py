"""`webchaos script` and `run --chaos-profile`: bad input is refused before anything starts."""

import subprocess
import sys
from pathlib import Path

from harness.config import PROJECT_ROOT

WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]


def webchaos(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WEBCHAOS, *args], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)


def test_script_without_a_scenario_function_or_tasks_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def scenario(ep):\n    pass\n")
    out = webchaos("script", str(broken), "--task", "shop_add_to_cart")
    assert out.returncode == 2 and "async def scenario(ep)" in out.stderr
    taskless = tmp_path / "taskless.py"
    taskless.write_text("async def scenario(ep):\n    pass\n")
    out = webchaos("script", str(taskless))
    assert out.returncode == 2
    assert out.stderr == f"webchaos: error: {taskless}: give --task (the script names no TASKS)\n"
    out = webchaos("script", str(tmp_path / "missing.py"))
    assert out.returncode == 2 and "no such file" in out.stderr


def test_unknown_chaos_profile_names_the_built_in_ones() -> None:
    out = webchaos("run", "--task", "shop_add_to_cart", "--chaos-profile", "stormy")
    assert out.returncode == 2 and "stormy" in out.stderr and "flaky-network" in out.stderr

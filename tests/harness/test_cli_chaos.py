"""`webchaos script` and `run --chaos-profile`: bad input is refused before anything starts."""

import subprocess
import sys
from pathlib import Path

from harness.config import PROJECT_ROOT

WEBCHAOS = [sys.executable, "-m", "harness.cli"]


def webchaos(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WEBCHAOS, *args], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)


def test_script_without_a_scenario_function_or_tasks_is_refused(tmp_path: Path) -> None:
    broken = tmp_path / "broken.py"
    broken.write_text("def scenario(ep):\n    pass\n")
    out = webchaos("script", str(broken), "--task", "shop_add_to_cart")
    assert out.returncode == 2 and "async def scenario(ep)" in " ".join(out.stdout.split())
    taskless = tmp_path / "taskless.py"
    taskless.write_text("async def scenario(ep):\n    pass\n")
    out = webchaos("script", str(taskless))
    assert out.returncode == 2 and "give --task" in " ".join(out.stdout.split())
    out = webchaos("script", str(tmp_path / "missing.py"))
    assert out.returncode == 2 and "no such file" in " ".join(out.stdout.split())


def test_unknown_chaos_profile_names_the_built_in_ones() -> None:
    out = webchaos("run", "--task", "shop_add_to_cart", "--chaos-profile", "stormy")
    text = " ".join(out.stdout.split())
    assert out.returncode == 2 and "stormy" in text and "flaky-network" in text

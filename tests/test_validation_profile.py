"""benchmarks/validation_profile.py: an episode's agent time split by the gaps between its GUI actions, and a
recipe's time against its own tasks' base runs."""

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "benchmarks" / "validation_profile.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("validation_profile", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _episode(run: Path, name: str, variant: str | None, agent_ms: float, action_ms: list[float]) -> None:
    folder = run / "episodes" / name
    folder.mkdir(parents=True)
    (folder / "result.json").write_text(json.dumps({
        "agent": "reference", "task_id": "t", "variant_id": variant, "status": "graded",
        "timings": {"agent_ms": agent_ms}}))
    (folder / "actions.jsonl").write_text("".join(json.dumps({"t_ms": t}) + "\n" for t in action_ms))


def test_gaps_are_bucketed_and_a_recipe_is_measured_against_its_tasks_base(tmp_path: Path) -> None:
    profile = _load()
    _episode(tmp_path, "0-base", None, 4000, [500, 1000, 2500])  # 0.5 + 0.5 acting, 1.5 on the page, 1.5 more
    _episode(tmp_path, "1-swallow", "commit_click_swallow@t", 12000, [500, 1000, 9000])  # an 8 s and a 3 s wait
    base = profile.read_episode(tmp_path / "episodes" / "0-base")
    assert base.recipe == "base" and base.buckets == {"acting": 1.0, "waiting on the page": 3.0, "waiting out": 0.0}
    swallowed = profile.read_episode(tmp_path / "episodes" / "1-swallow")
    assert swallowed.recipe == "commit_click_swallow"
    assert swallowed.buckets == {"acting": 1.0, "waiting on the page": 0.0, "waiting out": 11.0}
    row = next(line for line in profile.profile([tmp_path]).splitlines() if "commit_click_swallow" in line)
    assert row.split()[1:4] == ["1", "12.0", "3.00"], row  # episodes, mean seconds, × its task's base


def test_a_folder_without_episodes_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _load().main([str(tmp_path)]) == 2
    assert "not a run folder" in capsys.readouterr().err

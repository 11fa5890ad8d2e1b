"""Without Chromium, a run or a validation that needs a browser stops at once with the install hint,
instead of recording an infrastructure error for every episode."""

from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness import config
from harness.agents.reference import ReferenceAgent
from harness.cli.main import app
from harness.config import ChromiumNotFound
from harness.episodes.manager import EpisodeSpec
from harness.run.runner import run_matrix
from tests.catalog import builtin_catalog


@pytest.fixture
def no_chromium(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(config, "_CHROMIUM_CANDIDATES", ())
    monkeypatch.setattr(config, "_HEADLESS_SHELL_CANDIDATES", ())
    monkeypatch.delenv("WEBCHAOS_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-bin"))
    with pytest.raises(ChromiumNotFound):
        config.find_chromium()


async def test_run_matrix_refuses_before_any_episode(no_chromium: None, tmp_path: Path) -> None:
    spec = EpisodeSpec(builtin_catalog().tasks["shop_add_to_cart"], None, 1)
    with pytest.raises(ChromiumNotFound, match="apt-get install -y chromium"):
        await run_matrix([spec], [ReferenceAgent()], runs_dir=tmp_path / "runs")
    assert not (tmp_path / "runs").exists()


def test_validate_exits_2_with_the_hint_and_writes_nothing(no_chromium: None, tmp_path: Path) -> None:
    validity = Path(config.PROJECT_ROOT) / "scenarios" / "validity" / "shop.json"
    before = validity.read_bytes()
    out = CliRunner().invoke(app, ["validate", "--site", "shop", "--seeds", "1", "-v", "shop_product_overlay_returns",
                                   "--runs-dir", str(tmp_path / "runs")])
    assert out.exit_code == 2, out.output
    assert "no Chromium found" in out.output
    assert validity.read_bytes() == before
    assert not (tmp_path / "runs").exists()


def _executable(folder: Path, name: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_a_headless_browser_is_the_headless_shell_when_installed(monkeypatch: pytest.MonkeyPatch,
                                                                 tmp_path: Path) -> None:
    full, shell = _executable(tmp_path, "chromium"), _executable(tmp_path, "chromium-headless-shell")
    monkeypatch.setattr(config, "_CHROMIUM_CANDIDATES", (full,))
    monkeypatch.setattr(config, "_HEADLESS_SHELL_CANDIDATES", (str(tmp_path / "absent"), shell))
    monkeypatch.delenv("WEBCHAOS_CHROMIUM", raising=False)
    assert config.find_chromium(headless=True) == shell
    assert config.find_chromium() == full                       # a window someone watches: the browser
    monkeypatch.setattr(config, "_HEADLESS_SHELL_CANDIDATES", (str(tmp_path / "absent"),))
    assert config.find_chromium(headless=True) == full          # no shell: the browser, headless


def test_webchaos_chromium_is_used_as_given_headless_or_not(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    mine = _executable(tmp_path, "my-chrome")
    monkeypatch.setattr(config, "_HEADLESS_SHELL_CANDIDATES", (_executable(tmp_path, "chromium-headless-shell"),))
    monkeypatch.setenv("WEBCHAOS_CHROMIUM", mine)
    assert config.find_chromium(headless=True) == mine
    assert config.find_chromium() == mine

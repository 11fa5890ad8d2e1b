"""The Ray executor's parts that need no cluster: the install hint, the command check, shipping folders."""

import io
import os
import sys
import tarfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.cli.main import app
from harness.executors.ray_cluster import missing_program, pack_folder, unpack_folder


def test_without_ray_the_cli_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now raises ImportError
    out = CliRunner().invoke(app, ["run", "--task", "shop_add_to_cart", "--executor", "ray"])
    assert out.exit_code == 2
    assert "pip install 'webchaos[ray]'" in out.output


def test_cli_rejects_an_unknown_executor_and_ray_options_without_ray() -> None:
    out = CliRunner().invoke(app, ["run", "--executor", "spark"])
    assert out.exit_code == 2 and "'local' or 'ray'" in out.output
    out = CliRunner().invoke(app, ["run", "--workers", "3"])
    assert out.exit_code == 2 and "--executor ray" in out.output


def test_missing_program_names_what_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    path = os.path.dirname(sys.executable)
    (tmp_path / "agent.py").write_text("print('hi')\n")
    assert missing_program("python agent.py --fast", path) is None
    assert missing_program("FOO=1 python agent.py", path) is None
    assert missing_program("no-such-program-x --go", path) == "'no-such-program-x' is not on PATH"
    assert missing_program("python missing_agent.py", path) == f"'missing_agent.py' does not exist in {tmp_path}"
    assert missing_program("./run.sh", path) == f"'./run.sh' is not an executable file in {tmp_path}"
    assert "cannot parse" in (missing_program("python 'unclosed", path) or "")


def test_a_folder_travels_as_bytes_and_unpacks_the_same(tmp_path: Path) -> None:
    source = tmp_path / "episode"
    (source / "screenshots").mkdir(parents=True)
    (source / "trace.har").write_bytes(b'{"log": {}}' * 1000)
    (source / "screenshots" / "final-0.png").write_bytes(bytes(range(256)))
    target = tmp_path / "runs" / "episode"
    unpack_folder(pack_folder(source), target)
    assert {p.relative_to(target): p.read_bytes() for p in target.rglob("*") if p.is_file()} == \
        {p.relative_to(source): p.read_bytes() for p in source.rglob("*") if p.is_file()}


def test_an_archive_cannot_write_outside_its_folder(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        member = tarfile.TarInfo("../escaped.txt")
        member.size = 2
        archive.addfile(member, io.BytesIO(b"no"))
    with pytest.raises(tarfile.OutsideDestinationError):
        unpack_folder(buffer.getvalue(), tmp_path / "inside")
    assert not (tmp_path / "escaped.txt").exists()


def test_run_help_names_the_ray_extra() -> None:
    # rich reads "[ray]" as markup and drops it unless escaped: the help must say what to install
    out = CliRunner().invoke(app, ["run", "--help"], env={"COLUMNS": "400"})
    assert out.exit_code == 0
    assert "pip install 'webchaos[ray]'" in out.output

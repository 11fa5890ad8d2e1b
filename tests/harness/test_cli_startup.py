"""`webchaos --help`, `list` and `faults` start without the heavy parts: importing the command line loads no web
framework, browser driver, proxy or HTTP client (each command imports what it runs when it runs), and `list` and
`faults` print what they kept from an earlier run without loading the catalog, the sites or the fault plugins
(harness/cli/listings.py)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.config import PROJECT_ROOT

HEAVY = ("fastapi", "uvicorn", "starlette", "mitmproxy", "playwright", "aiohttp", "httpx", "jinja2", "ray",
         "sites.registry", "grader", "harness.agents", "harness.episodes")
# What `list` and `faults` derive their output from, and what typer would import to coerce an option not given
DERIVING = ("yaml", "pydantic", "asyncio", "scenarios.loader", "scenarios.faults", "sites", "injectors",
            "proxy_addons")


def test_importing_the_cli_loads_none_of_the_heavy_modules() -> None:
    probe = ("import json, sys, harness.cli.main; "
             f"print(json.dumps(sorted(m for m in {list(HEAVY)!r} if m in sys.modules)))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_help_lists_every_command() -> None:
    out = subprocess.run([sys.executable, "-m", "harness.cli.main", "--help"], capture_output=True, text=True,
                         cwd=PROJECT_ROOT, timeout=120, env={"COLUMNS": "200", "PATH": ""})
    assert out.returncode == 0, out.stderr
    for command in ("run", "script", "demo", "list", "faults", "grade", "report", "replay", "play", "up", "catalog",
                    "validate"):
        assert f" {command} " in out.stdout, command


def _run_and_list_modules(args: list[str], cache: Path) -> tuple[str, list[str]]:
    """Run `webchaos ARGS` in a fresh interpreter: its output, and which heavy or deriving modules it loaded."""
    watched = [*HEAVY, *DERIVING]
    probe = ("import json, sys\n"
             f"sys.argv = ['webchaos', *{args!r}]\n"
             "import harness.cli.main\n"
             "try:\n    harness.cli.main.main()\n"
             "finally:\n"
             f"    loaded = sorted(m for m in {watched!r} if m in sys.modules)\n"
             "    print(json.dumps(loaded), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300,
                         env={**os.environ, "XDG_CACHE_HOME": str(cache), "COLUMNS": "120"})
    assert out.returncode == 0, out.stderr
    return out.stdout, json.loads(out.stderr.splitlines()[-1])


@pytest.mark.parametrize("args", [["list"], ["faults"], ["faults", "--markdown"]])
def test_list_and_faults_print_what_they_kept_without_deriving_it_again(tmp_path: Path, args: list[str]) -> None:
    first, loaded_first = _run_and_list_modules(args, tmp_path)
    assert {"scenarios.faults", "pydantic"} <= set(loaded_first)  # the first run derives (nothing kept yet)
    assert first.strip()
    if args == ["list"]:
        assert "shop_add_to_cart [action] (shop;" in first  # each task with its kind
    again, loaded_again = _run_and_list_modules(args, tmp_path)
    assert again == first
    assert loaded_again == []


@pytest.mark.parametrize(("value", "why"), [("x", "valid integer"), ("0", "greater than or equal to 1")])
def test_an_option_given_is_still_coerced_and_checked(value: str, why: str) -> None:
    """typer builds an option's coercion only when a value comes (harness/cli/coercion.py): it still checks it."""
    out = subprocess.run([sys.executable, "-m", "harness.cli.main", "run", "-j", value], capture_output=True,
                         text=True, cwd=PROJECT_ROOT, timeout=120, env={**os.environ, "COLUMNS": "200"})
    assert out.returncode == 2
    assert "Invalid value for '--concurrency' / '-j'" in out.stderr and why in out.stderr, out.stderr


WEBCHAOS = str(Path(sys.executable).parent / "webchaos")


def _help(cache: Path, **env: str) -> tuple[str, bool]:
    """`webchaos --help` as the console script runs: what it printed, and whether typer was imported to print it."""
    probe = ("import runpy, sys\n"
             f"sys.argv = [{WEBCHAOS!r}, '--help']\n"
             "try:\n"
             f"    runpy.run_path({WEBCHAOS!r}, run_name='__main__')\n"
             "finally:\n"
             "    print('typer' in sys.modules, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=120,
                         env={**os.environ, "XDG_CACHE_HOME": str(cache), "COLUMNS": "100", **env})
    assert out.returncode == 0, out.stderr
    return out.stdout, out.stderr.splitlines()[-1] == "True"


def test_help_prints_what_typer_printed_for_the_same_inputs_without_importing_it(tmp_path: Path) -> None:
    first, typer_first = _help(tmp_path)
    assert typer_first and "Usage: webchaos [OPTIONS] COMMAND" in first
    again, typer_again = _help(tmp_path)
    assert again == first and not typer_again
    # another terminal width is another layout: typer prints it (and it is kept beside the first)
    wide, typer_wide = _help(tmp_path, COLUMNS="160")
    assert typer_wide and wide != first and max(len(line) for line in wide.splitlines()) > 100
    assert _help(tmp_path, COLUMNS="160") == (wide, False)
    assert _help(tmp_path) == (first, False)


def test_the_kept_help_follows_the_command_lines_sources_and_the_terminal(tmp_path: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.cli import derived, entry

    source = tmp_path / "cli"
    source.mkdir()
    (source / "main.py").write_text('"""Commands."""\n')
    monkeypatch.setattr(entry, "CLI_FOLDER", source)
    monkeypatch.setenv("COLUMNS", "100")
    settings = entry.terminal_settings()
    before = entry.help_inputs(settings)
    assert entry.help_inputs(entry.terminal_settings()) == before
    (source / "main.py").write_text('"""Commands, one more."""\n')
    assert entry.help_inputs(settings) != before
    for name, value in (("COLUMNS", "120"), ("NO_COLOR", "1"), ("TYPER_USE_RICH", "0"), ("LC_ALL", "C")):
        with monkeypatch.context() as changed:
            changed.setenv(name, value)
            assert entry.terminal_settings() != settings, name
    monkeypatch.setenv("PWD", "/elsewhere")  # what the help does not read leaves it alone
    assert entry.terminal_settings() == settings
    assert derived.python_files(source) == [source / "main.py"]

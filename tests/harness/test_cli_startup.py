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

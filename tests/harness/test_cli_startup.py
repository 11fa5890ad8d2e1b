"""`webchaos --help` starts without the heavy parts: importing the command line loads no web framework, browser
driver, proxy or HTTP client (each command imports what it runs when it runs)."""

import json
import subprocess
import sys

from harness.config import PROJECT_ROOT

HEAVY = ("fastapi", "uvicorn", "starlette", "mitmproxy", "playwright", "aiohttp", "httpx", "jinja2", "ray",
         "sites.registry", "grader", "harness.agents", "harness.episodes")


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

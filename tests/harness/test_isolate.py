"""`--isolate` (issue 10): a `cmd:` agent in its own namespaces reaches its proxy port and nothing else."""

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.agents import CommandAgent, agents_from_specs
from harness.agents.isolate import check
from harness.config import PROJECT_ROOT
from harness.services.processes import Services
from tests.harness.episodes import episode_dir, run

pytestmark = [pytest.mark.e2e]
ON_STACK_LOOP = pytest.mark.asyncio(loop_scope="module")  # the module-scoped `stack` fixture's loop

# What a hostile agent tries from inside: every port of the stack it can name, and a look at /proc.
PROBE = r"""
import json, os, socket, sys, urllib.request
out = {}
for name, port in (("oracle", int(sys.argv[1])), ("sites", int(sys.argv[2])), ("control", int(sys.argv[3]))):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=3).close()
        out[name] = "connected"
    except OSError as exc:
        out[name] = type(exc).__name__
with urllib.request.urlopen(os.environ["WEBCHAOS_START_URL"], timeout=10) as r:  # through HTTP_PROXY
    out["site_status"] = r.status
out["pids"] = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
out["service_visible"] = os.path.exists(f"/proc/{sys.argv[4]}")
json.dump(out, open(os.path.join(os.environ["WEBCHAOS_OUT_DIR"], "probe.json"), "w"))
"""


@ON_STACK_LOOP
async def test_an_isolated_agent_reaches_only_its_proxy(stack: Services, tmp_path: Path) -> None:
    check()
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    proxy_pid = stack.services[1].process.pid  # type: ignore[union-attr]
    command = (f"{sys.executable} {script} {stack.oracle_port} {stack.sites_port} {stack.control_port} "
               f"{proxy_pid}")
    for isolate in (False, True):
        agent = CommandAgent(command, name=f"probe-{isolate}", isolate=isolate)
        (result,) = await run(stack, tmp_path / str(isolate), "shop_add_to_cart", None, [agent])
        folder = episode_dir(tmp_path / str(isolate), result)
        assert result.outcome.status == "done", (folder / "agent.log").read_text()
        probe = json.loads((folder / "probe.json").read_text())
        assert probe["site_status"] == 200
        if not isolate:  # what the flag takes away: the agent can connect to every service
            assert probe["oracle"] == probe["sites"] == probe["control"] == "connected"
            assert probe["service_visible"]
            continue
        assert probe["oracle"] == probe["sites"] == probe["control"] == "ConnectionRefusedError", probe
        assert not probe["service_visible"] and max(probe["pids"]) < 100, probe


@ON_STACK_LOOP
async def test_an_isolated_http_agent_completes_a_task(stack: Services, tmp_path: Path) -> None:
    (agent,) = agents_from_specs([f"cmd:{sys.executable} {PROJECT_ROOT / 'examples' / 'http_agent.py'}"],
                                 isolate=True)
    assert isinstance(agent, CommandAgent) and agent.isolate
    (result,) = await run(stack, tmp_path, "shop_add_to_cart", None, [agent], seed=4)
    assert result.outcome.status == "done", (episode_dir(tmp_path, result) / "agent.log").read_text()
    assert result.success, result.verdict


WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]


def test_cli_run_isolate_completes_a_task(tmp_path: Path) -> None:
    agent = f"cmd:{sys.executable} {PROJECT_ROOT / 'examples' / 'http_agent.py'}"
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "200"}
    # One episode: a client-layer variant (the injected script does nothing to a browserless agent).
    out = subprocess.run([*WEBCHAOS, "run", "-t", "shop_add_to_cart", "-v", "shop_product_overlay_returns",
                          "--no-base", "--isolate", "-a", agent,
                          "--runs-dir", str(tmp_path / "runs"), "--run-id", "iso"],
                         capture_output=True, text=True, cwd=PROJECT_ROOT, env=env, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    (result,) = json.loads((tmp_path / "runs" / "iso" / "run.json").read_text())["episodes"]
    assert result["success"], result


def test_cli_up_isolate_prints_a_command_that_runs_an_agent_isolated(tmp_path: Path) -> None:
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "400"}
    process = subprocess.Popen([*WEBCHAOS, "up", "-t", "shop_add_to_cart", "--isolate", "--runs-dir",
                                str(tmp_path / "runs")], cwd=PROJECT_ROOT, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert process.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any("Press Enter" in line for line in lines):
        lines.append(process.stdout.readline().strip("│ \n"))
    try:
        fields = {m.group(1): m.group(2) for line in lines if (m := re.match(r"^(proxy|start URL|instruction)\s+(.+)$",
                                                                             line))}
        (prefix,) = [line.split(" sh -c ")[0] for line in lines if "harness.agents.isolate --forward" in line]
        agent_env = {**os.environ, "WEBCHAOS_PROXY": fields["proxy"], "HTTP_PROXY": fields["proxy"],
                     "WEBCHAOS_START_URL": fields["start URL"], "WEBCHAOS_INSTRUCTION": fields["instruction"]}
        probe = "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 2)"
        oracle_port = 1  # any port but the proxy's: nothing else listens in there
        ran = subprocess.run([*shlex.split(prefix), "sh", "-c",
                              f"{sys.executable} -c \"{probe}\" {oracle_port} 2>&1 | tail -1; "
                              f"{sys.executable} {PROJECT_ROOT / 'examples' / 'http_agent.py'}"],
                             env=agent_env, capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stdout + ran.stderr
        assert "ConnectionRefusedError" in ran.stdout
    finally:
        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=60)
    assert process.returncode == 0, rest
    assert "success" in rest, rest


@ON_STACK_LOOP
async def test_an_isolated_cdp_agent_drives_its_episodes_chromium(stack: Services, tmp_path: Path) -> None:
    """With --browser cdp the DevTools port is relayed too (same number), so Playwright attaches as usual."""
    agent = CommandAgent(f"{sys.executable} {PROJECT_ROOT / 'examples' / 'playwright_cdp_agent.py'}", cdp=True,
                         isolate=True)
    (result,) = await run(stack, tmp_path, "shop_add_to_cart", None, [agent], seed=6)
    assert result.outcome.status == "done", (episode_dir(tmp_path, result) / "agent.log").read_text()
    assert result.success, result.verdict

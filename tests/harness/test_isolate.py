"""`--isolate` (issue 10): a `cmd:` agent in its own namespaces reaches its proxy port and nothing else."""

import json
import sys
from pathlib import Path

import pytest

from harness.agents import CommandAgent, agents_from_specs
from harness.config import PROJECT_ROOT
from harness.isolate import check
from harness.stack import Stack
from tests.harness.episodes import episode_dir, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

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


async def test_an_isolated_agent_reaches_only_its_proxy(stack: Stack, tmp_path: Path) -> None:
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


async def test_an_isolated_http_agent_completes_a_task(stack: Stack, tmp_path: Path) -> None:
    (agent,) = agents_from_specs([f"cmd:{sys.executable} {PROJECT_ROOT / 'examples' / 'http_agent.py'}"],
                                 isolate=True)
    assert isinstance(agent, CommandAgent) and agent.isolate
    (result,) = await run(stack, tmp_path, "shop_add_to_cart", None, [agent], seed=4)
    assert result.outcome.status == "done", (episode_dir(tmp_path, result) / "agent.log").read_text()
    assert result.success, result.verdict

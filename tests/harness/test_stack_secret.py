"""Defect 3 of issue 10: the oracle, the control API and the raw sites server answer only holders of the
stack's secret. A plain HTTP client on loopback (what a `cmd:` agent that ran `ss -ltnp` is) is refused;
the agent's own path, its episode's proxy port, still works, and so does grading."""

import json
import os
import subprocess
import sys
from pathlib import Path

import aiohttp
import pytest

from harness.agents import CommandAgent
from harness.agents.base import EpisodeContext
from harness.config import PROJECT_ROOT, free_port
from harness.episodes.manager import EpisodeManager, EpisodeSpec
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services, proxy_command
from scenarios.secret import SECRET_HEADER
from tests.harness.episodes import CATALOG, episode_dir, run

pytestmark = [pytest.mark.e2e]
ON_STACK_LOOP = pytest.mark.asyncio(loop_scope="module")  # the module-scoped `stack` fixture's loop


def _probes(stack: Services, episode_id: str) -> list[tuple[str, str, dict[str, str], object]]:
    """(method, url, extra headers, json body) an attacker on loopback would try."""
    site = {"host": "shop.test", "x-webchaos-episode": episode_id}
    return [
        ("GET", f"{stack.oracle_url}/health", {}, None),
        ("GET", f"{stack.oracle_url}/episodes", {}, None),
        ("GET", f"{stack.oracle_url}/episodes/{episode_id}", {}, None),  # the bindings: the task's answer
        ("GET", f"{stack.oracle_url}/episodes/{episode_id}/state", {}, None),
        ("DELETE", f"{stack.oracle_url}/episodes/{episode_id}", {}, None),
        ("GET", f"{stack.control_url}/health", {}, None),
        ("GET", f"{stack.control_url}/episodes/{episode_id}/har", {}, None),
        ("POST", f"{stack.control_url}/episodes", {}, {"episode_id": "evil", "seed": 1, "out_dir": "/tmp/x"}),
        ("DELETE", f"{stack.control_url}/episodes/{episode_id}", {}, None),
        ("GET", f"http://127.0.0.1:{stack.sites_port}/", site, None),
        ("GET", f"http://127.0.0.1:{stack.sites_port}/api/cart", site, None),
        ("POST", f"http://127.0.0.1:{stack.sites_port}/api/cart", site, {"product_id": "p1", "quantity": 1}),
    ]


@ON_STACK_LOOP
async def test_loopback_clients_without_the_secret_are_refused_everywhere(stack: Services, tmp_path: Path) -> None:
    spec = EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], None, 1)
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    manager = EpisodeManager(oracle, control)
    episode = await manager.open(spec, "secret-probe", tmp_path / "ep")
    try:
        before = await oracle.state_bytes("secret-probe")
        async with aiohttp.ClientSession() as session:
            for wrong in ({}, {SECRET_HEADER: ""}, {SECRET_HEADER: "x" * 43},
                          {SECRET_HEADER: stack.secret[:-1]}, {SECRET_HEADER: stack.secret + "x"}):
                for method, url, headers, body in _probes(stack, "secret-probe"):
                    async with session.request(method, url, headers={**headers, **wrong}, json=body) as response:
                        text = await response.text()
                        assert response.status == 401, (method, url, wrong, response.status, text)
                        assert SECRET_HEADER in text and "proxy port" in text
                        assert "bindings" not in text and stack.secret not in text
            # The agent's path: the episode's proxy port, where the proxy adds the secret itself; a copy the
            # agent sends (right or wrong) is stripped, never forwarded.
            async with session.get("http://shop.test/", proxy=episode.proxy_url,
                                   headers={SECRET_HEADER: "guess"}) as site:
                assert site.status == 200
                assert "<html" in (await site.text()).lower()
            async with session.post("http://shop.test/api/cart", proxy=episode.proxy_url,
                                    json={"product_id": "nope", "quantity": 1}) as write:
                assert write.status == 404  # a site answer, not a refusal
        assert await oracle.state_bytes("secret-probe") == before  # nothing the probes sent reached the state
        await manager.close(episode)
    finally:
        await oracle.close()
        await control.close()
    har = (tmp_path / "ep" / "trace.har").read_text()
    assert json.loads(har)["log"]["entries"] and stack.secret not in har
    for path in (tmp_path / "ep").rglob("*"):
        if path.is_file():
            assert stack.secret.encode() not in path.read_bytes(), path


@ON_STACK_LOOP
async def test_the_secret_is_in_no_argv_environment_or_state_file(stack: Services, tmp_path: Path) -> None:
    secret = stack.secret.encode()
    assert len(stack.secret) >= 40
    for service in stack.services:
        assert service.process is not None
        proc = Path(f"/proc/{service.process.pid}")
        assert secret not in (proc / "cmdline").read_bytes(), service.name
        assert secret not in (proc / "environ").read_bytes(), service.name
        assert service.secret_pipe_name is not None and service.secret_pipe_name.startswith("pipe:[")
        # (that pipe, not any pipe: a process may open pipes of its own, as event loops such as uvloop do)
        assert service.secret_pipe_name not in [str(fd.readlink()) for fd in (proc / "fd").iterdir()], \
            f"{service.name} kept the secret's pipe open"
        status = (proc / "status").read_text()
        assert service.process.returncode is None, status
    for path in stack.state_dir.rglob("*"):
        if path.is_file():
            assert secret not in path.read_bytes(), path
    agent = CommandAgent("true")
    ctx = EpisodeContext(episode_id="e", task=CATALOG.tasks["shop_add_to_cart"], variant=None, seed=1,
                         instruction="i", start_url="http://shop.test/", proxy_url="http://127.0.0.1:1",
                         plan=[], out_dir=tmp_path, browser=None, time_budget_s=1)
    assert not [k for k, v in agent.environment(ctx).items() if stack.secret in v]


@ON_STACK_LOOP
async def test_a_command_agent_completes_and_is_graded_with_the_secret_on(stack: Services, tmp_path: Path) -> None:
    agent = CommandAgent(f"{sys.executable} {PROJECT_ROOT / 'examples' / 'http_agent.py'}")
    (result,) = await run(stack, tmp_path, "shop_add_to_cart", None, [agent], seed=2)
    folder = episode_dir(tmp_path, result)
    assert result.outcome.status == "done", (folder / "agent.log").read_text()
    assert result.success, result.verdict
    assert stack.secret not in (folder / "trace.har").read_text()


def test_services_refuse_to_start_without_a_secret(tmp_path: Path) -> None:
    sites = subprocess.run([sys.executable, "-m", "sites.server", "--port", "1", "--oracle-port", "2"],
                           capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)
    assert sites.returncode == 2 and "--secret-fd" in sites.stderr
    short = os.pipe()
    os.write(short[1], b"short\n")
    os.close(short[1])
    sites = subprocess.run([sys.executable, "-m", "sites.server", "--secret-fd", str(short[0])],
                           capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60, pass_fds=(short[0],))
    os.close(short[0])
    assert sites.returncode == 2 and "16 to 1024 characters" in sites.stderr
    command = proxy_command(Path(sys.executable), 1, free_port(), tmp_path)
    at = command.index("webchaos_secret_fd={secret_fd}")
    del command[at - 1:at + 1]  # the stack command without its secret
    proxy = subprocess.run(command, capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)
    assert proxy.returncode != 0 and "needs the stack's secret" in proxy.stdout + proxy.stderr

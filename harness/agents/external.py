"""Any program as an agent: `--agent cmd:"python my_agent.py"`.

The command runs with the episode in its environment and is graded when it
exits. It reaches the sites only through WEBCHAOS_PROXY.

`HTTP_PROXY`/`http_proxy` point at the episode's proxy so that plain HTTP clients
reach the `*.test` sites; loopback is exempt (`NO_PROXY`/`no_proxy`), so a client
that talks to something on this machine (Selenium to its chromedriver, an agent to a
local model server) is not sent into the proxy, which would refuse it.

With `isolate`, the command runs in namespaces of its own (harness/agents/isolate.py) where
127.0.0.1 has only its episode's proxy port (and, with `cdp`, its Chromium's DevTools
port), relayed from outside: the oracle, the control API, the sites server and other
episodes' ports cannot be reached at all. The environment is the same.
"""

import asyncio
import contextlib
import os
import re
import shlex
import signal
import sys
from collections.abc import Sequence
from typing import Any

from harness.agents.base import AgentOutcome, EpisodeContext
from harness.agents.isolate import SETUP_FAILED, PortRelay, port_of
from harness.agents.usage import USAGE_FILE, UsageFileError, read_usage
from scenarios.answers import ANSWER_FILE, AnswerFileError, read_answer

# Names and addresses, since clients differ: Python's urllib and Selenium match names and
# addresses literally, requests, curl and Go also take the CIDR block. Not "[::1]": httpx
# refuses to start with it.
LOOPBACK_NO_PROXY = "localhost,127.0.0.1,::1,127.0.0.0/8"


class CommandAgent:
    """With `cdp`, the episode launches its own Chromium (on the episode's proxy, start URL open)
    and the command gets its DevTools endpoint as WEBCHAOS_CDP_URL."""

    needs_browser = False

    def __init__(self, command: str, name: str | None = None, cdp: bool = False,
                 chromium_args: Sequence[str] = (), isolate: bool = False) -> None:
        if not command.strip():
            raise ValueError("cmd agent: the command is empty")
        self.command = command
        self.name = name or name_from_command(command)
        self.needs_cdp = cdp
        self.chromium_args = list(chromium_args)  # extra flags for the episode's Chromium (with cdp)
        self.isolate = isolate  # own network namespace: only the episode's ports reachable

    def environment(self, ctx: EpisodeContext) -> dict[str, str]:
        env = dict(os.environ)
        env.update({
            "WEBCHAOS_PROXY": ctx.proxy_url,
            "WEBCHAOS_START_URL": ctx.start_url,
            "WEBCHAOS_INSTRUCTION": ctx.instruction,
            "WEBCHAOS_EPISODE": ctx.episode_id,
            "WEBCHAOS_OUT_DIR": str(ctx.out_dir),
            "WEBCHAOS_ANSWER_FILE": str(ctx.out_dir / ANSWER_FILE),
            "WEBCHAOS_USAGE_FILE": str(ctx.out_dir / USAGE_FILE),
            # Common clients honour these, so plain `requests`/`curl` go through the proxy too.
            "HTTP_PROXY": ctx.proxy_url,
            "http_proxy": ctx.proxy_url,
            "NO_PROXY": LOOPBACK_NO_PROXY,
            "no_proxy": LOOPBACK_NO_PROXY,
        })
        if ctx.cdp_url:
            env["WEBCHAOS_CDP_URL"] = ctx.cdp_url
        # `python` in the command is the interpreter webchaos runs in (its venv has Playwright), as a user
        # expects after `source .venv/bin/activate`; an explicit path still picks another one.
        env["PATH"] = os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", os.defpath)])
        return env

    async def run(self, ctx: EpisodeContext) -> AgentOutcome:
        if not self.isolate:
            outcome = await self._run(ctx, None)
        else:
            ports = [port_of(ctx.proxy_url)] + ([port_of(ctx.cdp_url)] if ctx.cdp_url else [])
            async with PortRelay(ports) as relay:
                outcome = await self._run(ctx, relay)
        return with_usage_file(with_answer_file(outcome, ctx), ctx)

    async def _run(self, ctx: EpisodeContext, relay: PortRelay | None) -> AgentOutcome:
        ctx.out_dir.mkdir(parents=True, exist_ok=True)
        with (ctx.out_dir / "agent.log").open("wb") as log:
            options: dict[str, Any] = dict(stdin=asyncio.subprocess.DEVNULL, stdout=log,
                                           stderr=asyncio.subprocess.STDOUT, env=self.environment(ctx),
                                           start_new_session=True)
            if relay is None:
                process = await asyncio.create_subprocess_shell(self.command, **options)
            else:
                process = await asyncio.create_subprocess_exec(*relay.command(self.command), **options)
            try:
                code = await asyncio.wait_for(process.wait(), ctx.time_budget_s)
            except TimeoutError:
                _kill_group(process.pid)
                await process.wait()
                return AgentOutcome(status="timeout", error=f"no exit after {ctx.time_budget_s:.0f}s")
            finally:
                if process.returncode is None:  # cancelled (Ctrl-C): leave no orphan
                    _kill_group(process.pid)
        if relay is not None and code == SETUP_FAILED:
            return AgentOutcome(status="error", error="--isolate: could not make the agent's namespaces (agent.log)")
        if code < 0 or (code > 128 and code - 128 in _SIGNALS_FROM_OUTSIDE):  # by signal (or its shell says so)
            number = -code if code < 0 else code - 128
            name = _signal_name(number)
            return AgentOutcome(status="error", signal=name, pid=process.pid,
                                error=f"command (pid {process.pid}) ended by {name}")
        if code != 0:
            return AgentOutcome(status="error", error=f"command exited with status {code}")
        return AgentOutcome(status="done")


def with_answer_file(outcome: AgentOutcome, ctx: EpisodeContext) -> AgentOutcome:
    """The outcome with the answer the command left in WEBCHAOS_ANSWER_FILE (a malformed file is no
    answer, and says why in `error`)."""
    try:
        answer = read_answer(ctx.out_dir / ANSWER_FILE)
    except AnswerFileError as exc:
        return outcome.model_copy(update={"error": outcome.error or f"answer file: {exc}",
                                          "log": [*outcome.log, f"answer file refused: {exc}"]})
    return outcome.model_copy(update={"answer": answer if answer.given else None})


def with_usage_file(outcome: AgentOutcome, ctx: EpisodeContext) -> AgentOutcome:
    """The outcome with the usage the command left in usage.json (WEBCHAOS_USAGE_FILE); a malformed file is
    no usage, and says why in `error` and the log: the episode is graded all the same."""
    try:
        usage = read_usage(ctx.out_dir / USAGE_FILE)
    except UsageFileError as exc:
        return outcome.model_copy(update={"error": outcome.error or f"usage file: {exc}",
                                          "log": [*outcome.log, f"usage file refused: {exc}"]})
    return outcome.model_copy(update={"usage": usage})


# Signals that come from outside the agent (a user, a test, the OOM killer, a supervisor): an agent
# process ended by one of these did not fail, it was stopped; the episode is an infrastructure error.
# A crash of its own (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL) or any exit status is the agent's failure.
_SIGNALS_FROM_OUTSIDE = frozenset({signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT})


def killed_from_outside(outcome: AgentOutcome) -> bool:
    """Whether an agent's process was ended by a signal sent from outside (see `_SIGNALS_FROM_OUTSIDE`)."""
    return outcome.signal is not None and outcome.signal in {s.name for s in _SIGNALS_FROM_OUTSIDE}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


_RUNNERS = {"python", "python3", "node", "npx", "uv", "uvx", "run", "bash", "sh", "env", "exec", "poetry",
            "pipenv", "deno", "bun", "ruby", "perl", "timeout"}


def name_from_command(command: str) -> str:
    """A short agent name from its command: the script or module it runs, not the interpreter.

    'python examples/selenium_agent.py' -> 'selenium_agent'; '.venv/bin/python -m my.agent' -> 'my.agent';
    'FOO=1 node agent.mjs --fast' -> 'agent'."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    for word in words:
        if "=" in word.split("/")[0] or word.startswith("-"):
            continue  # VAR=value, or an option of the runner
        if word.startswith("@"):  # an npm package: @scope/name[@version]
            word = word[1:].split("@")[0].replace("/", "_")
        base = word.rstrip("/").rsplit("/", 1)[-1]
        if base in _RUNNERS or re.fullmatch(r"(python|pypy)[0-9.]*", base) or base.isdigit():
            continue
        stem = re.sub(r"\.(py|mjs|cjs|js|ts|sh|rb)$", "", base)
        clean = re.sub(r"[^A-Za-z0-9._-]+", "_", stem).strip("._-")
        if clean:
            return clean[:40]
    return "cmd"


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)

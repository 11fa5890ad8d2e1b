"""Agents the harness can run: the reference agent and any external command."""

import re
from collections.abc import Sequence

from harness.agents.base import Agent, AgentOutcome, EpisodeContext
from harness.agents.external import CommandAgent, name_from_command
from harness.agents.reference import ReferenceAgent
from scenarios.faults import Primitive

__all__ = ["Agent", "AgentOutcome", "CommandAgent", "EpisodeContext", "ReferenceAgent", "agent_from_spec",
           "agents_from_specs", "name_from_command"]

_NAMED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,39})=(.+)$", re.S)


def agent_from_spec(spec: str, browser: str = "proxy", chromium_args: Sequence[str] = (),
                    isolate: bool = False) -> Agent:
    """'reference', 'reference-no-recovery', 'reference-without-<primitive>' (every recovery but that
    primitive's) or 'cmd:<shell command>', optionally 'NAME=' first.

    `browser`: 'proxy' (the command gets a proxy URL) or 'cdp' (it also gets WEBCHAOS_CDP_URL, the
    DevTools endpoint of a Chromium webchaos launches on the episode's proxy). `isolate`: a command
    runs in its own network namespace (harness/agents/isolate.py); the reference agent runs in-process."""
    if browser not in ("proxy", "cdp"):
        raise ValueError(f"unknown browser mode {browser!r}; use 'proxy' or 'cdp'")
    name: str | None = None
    named = _NAMED.match(spec)
    if named and not spec.startswith("cmd:"):
        name, spec = named.group(1), named.group(2)
    agent: Agent
    if spec == "reference":
        agent = ReferenceAgent(recovery=True)
    elif spec in ("reference-no-recovery", "reference:norecovery"):
        agent = ReferenceAgent(recovery=False)
    elif spec.startswith("reference-without-"):
        lacking = spec.removeprefix("reference-without-")
        if lacking not in {p.value for p in Primitive}:
            raise ValueError(f"unknown primitive {lacking!r} in {spec!r}; one of: "
                             + ", ".join(p.value for p in Primitive))
        agent = ReferenceAgent(recovery=True, without=Primitive(lacking))
    elif spec.startswith("cmd:"):
        agent = CommandAgent(spec[4:], name=name, cdp=browser == "cdp", chromium_args=chromium_args,
                             isolate=isolate)
    else:
        raise ValueError(f"unknown agent {spec!r}; use 'reference', 'reference-no-recovery' or 'cmd:<command>', "
                         f"optionally named: NAME=cmd:<command>")
    if name is not None:
        agent.name = name
    return agent


def agents_from_specs(specs: Sequence[str], browser: str = "proxy", chromium_args: Sequence[str] = (),
                      isolate: bool = False) -> list[Agent]:
    """Every agent of a run, each with a name of its own: two agents may not share an explicit name,
    and a name derived from a command gets -2, -3 … when it is taken."""
    agents = [agent_from_spec(s, browser, chromium_args, isolate) for s in specs]
    explicit = [a.name for s, a in zip(specs, agents, strict=True) if _NAMED.match(s) and not s.startswith("cmd:")]
    clash = sorted({n for n in explicit if explicit.count(n) > 1})
    if clash:
        raise ValueError(f"two agents are named {clash[0]!r}: give each its own NAME=")
    taken: set[str] = set(explicit)
    for spec, agent in zip(specs, agents, strict=True):
        if _NAMED.match(spec) and not spec.startswith("cmd:"):
            continue
        base, number = agent.name, 1
        while agent.name in taken:
            number += 1
            agent.name = f"{base}-{number}"
        taken.add(agent.name)
    return agents

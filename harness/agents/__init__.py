"""Agents the harness can run: the reference agent and any external command."""

from harness.agents.base import Agent, AgentOutcome, EpisodeContext
from harness.agents.external import CommandAgent
from harness.agents.reference import ReferenceAgent

__all__ = ["Agent", "AgentOutcome", "CommandAgent", "EpisodeContext", "ReferenceAgent", "agent_from_spec"]


def agent_from_spec(spec: str) -> Agent:
    """'reference', 'reference-no-recovery' or 'cmd:<shell command>'."""
    if spec == "reference":
        return ReferenceAgent(recovery=True)
    if spec in ("reference-no-recovery", "reference:norecovery"):
        return ReferenceAgent(recovery=False)
    if spec.startswith("cmd:"):
        return CommandAgent(spec[4:])
    raise ValueError(f"unknown agent {spec!r}; use 'reference', 'reference-no-recovery' or 'cmd:<command>'")

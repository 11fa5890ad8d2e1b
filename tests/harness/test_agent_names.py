"""Agent names: NAME=… specs, names derived from commands, no two agents of a run sharing one."""

import pytest

from harness.agents import CommandAgent, ReferenceAgent, agent_from_spec, agents_from_specs, name_from_command
from harness.reporting.table import agent_totals, results_table
from harness.run.runner import agent_info


@pytest.mark.parametrize(("command", "name"), [
    ("python examples/selenium_agent.py", "selenium_agent"),
    (".venv/bin/python -m my_team.agent --fast", "my_team.agent"),
    ("FOO=1 node agents/agent.mjs", "agent"),
    ("python3 -u x/y/agent_b.py --seed 3", "agent_b"),
    ("timeout 30 ./run.sh", "run"),
    ("npx @playwright/mcp --cdp-endpoint x", "playwright_mcp"),
    ("'unbalanced", "unbalanced"),
])
def test_name_from_command(command: str, name: str) -> None:
    assert name_from_command(command) == name


def test_named_specs_and_derived_names_are_unique() -> None:
    agents = agents_from_specs(["cmd:python a.py", "cmd:python a.py", "fast=cmd:python a.py --fast",
                                "reference", "careful=reference"], browser="cdp")
    assert [a.name for a in agents] == ["a", "a-2", "fast", "reference", "careful"]
    assert isinstance(agents[2], CommandAgent) and agents[2].command == "python a.py --fast"
    assert agents[2].needs_cdp and isinstance(agents[4], ReferenceAgent) and agents[4].recovery
    # The "=" inside a command is part of the command, not a name.
    assert agent_from_spec("cmd:FOO=1 python b.py").name == "b"
    assert agent_info(agents[2]).model_dump() == {"name": "fast", "kind": "command",
                                                  "command": "python a.py --fast", "browser": "cdp"}


def test_duplicate_explicit_names_and_unknown_modes_are_refused() -> None:
    with pytest.raises(ValueError, match="two agents are named 'x'"):
        agents_from_specs(["x=cmd:python a.py", "x=reference"])
    with pytest.raises(ValueError, match="unknown browser mode"):
        agent_from_spec("cmd:true", browser="firefox")
    with pytest.raises(ValueError, match="unknown agent"):
        agent_from_spec("x=nothing")


def test_tables_carry_each_agents_name() -> None:
    from rich.console import Console

    from harness.agents.base import AgentOutcome
    from harness.run.results import EpisodeResult, RunSummary

    def result(agent: str, ok: bool) -> EpisodeResult:
        return EpisodeResult(episode_id=f"e-{agent}", task_id="t", variant_id=None, target_primitive=None, seed=1,
                             agent=agent, instruction="", success=ok, score=float(ok),
                             outcome=AgentOutcome(status="done"))

    summary = RunSummary(run_id="r", started_at="now", planned=2,
                         episodes=[result("alpha", True), result("beta", False)])
    console = Console(width=200, record=True)
    console.print(results_table(summary))
    console.print(agent_totals(summary))
    text = console.export_text()
    assert "alpha" in text and "beta" in text and "1/1 100%" in text and "0/1 0%" in text

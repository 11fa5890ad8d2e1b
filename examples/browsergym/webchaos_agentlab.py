"""run_scripted.py's scripted agent as an AgentLab agent (AgentLab pickles agents by reference: they live in a
module, not in the script that runs them, agentlab_study.py)."""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agentlab.agents.agent_args import AgentArgs
from browsergym.experiments.agent import Agent

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run_scripted  # beside this module, found through the path set above
import webchaos_browsergym


class Observation(Mapping[str, Any]):
    """BrowserGym's observation, read-only and not a dict: AgentLab then counts no tokens in it (its counter
    fetches a tokenizer's encoding over the network at run time)."""

    def __init__(self, obs: dict[str, Any]) -> None:
        self._obs = obs

    def __getitem__(self, key: str) -> Any:
        return self._obs[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._obs)

    def __len__(self) -> int:
        return len(self._obs)

    def copy(self) -> Observation:  # AgentLab hands the agent a copy
        return Observation(dict(self._obs))


class ScriptedAgent(Agent):
    """run_scripted.py's policy for the episode's task, fed AgentLab's observations."""

    def __init__(self) -> None:
        self.policy: Any = None
        self.task_name = ""

    def set_task_name(self, task_name: str) -> None:
        self.task_name = task_name

    def obs_preprocessor(self, obs: dict[str, Any]) -> Observation:
        return Observation(obs)

    def get_action(self, obs: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
        try:
            if self.policy is None:
                task = self.task_name.split(".")[1]
                self.policy = run_scripted.POLICIES[task](obs["goal"], obs)
                return next(self.policy), {}
            return self.policy.send(obs), {}
        except StopIteration:
            return None, {}


@dataclass
class ScriptedAgentArgs(AgentArgs):
    agent_name: str = "webchaos-scripted"

    def make_agent(self) -> ScriptedAgent:
        webchaos_browsergym.register_entries([{"task": task, "variant": variant}
                                              for task, variant in run_scripted.EPISODES])
        return ScriptedAgent()

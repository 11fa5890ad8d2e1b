"""What an agent is to the harness, and what it reports back."""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from harness.agents.usage import Usage
from scenarios.answers import Answer
from scenarios.schema import PlanStep, Task, Variant

if TYPE_CHECKING:
    from harness.browser.pool import BrowserPool


@dataclass
class EpisodeContext:
    """Everything an agent may know about its episode (never the oracle)."""

    episode_id: str
    task: Task
    variant: Variant | None
    seed: int
    instruction: str
    start_url: str
    proxy_url: str
    plan: list[PlanStep]
    out_dir: Path
    browser: "BrowserPool | None"
    time_budget_s: float
    # The DevTools endpoint of the episode's own Chromium, for an agent that declares `needs_cdp`.
    cdp_url: str | None = None


class AgentOutcome(BaseModel):
    status: Literal["done", "failed", "error", "timeout"]
    steps_done: int = 0
    steps_total: int = 0
    attempts: int = 0
    recoveries: int = 0
    error: str | None = None
    signal: str | None = Field(default=None, description="the signal that ended a `cmd:` agent's process")
    pid: int | None = Field(default=None, description="a `cmd:` agent's process (its shell), when ended by a signal")
    log: list[str] = Field(default_factory=list)
    answer: Answer | None = Field(default=None, description="what the agent answered (None: nothing)")
    usage: Usage | None = Field(default=None, description="tokens and cost the agent reported (None: not reported)")


class Agent(Protocol):
    """`needs_browser`: give it the run's BrowserPool (a Playwright context per episode). An agent may
    also set `needs_cdp = True`: the episode then launches its own Chromium and `ctx.cdp_url` is set."""

    name: str
    needs_browser: bool

    async def run(self, ctx: EpisodeContext) -> AgentOutcome: ...

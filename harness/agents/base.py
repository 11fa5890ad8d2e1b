"""What an agent is to the harness, and what it reports back."""

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from pydantic import BaseModel, Field

from scenarios.schema import PlanStep, Task, Variant

if TYPE_CHECKING:
    from harness.browser import BrowserPool


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


class AgentOutcome(BaseModel):
    status: Literal["done", "failed", "error", "timeout"]
    steps_done: int = 0
    steps_total: int = 0
    attempts: int = 0
    recoveries: int = 0
    error: str | None = None
    log: list[str] = Field(default_factory=list)


class Agent(Protocol):
    name: str
    needs_browser: bool

    async def run(self, ctx: EpisodeContext) -> AgentOutcome: ...

"""Typed results: one per episode (result.json) and one per run (run.json)."""

import json
import os
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from grader.verdict import Verdict
from harness.agents.base import AgentOutcome


class EpisodeTimings(BaseModel):
    open_ms: float = 0.0
    agent_ms: float = 0.0
    close_ms: float = 0.0
    grade_ms: float = 0.0
    total_ms: float = 0.0


class InfraError(BaseModel):
    """Why an episode could not be run to a verdict: a webchaos process failed, not the agent.

    `process`: "sites server", "proxy", "chromium", "agent" (a `cmd:` agent's process killed by a
    signal from outside: SIGKILL, SIGTERM, SIGINT, SIGHUP, SIGQUIT) or "harness" (anything else
    the harness could not do, e.g. a failed request to the oracle)."""

    process: str
    cause: str = Field(description="one line: which process, its pid, how it ended")
    pid: int | None = None
    signal: str | None = Field(default=None, description="the signal that ended it, e.g. SIGKILL")
    exit_code: int | None = None


class EpisodeResult(BaseModel):
    episode_id: str
    task_id: str
    variant_id: str | None
    target_primitive: str | None
    seed: int
    site: str | None = None
    agent: str
    instruction: str
    success: bool
    score: float
    verdict: Verdict | None = None
    outcome: AgentOutcome
    firings: int = Field(default=0, description="fault firings in the ledger")
    timings: EpisodeTimings = EpisodeTimings()
    error: str | None = Field(default=None, description="harness error, if the episode could not run")
    status: Literal["graded", "infra_error"] = Field(
        default="graded", description="infra_error: webchaos itself failed (see `infra`); not the agent's doing, "
        "left out of every aggregate and rerun by `webchaos run --resume`")
    infra: InfraError | None = None
    profile: str | None = Field(default=None, description="the chaos profile laid over the episode, if any")
    script: str | None = Field(default=None, description="the scenario script run beside the agent, if any")

    @property
    def infra_failed(self) -> bool:
        """Not a verdict on the agent: an infrastructure error (or, in older run.json files, a harness error)."""
        return self.status == "infra_error" or self.error is not None


class AgentInfo(BaseModel):
    """An agent of a run, by the name its episodes carry."""

    name: str
    kind: str = Field(description="reference | command")
    command: str | None = None
    browser: str = Field(default="proxy", description="proxy | cdp (its own Chromium, WEBCHAOS_CDP_URL)")


class RunConfig(BaseModel):
    """What `webchaos run` was asked for: enough to plan the same episodes again (`--resume`)."""

    suite: str | None = Field(default=None, description="--suite as a ref (`core@1`): it fixes tasks, variants, seeds")
    tasks: list[str] | None = None
    variants: list[str] | None = None
    seeds: list[int]
    agents: list[str] = Field(description="the --agent specs as given")
    include_base: bool = True
    one_per_primitive: bool = False
    catalog: list[str] = Field(default_factory=list, description="extra scenario files or folders")
    https: bool = False
    browser: str = "proxy"
    chromium_args: list[str] = Field(default_factory=list)
    time_budget_s: float = 120.0
    concurrency: int = 2
    isolate: bool = False
    record_replay: bool = True
    chaos_profiles: list[str] = Field(default_factory=list, description="--chaos-profile names or paths")
    script: str | None = Field(default=None, description="`webchaos script`: the scenario script's path")
    executor: Literal["local", "ray"] = Field(default="local", description="--executor")
    address: str | None = Field(default=None, description="--address as given (ray: None, 'auto' or HOST:PORT)")
    workers: int | None = Field(default=None, description="--workers (ray; None: one per node)")


class RunSummary(BaseModel):
    run_id: str
    started_at: str
    finished_at: str | None = None
    interrupted: bool = False
    planned: int
    agents: list[AgentInfo] = Field(default_factory=list)
    config: RunConfig | None = Field(default=None, description="the run's options (set by `webchaos run`)")
    resumed_at: list[str] = Field(default_factory=list, description="when `--resume` continued the run")
    episodes: list[EpisodeResult] = Field(default_factory=list)
    aggregates: dict[str, Any] | None = Field(
        default=None, description="run-level statistics (grader/aggregate.py), written when the run ends"
    )

    def table_rows(self) -> list[dict[str, Any]]:
        return [
            {"task": r.task_id, "variant": (r.variant_id or "base") + (f" + {r.profile}" if r.profile else ""),
             "seed": r.seed, "agent": r.agent,
             "success": r.success, "score": r.score,
             "status": "infra error" if r.infra_failed else r.outcome.status, "firings": r.firings,
             "seconds": round(r.timings.total_ms / 1000, 1)}
            for r in self.episodes
        ]


def write_json_atomic(path: Path, data: BaseModel | dict[str, Any], *, exclude_defaults: bool = False) -> None:
    """Write via a temp file and rename, so a killed run never leaves half a file. A model goes through
    pydantic's own JSON writer (`exclude_defaults` leaves out fields at their defaults)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = (data.model_dump_json(indent=2, exclude_defaults=exclude_defaults) if isinstance(data, BaseModel)
            else json.dumps(data, indent=2))
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text + "\n")
    os.replace(tmp, path)

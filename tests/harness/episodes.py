"""Helpers for end-to-end tests: run catalog episodes and read what they left behind."""

import json
from pathlib import Path
from typing import Any

from harness.agents.base import Agent
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult
from harness.run.runner import run_matrix
from harness.services.processes import Services
from scenarios.loader import load_catalog

CATALOG = load_catalog()


async def run(stack: Services, runs_dir: Path, task: str, variant: str | None, agents: list[Agent],
              seed: int = 1) -> list[EpisodeResult]:
    """One (task, variant, seed) with each agent, sorted by agent name ('reference' before '…-no-recovery')."""
    spec = EpisodeSpec(CATALOG.tasks[task], CATALOG.variants[variant] if variant else None, seed)
    summary, _ = await run_matrix([spec], agents, runs_dir=runs_dir, stack=stack, concurrency=2, time_budget_s=90)
    return sorted(summary.episodes, key=lambda r: r.agent)


def episode_dir(runs_dir: Path, result: EpisodeResult) -> Path:
    (found,) = runs_dir.glob(f"*/episodes/{result.episode_id}")
    return found


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

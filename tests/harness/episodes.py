"""Helpers for end-to-end tests: run catalog episodes and read what they left behind.

Their episodes run as `webchaos validate` runs its own: without the page recording (rrweb), unless a test
asks for it. The recording changes nothing an agent sees or does (tests/harness/test_replay_e2e.py proves
it), and it is about a fifth of what the browser spends on an episode (0.98-1.05 against 0.73-0.85 CPU-s,
ten shop episodes measured each way), so tests of what faults and agents do leave it off; tests of the
recording itself, and of the product's default path (test_e2e, the API, the frameworks), keep it."""

import json
from pathlib import Path
from typing import Any

from harness.agents.base import Agent
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult
from harness.run.runner import run_matrix
from harness.services.processes import Services
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()


async def run(stack: Services, runs_dir: Path, task: str, variant: str | None, agents: list[Agent],
              seed: int = 1, record_replay: bool = False) -> list[EpisodeResult]:
    """One (task, variant, seed) with each agent, sorted by agent name ('reference' before '…-no-recovery')."""
    spec = EpisodeSpec(CATALOG.tasks[task], CATALOG.variants[variant] if variant else None, seed)
    summary, _ = await run_matrix([spec], agents, runs_dir=runs_dir, stack=stack, concurrency=2, time_budget_s=90,
                                  record_replay=record_replay)
    return sorted(summary.episodes, key=lambda r: r.agent)


Ran = dict[tuple[str, str], tuple[EpisodeResult, Path]]  # (variant id or "", agent) -> result, episode folder


def never_reached(result: EpisodeResult) -> bool:
    """A variant's episode that failed before its fault ever fired: it says nothing about the fault."""
    return result.variant_id is not None and not result.success and result.firings == 0


async def run_to_the_fault(specs: list[EpisodeSpec], agents: list[Agent], runs_dir: Path, stack: Services, *,
                           concurrency: int = 2, time_budget_s: float = 90, attempts: int = 3,
                           record_replay: bool = False) -> Ran:
    """Run every spec (one task and seed, a variant each) with every agent; then run again, up to `attempts`
    runs in all, each episode that failed before its fault fired. On a loaded machine the agent without
    recovery can miss a control on a page before the fault's (it waits 3 s), and such a run is no evidence
    of what the fault does. A fault that never fires does so on every attempt: tests of firings still fail."""
    by_variant = {spec.variant.id if spec.variant else "": spec for spec in specs}
    ran: Ran = {}
    batches: list[tuple[list[EpisodeSpec], list[Agent]]] = [(specs, agents)]
    for _ in range(attempts):
        for batch_specs, batch_agents in batches:
            summary, run_dir = await run_matrix(batch_specs, batch_agents, runs_dir=runs_dir, stack=stack,
                                                concurrency=concurrency, time_budget_s=time_budget_s,
                                                record_replay=record_replay)
            for result in summary.episodes:
                ran[(result.variant_id or "", result.agent)] = (result, run_dir / "episodes" / result.episode_id)
        batches = [([by_variant[variant] for (variant, name), (result, _) in ran.items()
                     if name == agent.name and never_reached(result)], [agent]) for agent in agents]
        batches = [(batch_specs, batch_agents) for batch_specs, batch_agents in batches if batch_specs]
        if not batches:
            break
    return ran


def episode_dir(runs_dir: Path, result: EpisodeResult) -> Path:
    (found,) = runs_dir.glob(f"*/episodes/{result.episode_id}")
    return found


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

"""How a run's episodes get executed: on one stack in this process (`local`) or on a Ray cluster (`ray`).

An executor takes one episode at a time (`run`) and returns its result once the episode's folder
is complete under the `out_dir` it was given; the runner keeps the run's books (run.json, resume,
aggregates, report) the same whichever executor ran the episodes.
"""

from pathlib import Path
from typing import Protocol

from harness.agents.base import Agent
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult


class EpisodeExecutor(Protocol):
    # Episodes it can run at once: the runner keeps no more than this many in flight.
    capacity: int

    async def start(self) -> None: ...

    async def run(self, episode_id: str, spec: EpisodeSpec, agent: Agent, out_dir: Path) -> EpisodeResult: ...

    async def stop(self) -> None: ...

"""The episode manager: open → run agent → close → grade → write the episode folder."""

import gc
import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.bindings import fill
from grader.oracle_client import OracleClient
from grader.trace import EpisodeTrace, load_trace
from grader.verdict import Verdict, grade
from harness.agents.base import Agent, AgentOutcome, EpisodeContext
from harness.browser import BrowserPool
from harness.control_client import ControlClient
from harness.results import EpisodeResult, EpisodeTimings, write_json_atomic
from scenarios.ledger import count_firings
from scenarios.profile import GENERIC_VOCABULARY
from scenarios.schema import PlanStep, Task, Variant
from sites.registry import profiles


@dataclass(frozen=True)
class EpisodeSpec:
    task: Task
    variant: Variant | None
    seed: int

    @property
    def label(self) -> str:
        return f"{self.task.id}/{self.variant.id if self.variant else 'base'}/s{self.seed}"


@dataclass
class OpenEpisode:
    spec: EpisodeSpec
    episode_id: str
    out_dir: Path
    bindings: dict[str, Any]
    instruction: str
    start_url: str
    proxy_url: str
    plan: list[PlanStep]
    initial_state: bytes


def episode_id_for(spec: EpisodeSpec, agent: str, index: int) -> str:
    raw = f"{index:04d}-{spec.task.id}-{spec.variant.id if spec.variant else 'base'}-s{spec.seed}-{agent}"
    return re.sub(r"[^A-Za-z0-9._-]+", "_", raw)[:120]


class EpisodeManager:
    def __init__(self, oracle: OracleClient, control: ControlClient) -> None:
        self.oracle = oracle
        self.control = control

    async def open(self, spec: EpisodeSpec, episode_id: str, out_dir: Path) -> OpenEpisode:
        out_dir.mkdir(parents=True, exist_ok=True)
        faults = spec.variant.faults if spec.variant else []
        info = await self.oracle.create_episode(
            site=spec.task.site, task_id=spec.task.id, seed=spec.seed,
            variant_id=spec.variant.id if spec.variant else None, episode_id=episode_id,
            setup={"params": spec.task.setup.params},
            faults=[f for f in faults if f.get("layer") in ("seed", "server")],
        )
        initial = await self.oracle.initial_state_bytes(episode_id)
        (out_dir / "state_initial.json").write_bytes(initial)
        try:
            proxy = await self.control.open_episode(episode_id, spec.seed, faults, out_dir)
        except BaseException:
            await self.oracle.delete_episode(episode_id)
            raise
        bindings = info["bindings"]
        start_url = info["base_url"] + spec.task.setup.start_path
        if proxy.get("site_scheme") == "https" and start_url.startswith("http://"):
            start_url = "https://" + start_url[len("http://"):]  # the proxy serves the sites over HTTPS
        bindings_with_url = {**bindings, "start_url": start_url}
        plan = [PlanStep.model_validate(fill(s.model_dump(exclude_none=True), bindings_with_url))
                for s in spec.task.plan]
        opened = OpenEpisode(
            spec=spec, episode_id=episode_id, out_dir=out_dir, bindings=bindings,
            instruction=" ".join(str(fill(spec.task.instruction, bindings)).split()),
            start_url=start_url, proxy_url=proxy["proxy_url"], plan=plan, initial_state=initial,
        )
        write_json_atomic(out_dir / "episode.json", {
            "episode_id": episode_id, "task_id": spec.task.id,
            "variant_id": spec.variant.id if spec.variant else None, "seed": spec.seed,
            "instruction": opened.instruction, "start_url": start_url, "proxy_url": opened.proxy_url,
            "bindings": bindings,
        })
        return opened

    async def close(self, episode: OpenEpisode) -> tuple[bytes, int]:
        """Stop the episode's proxy port (HAR written), save final state and events; returns (state, firings)."""
        closed = await self.control.close_episode(episode.episode_id)
        final = await self.oracle.state_bytes(episode.episode_id)
        events = await self.oracle.events(episode.episode_id)
        site_lines = await self.oracle.ledger(episode.episode_id)
        (episode.out_dir / "state_final.json").write_bytes(final)
        with (episode.out_dir / "events.jsonl").open("w") as handle:
            for event in events:
                handle.write(event.model_dump_json() + "\n")
        site_firings = append_site_ledger(episode.out_dir / "faults.jsonl", site_lines)
        await self.oracle.delete_episode(episode.episode_id)
        return final, int(closed.get("firings", 0)) + site_firings


def append_site_ledger(path: Path, lines: list[dict[str, Any]]) -> int:
    """Append the sites' seed/server ledger lines after the proxy's, `seq` continuing; returns firings."""
    existing = path.read_text().splitlines() if path.exists() else []
    last = max((int(json.loads(line).get("seq", 0)) for line in existing if line.strip()), default=0)
    with path.open("a", encoding="utf-8") as handle:
        for offset, line in enumerate(lines, start=1):
            handle.write(json.dumps({**line, "seq": last + offset}, separators=(",", ":")) + "\n")
    return count_firings(lines)


def grade_episode(task: Task, bindings: dict[str, Any], initial: bytes, final: bytes,
                  trace: EpisodeTrace | None = None) -> Verdict:
    # Parsing two states allocates tens of thousands of objects at once, which triggers full
    # collections (tens of ms on large states) for nothing: grading creates no reference cycles.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        profile = profiles().get(task.site)
        return grade(task, bindings, json.loads(initial), json.loads(final), trace,
                     vocabulary=profile.vocabulary if profile is not None else GENERIC_VOCABULARY)
    finally:
        if was_enabled:
            gc.enable()


def grade_episode_dir(task: Task, episode_dir: Path, attempts: int | None = None) -> Verdict:
    """Grade from an episode folder's files only: what `run_episode` and `webchaos grade` both do."""
    meta = json.loads((episode_dir / "episode.json").read_bytes())
    return grade_episode(task, meta["bindings"], (episode_dir / "state_initial.json").read_bytes(),
                         (episode_dir / "state_final.json").read_bytes(), load_trace(episode_dir, attempts))


async def run_episode(
    manager: EpisodeManager, spec: EpisodeSpec, agent: Agent, episode_id: str, out_dir: Path,
    browser: BrowserPool | None, time_budget_s: float = 120.0,
) -> EpisodeResult:
    timings = EpisodeTimings()
    t0 = time.perf_counter()
    episode = await manager.open(spec, episode_id, out_dir)
    timings.open_ms = (time.perf_counter() - t0) * 1000
    outcome: AgentOutcome
    t1 = time.perf_counter()
    try:
        outcome = await agent.run(EpisodeContext(
            episode_id=episode_id, task=spec.task, variant=spec.variant, seed=spec.seed,
            instruction=episode.instruction, start_url=episode.start_url, proxy_url=episode.proxy_url,
            plan=episode.plan, out_dir=out_dir, browser=browser, time_budget_s=time_budget_s,
        ))
    except Exception as exc:  # an agent crash is a result, not a harness failure
        outcome = AgentOutcome(status="error", error=f"{type(exc).__name__}: {exc}")
    finally:
        timings.agent_ms = (time.perf_counter() - t1) * 1000
        t2 = time.perf_counter()
        final, firings = await manager.close(episode)
        timings.close_ms = (time.perf_counter() - t2) * 1000
    t3 = time.perf_counter()
    verdict = grade_episode(spec.task, episode.bindings, episode.initial_state, final,
                            load_trace(out_dir, attempts=outcome.attempts))
    timings.grade_ms = (time.perf_counter() - t3) * 1000
    timings.total_ms = (time.perf_counter() - t0) * 1000
    result = EpisodeResult(
        episode_id=episode_id, task_id=spec.task.id, variant_id=spec.variant.id if spec.variant else None,
        target_primitive=spec.variant.target_primitive.value if spec.variant else None, seed=spec.seed,
        site=spec.task.site,
        agent=agent.name, instruction=episode.instruction, success=verdict.success, score=verdict.score,
        verdict=verdict, outcome=outcome, firings=firings, timings=timings,
    )
    write_json_atomic(out_dir / "result.json", result)
    return result

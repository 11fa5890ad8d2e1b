"""Episodes on one stack (sites server + proxy) and one shared Chromium, in this process.

A service of the stack that dies fails the episodes open on it as infrastructure errors (the
stack restarts it); a dead shared Chromium fails the episodes using it and is launched again.
"""

import asyncio
import contextlib
from pathlib import Path

from harness.agents.base import Agent, AgentOutcome
from harness.browser.pool import BrowserPool
from harness.episodes.manager import EpisodeManager, EpisodeSpec, InfraFailure, run_episode
from harness.run.results import EpisodeResult, InfraError
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import ServiceDeath, Services


def infra_result(spec: EpisodeSpec, agent: str, episode_id: str, infra: InfraError) -> EpisodeResult:
    return EpisodeResult(
        episode_id=episode_id, task_id=spec.task.id, variant_id=spec.variant.id if spec.variant else None,
        target_primitive=spec.variant.target_primitive.value if spec.variant else None, seed=spec.seed,
        site=spec.task.site, agent=agent, instruction="", success=False, score=0.0,
        outcome=AgentOutcome(status="error"), status="infra_error", infra=infra, error=infra.cause,
    )


def death_error(death: ServiceDeath) -> InfraError:
    return InfraError(process=death.service, cause=death.describe(), pid=death.pid, signal=death.signal,
                      exit_code=death.returncode if death.returncode >= 0 else None)


class StackExecutor:
    """Runs episodes on `stack` (started and stopped here when none is given)."""

    def __init__(self, stack: Services | None = None, *, https: bool = False, record_replay: bool = True,
                 time_budget_s: float = 120.0, capacity: int = 2) -> None:
        self.own_stack = stack is None
        self.stack = stack or Services(https=https)
        self.record_replay = record_replay
        self.time_budget_s = time_budget_s
        self.capacity = max(1, capacity)
        self.browser: BrowserPool | None = None
        self._pool_lock = asyncio.Lock()
        # Each running episode's infrastructure watch: resolved with the cause when webchaos fails under it.
        self._inflight: dict[str, tuple[asyncio.Future[InfraError], bool]] = {}
        self._oracle: OracleClient | None = None
        self._control: ControlClient | None = None
        self._manager: EpisodeManager | None = None

    async def start(self) -> None:
        if self.own_stack:
            await self.stack.start()
        self._oracle = OracleClient(self.stack.oracle_url, self.stack.secret)
        self._control = ControlClient(self.stack.control_url, self.stack.secret)
        self._manager = EpisodeManager(self._oracle, self._control, record_replay=self.record_replay)
        listen = getattr(self.stack, "add_death_listener", None)
        if listen is not None:
            listen(self._on_death)

    async def stop(self) -> None:
        unlisten = getattr(self.stack, "remove_death_listener", None)
        if unlisten is not None:
            unlisten(self._on_death)
        if self.browser is not None:
            await self.browser.stop()
        if self._oracle is not None:
            await self._oracle.close()
        if self._control is not None:
            await self._control.close()
        if self.own_stack:
            await self.stack.stop()

    def _fail_inflight(self, infra: InfraError, browser_only: bool = False) -> None:
        for future, uses_pool in self._inflight.values():
            if not future.done() and (uses_pool or not browser_only):
                future.set_result(infra)

    def _on_death(self, death: ServiceDeath) -> None:
        self._fail_inflight(death_error(death))

    def _on_pool_death(self, dead: BrowserPool) -> None:
        self._fail_inflight(InfraError(process="chromium", cause=dead.death_cause(), pid=dead.pid), browser_only=True)

    async def _live_pool(self) -> BrowserPool:
        """The shared Chromium, launched again if it died."""
        async with self._pool_lock:
            if self.browser is None or not self.browser.alive:
                if self.browser is not None:
                    with contextlib.suppress(Exception):
                        await self.browser.stop()
                self.browser = await BrowserPool(spki_pins=self.stack.spki_pins, on_death=self._on_pool_death).start()
            return self.browser

    async def run(self, episode_id: str, spec: EpisodeSpec, agent: Agent, out_dir: Path) -> EpisodeResult:
        """The episode's result: graded, or an infrastructure error (never raises for either)."""
        assert self._manager is not None, "start() first"
        infra: asyncio.Future[InfraError] = asyncio.get_running_loop().create_future()
        deaths = getattr(self.stack, "deaths", [])
        seen = len(deaths)
        try:
            wait_ready = getattr(self.stack, "wait_ready", None)
            if wait_ready is not None:
                await wait_ready()
            seen = len(deaths)
            pool = await self._live_pool() if agent.needs_browser else None
            self._inflight[episode_id] = (infra, bool(agent.needs_browser))
            return await run_episode(self._manager, spec, agent, episode_id, out_dir, pool, self.time_budget_s,
                                     spki_pins=self.stack.spki_pins, infra=infra)
        except InfraFailure as failure:
            return infra_result(spec, agent.name, episode_id, failure.infra)
        except Exception as exc:  # the harness could not run it: record, keep going
            with contextlib.suppress(TimeoutError):  # a service death is seen a moment after its requests fail
                await asyncio.wait_for(asyncio.shield(infra), 3.0)
            if not infra.done() and len(deaths) > seen:  # died before the episode was watched
                infra.set_result(death_error(deaths[-1]))
            cause = infra.result() if infra.done() else InfraError(process="harness",
                                                                    cause=f"{type(exc).__name__}: {exc}")
            return infra_result(spec, agent.name, episode_id, cause)
        finally:
            self._inflight.pop(episode_id, None)

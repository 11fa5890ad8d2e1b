"""Episodes on a Ray cluster: `webchaos run … --executor ray`.

Each worker is a Ray actor that owns a whole stack (sites server, proxy, Chromium: a
`StackExecutor`) and runs up to `per_worker` episodes at once, taken from the run's queue
as it frees a slot. An episode runs in the worker's scratch folder; its folder comes back
through Ray as a tar archive (no shared filesystem is assumed) and is unpacked under the
run's `out_dir` on the machine that started the run, where the runner records it as it
records a local episode.

A worker that dies (its node lost, its process killed) loses only the episodes it was
running: each is retried once on another worker, and recorded as an infrastructure error
when that is not possible (no other worker alive, or the retry's worker died too).
"""

import asyncio
import contextlib
import io
import os
import shlex
import shutil
import socket
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness.agents.base import Agent
from harness.episodes.manager import EpisodeSpec
from harness.executors.local import StackExecutor, infra_result
from harness.run.results import EpisodeResult, InfraError

INSTALL_HINT = ("the Ray executor needs Ray, an optional extra: pip install 'webchaos[ray]' "
                "(in a checkout: .venv/bin/pip install -e '.[ray]')")
# An episode is run on at most this many workers: the first, then one retry after the first one died.
ATTEMPTS = 2


class RayExecutorError(RuntimeError):
    """The Ray executor cannot run this run: Ray missing, no cluster, or a worker cannot run an agent."""


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise RayExecutorError(INSTALL_HINT) from exc
    return ray


def missing_program(command: str, path: str) -> str | None:
    """Why `command` (a `cmd:` agent's shell command) cannot start here, or None: its program is not
    on `path`, or the script it hands to an interpreter is not there (relative to the working folder)."""
    try:
        words = shlex.split(command)
    except ValueError as exc:
        return f"cannot parse the command: {exc}"
    words = [w for w in words if not (("=" in w) and w.split("=", 1)[0].isidentifier())]  # FOO=1 prefixes
    if not words:
        return None
    program = words[0]
    if "/" in program:
        if not os.access(program, os.X_OK):
            return f"{program!r} is not an executable file in {os.getcwd()}"
    elif shutil.which(program, path=path) is None:
        return f"{program!r} is not on PATH"
    script = next((w for w in words[1:] if not w.startswith("-")), None)
    interpreters = ("python", "python3", "node", "bash", "sh", "deno", "bun", "ruby", "perl")
    if Path(program).name in interpreters and script is not None and Path(script).suffix and \
            not Path(script).exists():
        return f"{script!r} does not exist in {os.getcwd()}"
    return None


def pack_folder(folder: Path) -> bytes:
    """The folder's files as a gzip'd tar archive (paths relative to `folder`)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=1) as archive:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
    return buffer.getvalue()


def unpack_folder(data: bytes, folder: Path) -> None:
    """Unpack `pack_folder`'s archive into `folder`; the 'data' filter refuses absolute paths, `..`,
    links out of the folder and device files."""
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
        archive.extractall(folder, filter="data")


class EpisodeWorker:
    """A Ray actor's body: one stack, episodes run in a scratch folder and shipped back as bytes."""

    def __init__(self, *, https: bool, record_replay: bool, time_budget_s: float, per_worker: int,
                 cwd: str | None) -> None:
        if cwd and os.path.isdir(cwd):  # `cmd:` agents' relative paths mean what they mean on the driver
            os.chdir(cwd)
        self.scratch = Path(tempfile.mkdtemp(prefix="webchaos-worker-"))
        self.executor = StackExecutor(https=https, record_replay=record_replay, time_budget_s=time_budget_s,
                                      capacity=per_worker)

    async def start(self, agents: Sequence[Agent]) -> dict[str, Any]:
        """Start the stack; raise RayExecutorError when a `cmd:` agent's command cannot run here."""
        from harness.agents.external import CommandAgent

        where = f"{socket.gethostname()} (pid {os.getpid()})"
        for agent in agents:
            if isinstance(agent, CommandAgent):
                probe_path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
                problem = missing_program(agent.command, probe_path)
                if problem is not None:
                    raise RayExecutorError(f"agent {agent.name!r} cannot run on Ray worker {where}: {problem} "
                                           "(a cmd: agent runs on the worker: install it there)")
        await self.executor.start()
        # the scratch folder holds an episode's folder exactly while one runs (what a test kills it in)
        return {"host": socket.gethostname(), "pid": os.getpid(), "scratch": str(self.scratch)}

    def pid(self) -> int:
        return os.getpid()

    async def run(self, episode_id: str, spec: EpisodeSpec, agent: Agent) -> tuple[str, bytes]:
        """(result.json text, the episode folder as a tar.gz); the scratch copy is removed."""
        out_dir = self.scratch / episode_id
        try:
            result = await self.executor.run(episode_id, spec, agent, out_dir)
            return result.model_dump_json(), await asyncio.to_thread(pack_folder, out_dir)
        finally:
            await asyncio.to_thread(shutil.rmtree, out_dir, True)

    async def stop(self) -> None:
        await self.executor.stop()
        shutil.rmtree(self.scratch, ignore_errors=True)


@dataclass(frozen=True)
class RayOptions:
    """What `webchaos run --executor ray` was given (recorded in run.json's config; `--resume` uses it again
    unless told otherwise)."""

    address: str | None = None
    workers: int | None = None

    def executor(self, agents: Sequence[Agent], per_worker: int, *, https: bool, record_replay: bool,
                 time_budget_s: float) -> "RayExecutor":
        return RayExecutor(agents, address=self.address, workers=self.workers, per_worker=per_worker, https=https,
                           record_replay=record_replay, time_budget_s=time_budget_s)


class RayExecutor:
    """`workers` EpisodeWorker actors (default: one per alive node), `per_worker` episodes each at once.

    `address`: None starts a Ray instance on this machine; "auto" joins the cluster `ray start` made
    here; "HOST:PORT" joins that cluster's head. An already initialised Ray (`ray.init` by the caller)
    is used as it is."""

    def __init__(self, agents: Sequence[Agent], *, address: str | None = None, workers: int | None = None,
                 per_worker: int = 2, https: bool = False, record_replay: bool = True,
                 time_budget_s: float = 120.0, num_cpus_per_worker: float = 1.0) -> None:
        self.agents = list(agents)
        self.address = address
        self.requested_workers = workers
        self.per_worker = max(1, per_worker)
        self.options = dict(https=https, record_replay=record_replay, time_budget_s=time_budget_s,
                            per_worker=self.per_worker, cwd=os.getcwd())
        self.num_cpus_per_worker = num_cpus_per_worker
        self.capacity = (workers or 1) * self.per_worker
        self.workers: list[Any] = []
        self.worker_info: list[dict[str, Any]] = []
        self._dead: set[int] = set()
        self.retried: list[str] = []  # episodes whose first worker died under them
        self._slots: asyncio.Queue[int | None] = asyncio.Queue()
        self._started = False
        self._own_ray = False
        self._ray: Any = None

    async def start(self) -> None:
        """Connect, start the workers (each its stack), check the agents on them. Idempotent."""
        if self._started:
            return
        ray = self._ray = import_ray()
        if not ray.is_initialized():
            try:
                ray.init(address=self.address, log_to_driver=False, include_dashboard=False,
                         configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise RayExecutorError(f"cannot reach a Ray cluster at {self.address or 'a new local instance'}: "
                                       f"{exc}") from exc
            self._own_ray = True
        count = self.requested_workers or max(1, sum(1 for node in ray.nodes() if node.get("Alive")))
        self.capacity = count * self.per_worker
        actor = ray.remote(EpisodeWorker).options(
            num_cpus=self.num_cpus_per_worker, max_concurrency=self.per_worker + 2, max_restarts=0,
            scheduling_strategy="SPREAD")
        self.workers = [actor.remote(**self.options) for _ in range(count)]
        try:
            self.worker_info = list(await asyncio.wait_for(
                asyncio.gather(*(w.start.remote(self.agents) for w in self.workers)), 300))
        except TimeoutError as exc:
            await self.stop()
            raise RayExecutorError(f"{count} Ray workers did not start within 300 s: does the cluster have "
                                   f"{count * self.num_cpus_per_worker:g} CPUs free?") from exc
        except ray.exceptions.RayTaskError as exc:
            await self.stop()
            raise RayExecutorError(str(getattr(exc, "cause", None) or exc)) from exc
        except BaseException:
            await self.stop()
            raise
        for _slot in range(self.per_worker):
            for index in range(count):
                self._slots.put_nowait(index)
        self._started = True

    def describe(self, index: int) -> str:
        info = self.worker_info[index] if index < len(self.worker_info) else {}
        return f"Ray worker {index} on {info.get('host', '?')} (pid {info.get('pid', '?')})"

    async def _free_worker(self) -> int | None:
        """A live worker's index with a free slot, waiting for one; None once every worker is dead."""
        while True:
            index = await self._slots.get()
            if index is None:
                self._slots.put_nowait(None)  # wake the next waiter too
                return None
            if index not in self._dead:
                return index

    def _lost(self, index: int) -> None:
        self._dead.add(index)
        if len(self._dead) == len(self.workers):
            self._slots.put_nowait(None)

    async def run(self, episode_id: str, spec: EpisodeSpec, agent: Agent, out_dir: Path) -> EpisodeResult:
        ray = self._ray
        lost: list[str] = []
        for _attempt in range(ATTEMPTS):
            index = await self._free_worker()
            if index is None:
                break
            ref = self.workers[index].run.remote(episode_id, spec, agent)
            try:
                result_json, archive = await ref
            except asyncio.CancelledError:
                ray.cancel(ref)
                raise
            except (ray.exceptions.RayActorError, ray.exceptions.WorkerCrashedError) as exc:
                self._lost(index)
                lost.append(f"{self.describe(index)} died ({type(exc).__name__})")
                if len(lost) < ATTEMPTS:
                    self.retried.append(episode_id)
                continue
            except ray.exceptions.RayError as exc:
                self._slots.put_nowait(index)
                return infra_result(spec, agent.name, episode_id, InfraError(
                    process="ray", cause=f"{self.describe(index)}: {type(exc).__name__}: {str(exc)[:300]}"))
            self._slots.put_nowait(index)
            await asyncio.to_thread(unpack_folder, archive, out_dir)
            return EpisodeResult.model_validate_json(result_json)
        cause = "; then ".join(lost) if lost else "no Ray worker is alive"
        if len(lost) < ATTEMPTS and lost:
            cause += "; no other worker alive to retry on"
        return infra_result(spec, agent.name, episode_id, InfraError(process="ray worker", cause=cause))

    async def stop(self) -> None:
        ray = self._ray
        if ray is None:
            return
        live = [w for i, w in enumerate(self.workers) if i not in self._dead]
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.gather(*(w.stop.remote() for w in live), return_exceptions=True), 30)
        for worker in self.workers:
            with contextlib.suppress(Exception):
                ray.kill(worker)
        self.workers = []
        if self._own_ray:
            ray.shutdown()
            self._own_ray = False

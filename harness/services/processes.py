"""Start and stop the two service processes: the sites server and the fault proxy.

Each runs in its own process group and dies with the harness (PR_SET_PDEATHSIG),
so neither Ctrl-C nor a killed harness leaves orphans behind.

The stack's secret (scenarios/secret.py) is made here, kept in this process's memory
(`Services.secret`, given to the oracle and control clients) and handed to each service through
a pipe it inherits (`--secret-fd` / `webchaos_secret_fd`): never argv, environment or file.

A started stack supervises both: when one dies (killed, crashed), the death is told to
every listener (`add_death_listener`: the runner fails the episodes open on it as
infrastructure errors) and the service is started again on the same ports; `wait_ready`
returns once every service is healthy again. Its episodes are gone with it (the sites
server holds their state, the proxy their listeners and recordings), so they are never
re-registered.
"""

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType

import aiohttp

from harness.browser.pool import spki_hash
from harness.config import PROJECT_ROOT, default_state_dir, free_port
from proxy_addons.client.frames import frame_hosts
from scenarios.secret import SECRET_HEADER, make_secret, secret_pipe
from sites.registry import site_hosts

_PR_SET_PDEATHSIG = 1
# How long a service may take to answer its health check after it starts (a loaded machine compiling and
# importing mitmproxy took 15 s): beyond it the start is a failure, made again (start) or reported.
HEALTHY_WITHIN_S = 45.0


def _die_with_parent() -> None:  # runs in the child between fork and exec
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


async def stop_process_group(process: asyncio.subprocess.Process, grace_s: float) -> None:
    """SIGTERM the process's group, then SIGKILL it if it has not ended within `grace_s`."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), grace_s)
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        await process.wait()


class StackError(RuntimeError):
    pass


@dataclass(frozen=True)
class ServiceDeath:
    """A service that ended without being asked to."""

    service: str
    pid: int
    returncode: int

    @property
    def signal(self) -> str | None:
        return signal_name(-self.returncode) if self.returncode < 0 else None

    def describe(self) -> str:
        how = f"killed by {self.signal}" if self.signal else f"exited with status {self.returncode}"
        return f"{self.service} (pid {self.pid}) {how}"


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


DeathListener = Callable[[ServiceDeath], None]


@dataclass
class Service:
    name: str
    argv: list[str]
    health_url: str
    log_path: Path
    process: asyncio.subprocess.Process | None = None
    # The stack's secret: written into a pipe whose read end is the child's fd `{secret_fd}` in argv.
    secret: str | None = field(default=None, repr=False)
    # That pipe as /proc names it ("pipe:[inode]"): the child must let go of it once read (tests check).
    secret_pipe_name: str | None = None

    async def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        log = self.log_path.open("ab")  # a restarted service keeps the log of the one that died
        secret_fd = secret_pipe(self.secret) if self.secret is not None else None
        if secret_fd is not None:
            self.secret_pipe_name = f"pipe:[{os.fstat(secret_fd).st_ino}]"
        argv = [a.replace("{secret_fd}", str(secret_fd)) for a in self.argv]
        # Unbuffered: what the service printed is in its log when it is read (mitmproxy's log goes to stdout)
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.DEVNULL, stdout=log, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True, preexec_fn=_die_with_parent, cwd=PROJECT_ROOT, env=env,
                pass_fds=() if secret_fd is None else (secret_fd,),
            )
        finally:
            log.close()
            if secret_fd is not None:
                os.close(secret_fd)

    async def wait_healthy(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        headers = {SECRET_HEADER: self.secret} if self.secret is not None else {}
        last_answer = "no answer yet"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=2), headers=headers) as session:
            while time.monotonic() < deadline:
                if self.process is not None and self.process.returncode is not None:
                    raise StackError(f"{self.name} exited with {self.process.returncode}:\n{self.log_tail()}")
                try:
                    async with session.get(self.health_url) as response:
                        if response.status == 200:
                            return
                        last_answer = f"HTTP {response.status}"
                except (aiohttp.ClientError, TimeoutError) as exc:
                    last_answer = repr(exc)
                await asyncio.sleep(0.05)
        await self._dump_stacks()
        raise StackError(f"{self.name} not healthy after {timeout_s:.0f}s (pid {self.pid}; {self.health_url} "
                         f"last gave {last_answer}); its log ends:\n{self.log_tail()}")

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    async def _dump_stacks(self) -> None:
        """Have a live service that will not answer write where each of its threads is into its log (the
        launcher registers faulthandler on SIGUSR1: `launched`), so the error says where it hangs."""
        if self.process is None or self.process.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(0.5)  # faulthandler writes at once, from its signal handler

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"

    async def stop(self, grace_s: float = 5.0) -> None:
        if self.process is not None:
            await stop_process_group(self.process, grace_s)


@dataclass
class Services:
    """The running services and the ports a harness needs to talk to them."""

    state_dir: Path = field(default_factory=default_state_dir)
    sites_port: int = 0
    oracle_port: int = 0
    control_port: int = 0
    https: bool = False  # serve the sites over HTTPS too (CA in <state_dir>/mitmproxy)
    services: list[Service] = field(default_factory=list)
    # With https, the SPKI hash of the proxy's CA, for browsers to trust it alone (set by start()).
    spki_pins: list[str] = field(default_factory=list)
    # What the oracle, the control API and the sites server ask of every caller; made by start().
    secret: str = field(default="", repr=False)
    supervise: bool = True  # restart a service that dies (see the module docstring)
    max_restarts: int = 5  # per service; after that the stack is broken (`broken` says why)
    deaths: list[ServiceDeath] = field(default_factory=list)
    broken: str | None = None
    episodes_opened: int = 0  # by every webchaos.Stack on these services: it numbers their episodes' ids
    _listeners: list[DeathListener] = field(default_factory=list, repr=False)
    _watchers: list["asyncio.Task[None]"] = field(default_factory=list, repr=False)
    _restarting: set[str] = field(default_factory=set, repr=False)
    _stopping: bool = field(default=False, repr=False)
    _ready: asyncio.Event | None = field(default=None, repr=False)

    @property
    def oracle_url(self) -> str:
        return f"http://127.0.0.1:{self.oracle_port}"

    @property
    def control_url(self) -> str:
        return f"http://127.0.0.1:{self.control_port}"

    @property
    def ca_cert_path(self) -> Path:
        """The proxy's CA certificate (created by mitmproxy on first start)."""
        return self.state_dir / "mitmproxy" / "mitmproxy-ca-cert.pem"

    def _commands(self) -> list[Service]:
        logs = self.state_dir / "logs"
        sites = Service(
            "sites server",
            launched(Path(sys.executable), ["-m", "sites.server", "--port", str(self.sites_port),
                                            "--oracle-port", str(self.oracle_port), "--secret-fd", "{secret_fd}"]),
            f"{self.oracle_url}/health", logs / f"sites-{self.oracle_port}.log", secret=self.secret,
        )
        proxy = Service(
            "proxy",
            proxy_command(Path(sys.executable), self.sites_port, self.control_port, self.state_dir, self.https),
            f"{self.control_url}/health", logs / f"proxy-{self.control_port}.log", secret=self.secret,
        )
        return [sites, proxy]

    async def start(self, timeout_s: float = HEALTHY_WITHIN_S, attempts: int = 2) -> "Services":
        """Start both services and wait until each answers its health check. A start that fails (a
        service exits or will not answer: a port taken between choosing and binding it, a stalled
        machine) is stopped and made again, on fresh ports where this stack chose them, up to
        `attempts` times; the last failure is raised."""
        if attempts < 1:
            raise ValueError(f"attempts must be at least 1, not {attempts}")
        chosen = (self.sites_port, self.oracle_port, self.control_port)
        for attempt in range(1, attempts):
            try:
                return await self._start_once(timeout_s)
            except StackError as exc:
                sys.stderr.write(f"webchaos: starting the stack failed (attempt {attempt} of {attempts}), "
                                 f"starting it again: {exc}\n")
                self.sites_port, self.oracle_port, self.control_port = chosen
        return await self._start_once(timeout_s)

    async def _start_once(self, timeout_s: float) -> "Services":
        self.sites_port = self.sites_port or free_port()
        self.oracle_port = self.oracle_port or free_port()
        self.control_port = self.control_port or free_port()
        self.secret = self.secret or make_secret()
        self.services = self._commands()
        self._stopping = False
        self._ready = asyncio.Event()
        try:
            for service in self.services:
                await service.start()
            await asyncio.gather(*(s.wait_healthy(timeout_s) for s in self.services))
            if self.https:
                self.spki_pins = [spki_hash(self.ca_cert_path.read_bytes())]
        except BaseException:
            await self.stop()
            raise
        self._ready.set()
        if self.supervise:
            self._watchers = [asyncio.create_task(self._watch(s), name=f"watch {s.name}") for s in self.services]
        return self

    def add_death_listener(self, listener: DeathListener) -> None:
        """Call `listener(death)` (on the stack's loop) whenever a service dies unasked."""
        self._listeners.append(listener)

    def remove_death_listener(self, listener: DeathListener) -> None:
        with contextlib.suppress(ValueError):
            self._listeners.remove(listener)

    async def wait_ready(self, timeout_s: float = 60.0) -> None:
        """Return when every service is up (at once, unless one is being restarted); raise if the
        stack is broken (a service would not come back)."""
        if self._ready is not None and not self._ready.is_set():
            await asyncio.wait_for(self._ready.wait(), timeout_s)
        if self.broken is not None:
            raise StackError(self.broken)

    async def _watch(self, service: Service) -> None:
        while True:
            process = service.process
            if process is None:
                return
            code = await process.wait()
            if self._stopping or service.process is not process:
                return
            death = ServiceDeath(service.name, process.pid, code)
            self.deaths.append(death)
            self._restarting.add(service.name)
            if self._ready is not None:
                self._ready.clear()
            for listener in list(self._listeners):
                try:
                    listener(death)
                except Exception as exc:  # a listener must not stop the supervision
                    sys.stderr.write(f"webchaos: death listener failed: {exc!r}\n")
            restarted = await self._restart(service)
            self._restarting.discard(service.name)
            if not restarted:
                if self._ready is not None:
                    self._ready.set()  # wake the waiters: they see `broken`
                return
            if not self._restarting and self._ready is not None:
                self._ready.set()

    async def _restart(self, service: Service) -> bool:
        if sum(1 for d in self.deaths if d.service == service.name) > self.max_restarts:
            self.broken = f"{service.name} died {self.max_restarts + 1} times; last: {self.deaths[-1].describe()}"
            return False
        last_error = ""
        for attempt in range(3):
            if self._stopping:
                return False
            with contextlib.suppress(ProcessLookupError):  # what is left of its process group
                if service.process is not None:
                    os.killpg(service.process.pid, signal.SIGKILL)
            try:
                await service.start()
                await service.wait_healthy(HEALTHY_WITHIN_S)
                return True
            except (StackError, OSError) as exc:
                last_error = str(exc)
                await service.stop()
                await asyncio.sleep(0.5 * (attempt + 1))
        self.broken = f"{service.name} could not be restarted: {last_error}"
        return False

    async def stop(self) -> None:
        self._stopping = True
        watchers, self._watchers = self._watchers, []
        for watcher in watchers:
            watcher.cancel()
        await asyncio.gather(*watchers, return_exceptions=True)
        await asyncio.gather(*(s.stop() for s in self.services), return_exceptions=True)

    async def __aenter__(self) -> "Services":
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.shield(self.stop())


# Runs the program after it (a script, or -m and a module, then its arguments) once faulthandler is registered on
# SIGUSR1, so a service that will not answer writes where each of its threads is into its log
# (Service._dump_stacks). In the launcher rather than in each program: proxy_addons/main.py's bytes are part of
# every validation run's evidence (harness/catalog/validate.agent_digest).
_LAUNCHER = """\
import faulthandler, runpy, signal, sys
faulthandler.register(signal.SIGUSR1, all_threads=True)
del sys.argv[0]
if sys.argv[0] == "-m":
    del sys.argv[0]
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
else:
    runpy.run_path(sys.argv[0], run_name="__main__")
"""


def launched(python: Path, program: list[str], flags: tuple[str, ...] = ()) -> list[str]:
    """The command line that runs `program` with `python` and its `flags`, its stacks dumped on SIGUSR1."""
    return [str(python), *flags, "-c", _LAUNCHER, *program]


def proxy_command(python: Path, sites_port: int, control_port: int, state_dir: Path,
                  https: bool = False) -> list[str]:
    """The proxy process's command line: the webchaos addon chain on a lean mitmproxy master
    (proxy_addons/main.py; `mitmdump -s proxy_addons/stack.py` takes the same options), run with
    `-O` (main.py says why: without it the cyclic GC stalls every flow for tens of milliseconds)."""
    extra = ["--set", "webchaos_https=true"] if https else []
    return launched(python, [
        str(PROJECT_ROOT / "proxy_addons" / "main.py"),
        "--set", "mode",  # no agent-facing listener at start: each episode adds its own port
        "--set", f"webchaos_sites=127.0.0.1:{sites_port}",
        # the sites' hosts and their widget frame hosts (served by the proxy itself: proxy_addons/client/frames.py)
        "--set", f"webchaos_site_hosts={','.join(site_hosts() + frame_hosts(site_hosts()))}",
        "--set", f"webchaos_control_port={control_port}",
        "--set", "connection_strategy=lazy",
        "--set", f"confdir={state_dir / 'mitmproxy'}",
        "--set", "webchaos_secret_fd={secret_fd}",  # filled in by Service.start: a pipe, never the secret
        *extra,
    ], flags=("-O",))

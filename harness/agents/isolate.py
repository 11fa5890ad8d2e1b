"""`--isolate`: run a `cmd:` agent where only its own episode's ports can be reached.

The agent runs in namespaces of its own, made by this module as a helper process
(`python -m harness.agents.isolate --forward PORT=SOCKET ... -- /bin/sh -c COMMAND`):

- a **user namespace** (the agent's uid and gid map to themselves; it gets no capability
  outside it, so it can never `setns` back, even when webchaos runs as root);
- a **network namespace** with only `lo`, brought up by the helper: no route to the host's
  loopback, so the oracle, the control API, the sites server and every other episode's
  proxy port are unreachable (connection refused);
- a **PID and mount namespace** with a fresh `/proc`: the agent sees only its own processes,
  so it cannot read another process's `/proc/<pid>/environ` or memory either.

Inside, the helper listens on `127.0.0.1:PORT` for each forwarded port, the same number as
outside, so `WEBCHAOS_PROXY`/`HTTP_PROXY` (and `WEBCHAOS_CDP_URL` with `--browser cdp`) keep
their values, and relays each connection to a Unix socket. Filesystem Unix sockets cross
network namespaces: outside, `PortRelay` (in the harness) accepts on that socket, in a
0700 folder of its own, and connects to the real port. Nothing but those ports is relayed.

Needs unprivileged user namespaces (`unshare(CLONE_NEWUSER)`), which Debian and Ubuntu
allow by default; `check()` says exactly what failed when they are not.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 2, 4, 8, 16384, 1 << 18
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
_CHUNK = 64 * 1024
SETUP_FAILED = 125  # the helper's exit status when the namespaces could not be made


class IsolationError(RuntimeError):
    pass


def port_of(url: str) -> int:
    port = urlsplit(url).port
    if port is None:
        raise ValueError(f"no port in {url!r}")
    return port


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(_CHUNK):
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()  # half-close: the other side still answers
    except (ConnectionError, OSError):
        pass


async def _splice(a: tuple[asyncio.StreamReader, asyncio.StreamWriter],
                  b: tuple[asyncio.StreamReader, asyncio.StreamWriter]) -> None:
    try:
        await asyncio.gather(_pipe(a[0], b[1]), _pipe(b[0], a[1]))
    finally:
        for _, writer in (a, b):
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()


# -- outside: in the harness ----------------------------------------------------------------------


class PortRelay:
    """Unix sockets (one per port, in a private 0700 folder) relayed to 127.0.0.1:<port> outside."""

    def __init__(self, ports: Sequence[int]) -> None:
        self.ports = list(dict.fromkeys(ports))
        self.folder = Path(tempfile.mkdtemp(prefix="webchaos-isolate-"))  # mode 0700
        self.sockets = {port: self.folder / f"{port}.sock" for port in self.ports}
        self._servers: list[asyncio.Server] = []

    async def start(self) -> PortRelay:
        for port, path in self.sockets.items():
            async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int = port) -> None:
                try:
                    upstream = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    writer.close()
                    return
                with contextlib.suppress(asyncio.CancelledError):  # open when the harness's loop ends
                    await _splice((reader, writer), upstream)

            self._servers.append(await asyncio.start_unix_server(accept, path=str(path)))
        return self

    def forwards(self) -> list[str]:
        return [f"{port}={path}" for port, path in self.sockets.items()]

    def command(self, command: str) -> list[str]:
        """The argv that runs a shell command isolated, with these ports forwarded."""
        argv = [sys.executable, "-m", "harness.agents.isolate"]
        for forward in self.forwards():
            argv += ["--forward", forward]
        return [*argv, "--", "/bin/sh", "-c", command]

    async def close(self) -> None:
        for server in self._servers:
            server.close()
        for server in self._servers:
            with contextlib.suppress(Exception):
                await server.wait_closed()
        self._servers.clear()
        shutil.rmtree(self.folder, ignore_errors=True)

    async def __aenter__(self) -> PortRelay:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def check() -> None:
    """Raise IsolationError, saying why, when this machine cannot make the namespaces."""
    result = subprocess.run([sys.executable, "-m", "harness.agents.isolate", "--", "/bin/true"],
                            capture_output=True, text=True, timeout=30)
    if result.returncode != 0:
        raise IsolationError((result.stderr or result.stdout).strip() or f"exit status {result.returncode}")


# -- inside: the helper process -------------------------------------------------------------------


def _libc_call(libc: ctypes.CDLL, name: str, *args: object) -> None:
    if getattr(libc, name)(*args) != 0:
        code = ctypes.get_errno()
        raise IsolationError(f"{name}: {os.strerror(code)} ({errno.errorcode.get(code, code)})")


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def enter_namespaces() -> None:
    """unshare user + network + mount + PID namespaces, map our ids, bring `lo` up."""
    libc = ctypes.CDLL(None, use_errno=True)
    uid, gid = os.getuid(), os.getgid()
    try:
        _libc_call(libc, "unshare", CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID)
    except IsolationError as exc:
        raise IsolationError(
            f"cannot make a user namespace ({exc}); --isolate needs unprivileged user namespaces: check "
            "sysctl user.max_user_namespaces (> 0), kernel.unprivileged_userns_clone (Debian, = 1) and "
            "kernel.apparmor_restrict_unprivileged_userns (Ubuntu, = 0), or a container's seccomp profile"
        ) from exc
    with contextlib.suppress(FileNotFoundError):
        _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(sock.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(sock.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))
    # Our mounts stay ours (no propagation back to the host), then the agent gets a /proc of its own.
    _libc_call(libc, "mount", None, b"/", None, ctypes.c_ulong(MS_REC | MS_PRIVATE), None)


def _mount_proc() -> None:  # in the agent's process, between fork and exec: PID 1 of the new namespace
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b"proc", b"/proc", b"proc", ctypes.c_ulong(MS_NOSUID | MS_NODEV | MS_NOEXEC), None) != 0:
        os.write(2, f"webchaos isolate: mount /proc: {os.strerror(ctypes.get_errno())}\n".encode())
        os._exit(SETUP_FAILED)


async def serve(forwards: dict[int, str], argv: Sequence[str]) -> int:
    async def relay(path: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            outside = await asyncio.open_unix_connection(path)
        except OSError:
            writer.close()
            return
        await _splice((reader, writer), outside)

    servers = []
    for port, path in forwards.items():
        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str = path) -> None:
            with contextlib.suppress(asyncio.CancelledError):  # still open when the command exits: just end
                await relay(path, reader, writer)

        servers.append(await asyncio.start_server(accept, "127.0.0.1", port))
    # Popen and a pidfd, not asyncio's subprocess: after unshare(CLONE_NEWPID) this process may not start
    # threads (asyncio's child watcher is one), and its first child is PID 1 of the new namespace.
    process = subprocess.Popen(list(argv), preexec_fn=_mount_proc)  # noqa: ASYNC220
    exited = asyncio.Event()
    pidfd = os.pidfd_open(process.pid)
    loop = asyncio.get_running_loop()
    loop.add_reader(pidfd, exited.set)
    try:
        await exited.wait()
    finally:
        loop.remove_reader(pidfd)
        os.close(pidfd)
    code = process.wait()
    for server in servers:
        server.close()
    return code if code >= 0 else 128 - code


def main(args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.agents.isolate",
        description="Run a command in its own user, network, PID and mount namespaces, where only the "
                    "forwarded ports exist on 127.0.0.1 (each relayed to a Unix socket outside).")
    parser.add_argument("--forward", action="append", default=[], metavar="PORT=SOCKET",
                        help="listen on 127.0.0.1:PORT inside and relay to the Unix socket SOCKET (repeatable)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- then the command and its arguments")
    parsed = parser.parse_args(args)
    command = parsed.command[1:] if parsed.command[:1] == ["--"] else parsed.command
    if not command:
        parser.error("no command")
    forwards: dict[int, str] = {}
    for forward in parsed.forward:
        port, sep, path = forward.partition("=")
        if not sep or not port.isdigit() or not path:
            parser.error(f"--forward {forward!r}: expected PORT=SOCKET")
        forwards[int(port)] = path
    try:
        enter_namespaces()
    except (IsolationError, OSError) as exc:
        print(f"webchaos isolate: {exc}", file=sys.stderr)
        return SETUP_FAILED
    return asyncio.run(serve(forwards, command))


if __name__ == "__main__":
    sys.exit(main())

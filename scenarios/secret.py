"""The per-stack secret: what the oracle, the control API and the raw sites server ask of every caller.

The harness makes one secret when it starts a stack (`make_secret`) and keeps it in its own
memory only. It reaches the two service processes through an inherited pipe: the harness
writes it into a fresh `os.pipe()`, closes the write end and passes the read end to the
child (`pass_fds`); the child reads it once at start (`read_secret_fd`) and closes the fd.
So it is never in an argv (`ps`), never in an environment (`/proc/<pid>/environ` is
readable by the same user, and the agent's environment is a copy of the harness's), never
in a file. The services then make themselves non-dumpable (`forbid_dumps`), which keeps
another process of the same user out of their `/proc/<pid>/mem` and `environ`.

Every request to the oracle and to the control API carries it in `SECRET_HEADER`; the
proxy adds it to every request it forwards to the sites server (after the guard has
stripped any `x-webchaos-*` header the agent sent) and takes it off again before the flow
is kept for the HAR. Comparison is constant-time (`secret_matches`). By hand (a shell)::

    python -c 'import secrets; print(secrets.token_urlsafe(32))' > secret && chmod 600 secret
    python -m sites.server --port 8101 --oracle-port 8102 --secret-fd 3 3<secret
    mitmdump -s proxy_addons/stack.py ... --set webchaos_secret_fd=3 3<secret
"""

import contextlib
import ctypes
import hmac
import os
import secrets

SECRET_HEADER = "x-webchaos-secret"
_PR_SET_DUMPABLE = 4
MAX_SECRET_BYTES = 1024


class SecretError(RuntimeError):
    pass


def make_secret() -> str:
    return secrets.token_urlsafe(32)


def secret_pipe(secret: str) -> int:
    """A pipe holding the secret; returns its read end (inheritable) for a child's `pass_fds`.
    The caller closes it once the child has started."""
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, secret.encode() + b"\n")  # far below the pipe buffer: never blocks
    finally:
        os.close(write_fd)
    return read_fd


def read_secret_fd(fd: int) -> str:
    """Read the secret from an inherited fd (a pipe or a file opened by the shell) and close it."""
    chunks: list[bytes] = []
    try:
        while sum(len(c) for c in chunks) <= MAX_SECRET_BYTES:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            chunks.append(chunk)
    except OSError as exc:
        raise SecretError(f"cannot read the secret from fd {fd}: {exc.strerror}") from exc
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    secret = b"".join(chunks).strip().decode(errors="replace")
    if len(secret) < 16 or len(secret) > MAX_SECRET_BYTES:
        raise SecretError(f"the secret read from fd {fd} must be 16 to {MAX_SECRET_BYTES} characters")
    return secret


def secret_matches(given: str | bytes | None, expected: str) -> bool:
    """Constant-time comparison (in the length of `expected`)."""
    if given is None:
        return False
    if isinstance(given, str):
        given = given.encode("utf-8", "replace")
    return hmac.compare_digest(given, expected.encode())


def refusal(what: str) -> str:
    return (f"webchaos: {what} answers only the webchaos harness and proxy: missing or wrong "
            f"{SECRET_HEADER} header (agents reach the sites through their episode's proxy port)\n")


def forbid_dumps() -> None:
    """PR_SET_DUMPABLE 0: no core dumps, and another process of the same user cannot read this
    one's /proc/<pid>/mem, environ or attach to it (only a process with CAP_SYS_PTRACE can)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)

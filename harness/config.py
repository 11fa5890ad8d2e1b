"""Where things live on disk and how to find the browser."""

import functools
import os
import random
import shutil
import socket
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def default_state_dir() -> Path:
    """The stack's own files (the proxy's CA, service logs): $WEBCHAOS_STATE_DIR, read when a stack is made."""
    return Path(os.environ.get("WEBCHAOS_STATE_DIR", PROJECT_ROOT / ".webchaos"))


RUNS_DIR = Path(os.environ.get("WEBCHAOS_RUNS_DIR", PROJECT_ROOT / "runs"))

_CHROMIUM_CANDIDATES = (
    "/usr/lib/chromium/chromium",       # Debian: the real binary (the /usr/bin wrapper prints warnings)
    "/usr/lib/chromium-browser/chromium-browser",
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
    "/usr/bin/google-chrome",
)
# Debian's chromium-headless-shell: the same Blink and V8 without the browser's UI layer. For the same
# episodes it takes about half the CPU of `chromium --headless` (benchmarks/browser_cost.py), and Chromium
# is most of what a run or a test costs on a small machine. Used for the runs' own headless browser; the
# browser an agent attaches to by CDP stays chromium (the shell has no extensions, which Stagehand loads).
_HEADLESS_SHELL_CANDIDATES = (
    "/usr/lib/chromium/chromium-headless-shell",
    "/usr/bin/chromium-headless-shell",
)


class ChromiumNotFound(RuntimeError):
    pass


def find_chromium(*, headless: bool = False) -> str:
    """$WEBCHAOS_CHROMIUM when set; else, for a headless browser, Debian's headless shell if installed; else the
    first Chromium found."""
    explicit = os.environ.get("WEBCHAOS_CHROMIUM")
    candidates = [explicit] if explicit else []
    if headless:
        candidates += list(_HEADLESS_SHELL_CANDIDATES)
    candidates += list(_CHROMIUM_CANDIDATES)
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found:
        return found
    raise ChromiumNotFound(
        "no Chromium found: install Debian's package (apt-get install -y chromium chromium-headless-shell, or run "
        "`make test` as root) or set WEBCHAOS_CHROMIUM=/path/to/chromium"
    )


EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
# Listening ports are drawn from just below the kernel's ephemeral range: the kernel hands ports in that range to
# every bind(0) (a proxy's episode listeners, other test workers) and every outgoing connection, so one of those
# could take a port between our check and our service's bind (seen on a busy machine: a stack's control port
# became another proxy's episode listener, and its health checks landed in that episode).
LISTEN_SPAN = 16_384


@functools.cache  # the machine's range does not change while we run
def _listen_range() -> range:
    try:
        low = int(EPHEMERAL_RANGE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return range(0)
    return range(max(1024, low - LISTEN_SPAN), low)


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port that was free a moment ago on loopback (the caller binds it soon after), outside the ephemeral
    range where the machine allows it; a port that could not be bound is drawn again."""
    candidates = _listen_range()
    if candidates:
        draw = random.SystemRandom()  # not the episode's seed: which port serves is not part of any episode
        for _ in range(64):
            if _bindable(port := draw.choice(candidates)):
                return port
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])

"""The `webchaos` console script. Every command line goes to the typer app (harness/cli/main.py) but one:
`webchaos --help` prints what an earlier run with the same inputs printed, without importing typer or rich.
Laying out that help is typer's work alone, and it cost 2.5 times importing typer and rich (benchmarks/
cli_start.py), the floor a fast command is measured against.

What it printed is kept by harness.cli.derived, keyed by everything the text derives from: the command line's
own sources (the commands, their help and order), the installed distributions (typer's, click's and rich's
versions among them), the program name, and what typer and rich read to lay out and colour it (the terminal
variables of the environment, which of stdin, stdout and stderr are terminals and their sizes, stdout's
encoding). A change to any of them prints through typer again, and keeps that. Only the standard library is
imported on the way."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

from harness.cli import derived

# Environment variables typer, click or rich read when they lay out or colour the help
TERMINAL_ENV = frozenset({
    "COLUMNS", "LINES", "JUPYTER_COLUMNS", "JUPYTER_LINES", "TERMINAL_WIDTH", "TERM", "COLORTERM", "TERM_PROGRAM",
    "NO_COLOR", "FORCE_COLOR", "PY_COLORS", "GITHUB_ACTIONS", "TTY_COMPATIBLE", "TTY_INTERACTIVE",
    "DATABRICKS_RUNTIME_VERSION", "PYCHARM_HOSTED", "JPY_PARENT_PID", "VSCODE_VERBOSE_LOGGING", "PYTHONIOENCODING",
    "PYTHONUTF8", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES",
})
TERMINAL_ENV_PREFIXES = ("TYPER_", "_TYPER_", "CLICK_", "RICH_")
CLI_FOLDER = Path(__file__).resolve().parent


def terminal_settings() -> str:
    """What typer and rich read, in this process, to lay out and colour the help."""
    facts = [f"program {os.path.basename(sys.argv[0])}"]
    facts += [f"env {name}={value}" for name, value in sorted(os.environ.items())
              if name in TERMINAL_ENV or name.startswith(TERMINAL_ENV_PREFIXES)]
    for fd in (0, 1, 2):
        try:
            size: Any = tuple(os.get_terminal_size(fd))
        except (OSError, ValueError):
            size = None
        facts.append(f"fd {fd} terminal {os.isatty(fd)} size {size}")
    facts.append(f"stdout encoding {getattr(sys.stdout, 'encoding', None)} utf8 mode {sys.flags.utf8_mode}")
    return "\0".join(facts)


def help_inputs(settings: str) -> str:
    """The digest of what `webchaos --help` prints from, on a terminal of `settings`."""
    facts = [f"{name}\0{declared}" for name, declared in derived.distributions()]
    return derived.inputs_digest(derived.python_files(CLI_FOLDER), [*facts, settings])


def _cache_name(settings: str) -> str:
    """One file per checkout and terminal settings: two checkouts, or two terminals, do not take turns
    overwriting one file."""
    where = hashlib.sha256(str(CLI_FOLDER).encode()).hexdigest()[:12]
    return f"help-printed-{where}-{hashlib.sha256(settings.encode()).hexdigest()[:8]}"


class _Recorder:
    """Stands for stdout while typer prints the help: passes every write on and keeps a copy."""

    def __init__(self, out: Any) -> None:
        self._out = out
        self.written: list[str] = []

    def write(self, text: str | bytes) -> int:
        written = self._out.write(text)  # what the real stdout refuses (bytes but b"" from click) raises here
        self.written.append(text if isinstance(text, str) else text.decode(self._out.encoding or "utf-8"))
        return int(written or 0)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding, flush: the real stdout's
        return getattr(self._out, name)


def _run_app() -> None:
    from harness.cli.main import main as run_app

    run_app()


def print_help() -> None:
    """`webchaos --help`: the kept text when it was printed from the same inputs, else typer's (then kept)."""
    settings = terminal_settings()
    inputs, name = help_inputs(settings), _cache_name(settings)
    kept = derived.read(name, inputs)
    if isinstance(kept, str):
        sys.stdout.write(kept)
        sys.stdout.flush()
        return
    recorder = _Recorder(sys.stdout)
    sys.stdout = recorder
    try:
        _run_app()
    except SystemExit as exit_:
        if exit_.code in (0, None):
            derived.write(name, inputs, "".join(recorder.written))
        raise
    finally:
        sys.stdout = recorder._out


def main() -> None:
    if sys.argv[1:] == ["--help"]:
        print_help()
    else:
        _run_app()

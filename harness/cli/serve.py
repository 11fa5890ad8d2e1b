"""`webchaos serve`: the command (harness/interactive/serve.py holds the server; imported when it runs)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from harness.cli.common import CliError, load_catalog
from harness.config import RUNS_DIR


def serve(
    secret_fd: Annotated[int, typer.Option(
        "--secret-fd", help="an inherited file descriptor holding the secret every request must carry in the "
        "x-webchaos-secret header (a pipe from the program that starts this, or `3<secret-file`)")],
    port: Annotated[int, typer.Option(help="loopback port (0: any free one; the URL is printed)", min=0,
                                      max=65535)] = 0,
    run_dir: Annotated[Path | None, typer.Option(help="where episode folders go (default runs/<timestamp>)")] = None,
    agent: Annotated[str, typer.Option(help="the agent name the episodes carry")] = "external",
    catalog: Annotated[list[Path] | None, typer.Option(help="scenario YAML file or folder (default: built-in)")] = None,
    exit_with_stdin: Annotated[bool, typer.Option(
        "--exit-with-stdin", help="stop when stdin ends (the parent that started this exited)")] = False,
) -> None:
    """Serve episodes to a program that cannot import webchaos (BrowserGym): open, grade and close them over
    loopback HTTP. Prints {"url", "run_dir"} as one JSON line once listening; stops on SIGTERM or Ctrl-C."""
    from harness.interactive.serve import EpisodeService
    from harness.interactive.serve import serve as serve_forever
    from harness.run.runner import new_run_id
    from scenarios.secret import SecretError, read_secret_fd

    try:
        secret = read_secret_fd(secret_fd)
    except SecretError as exc:
        raise CliError(str(exc)) from exc
    service = EpisodeService(load_catalog(catalog), run_dir or RUNS_DIR / new_run_id(), agent=agent)

    def announce(where: dict[str, str]) -> None:
        sys.stdout.write(json.dumps(where) + "\n")
        sys.stdout.flush()

    try:
        serve_forever(service, secret, port, exit_with_stdin=exit_with_stdin, announce=announce)
    except OSError as exc:
        raise CliError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}") from exc

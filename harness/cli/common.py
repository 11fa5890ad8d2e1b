"""What every command shares: the one error path (`CliError`), the console, loading the catalog,
reading a seed list, and the options several commands take."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from typer.core import TyperGroup

if TYPE_CHECKING:
    from scenarios.loader import Catalog

console = Console(soft_wrap=True)  # an error names a path: never broken across lines

HTTPS_HELP = ("serve the sites over https:// (proxy CA in the state folder; the harness's Chromium trusts "
              "only that CA); start URLs become https://")
ISOLATE_HELP = ("run each cmd: agent in its own user, network and PID namespaces where 127.0.0.1 has only its "
                "episode's proxy port (and CDP port): the oracle, control API and sites server are unreachable")


class CliError(Exception):
    """The one way a command fails: `webchaos: error: <message>` as one line on stderr, exit code 2 (the
    command could not do what was asked). A bad option value is a usage error instead
    (`typer.BadParameter`), shown with the command's usage."""

    exit_code = 2

    def __init__(self, message: str) -> None:
        self.message = " ".join(message.split("\n"))
        super().__init__(self.message)


class CheckFailed(CliError):
    """A check that ran and says no (e.g. `grade --check`): the same one line, exit code 1."""

    exit_code = 1


class Commands(TyperGroup):
    """The `webchaos` command group: turns a CliError raised by any command into its line and exit code."""

    def invoke(self, ctx: Any) -> Any:  # typer's own (vendored) click Context
        try:
            return super().invoke(ctx)
        except CliError as exc:
            typer.echo(f"webchaos: error: {exc.message}", err=True)
            raise typer.Exit(exc.exit_code) from None


def cli_seeds(text: str) -> list[int]:
    """A seed list option ('1', '1,2,5', '1-10'); a bad one is a usage error naming it."""
    from scenarios.seeding import SeedsError, parse_seeds

    try:
        return parse_seeds(text)
    except SeedsError as exc:
        raise typer.BadParameter(str(exc)) from exc


def load_catalog(paths: list[Path] | list[str] | None) -> Catalog:
    """The built-in catalog plus `paths` (scenario YAML files or folders)."""
    from scenarios.loader import ScenarioError
    from sites.registry import load_site_catalog

    try:
        return load_site_catalog(*(Path(p) for p in paths or []))
    except ScenarioError as exc:
        raise CliError(f"scenario error: {exc}") from exc


def check_isolation() -> None:
    """--isolate needs user namespaces; a CliError saying why they are not available here."""
    from harness.agents.isolate import IsolationError, check

    try:
        check()
    except IsolationError as exc:
        raise CliError(f"--isolate is not possible here: {exc}") from exc

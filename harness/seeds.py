"""The CLI's reading of a seed list: `scenarios.seeding.parse_seeds`, its error a typer error."""

import typer

from scenarios.seeding import SeedsError, parse_seeds


def cli_seeds(text: str) -> list[int]:
    try:
        return parse_seeds(text)
    except SeedsError as exc:
        raise typer.BadParameter(str(exc)) from exc

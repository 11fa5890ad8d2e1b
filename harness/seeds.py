"""Seed lists as the CLI takes them: '1', '1,2,5' or '1-10'."""

import typer


def parse_seeds(text: str) -> list[int]:
    try:
        if "-" in text and "," not in text:
            low, high = (int(p) for p in text.split("-", 1))
            return list(range(low, high + 1))
        return [int(p) for p in text.split(",") if p.strip()]
    except ValueError as exc:
        raise typer.BadParameter(f"seeds must look like '1', '1,2,5' or '1-10', got {text!r}") from exc

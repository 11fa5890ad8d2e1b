"""Jinja2 helpers shared by the sites: one autoescaping environment per template folder."""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jinja2


def make_environment(
    template_dir: Path, filters: Mapping[str, Callable[..., Any]] | None = None
) -> jinja2.Environment:
    """An environment that loads from `template_dir`, escapes everything and fails on unknown names."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(template_dir)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters.update(filters or {})
    return env


def format_cents(cents: int, currency: str = "$") -> str:
    """1234567 -> '$12,345.67' (negative amounts keep the sign in front)."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{currency}{whole:,}.{frac:02d}"

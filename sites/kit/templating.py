"""Pages on one shared layout: each site's templates first, then the kit's (`kit/base.html`,
`login.html`, `error.html`, `kit/_macros.html`), in one autoescaping environment."""

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jinja2
from fastapi.responses import HTMLResponse

from sites.kit.dates import DATE_FILTERS
from sites.kit.episode import SiteEpisode

KIT_DIR = Path(__file__).resolve().parent
# The kit's macros (templates/kit/_macros.html) every page may call without importing them.
KIT_MACROS = ("notice_region", "alert_region", "notice_and_alert", "line_items", "line_item")


def make_environment(
    template_dir: Path, filters: Mapping[str, Callable[..., Any]] | None = None
) -> jinja2.Environment:
    """Loads from `template_dir`, then the kit's templates; escapes everything; fails on unknown names.
    Filters: the kit's date filters, then `filters` (a site's own, which win on a shared name); the kit's
    macros (`KIT_MACROS`) are there without an import."""
    env = jinja2.Environment(
        loader=jinja2.ChoiceLoader([jinja2.FileSystemLoader(str(template_dir)),
                                    jinja2.FileSystemLoader(str(KIT_DIR / "templates"))]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,
    )
    env.filters.update(DATE_FILTERS)
    env.filters.update(filters or {})
    kit_macros = env.get_template("kit/_macros.html").module
    env.globals.update({name: getattr(kit_macros, name) for name in KIT_MACROS})
    return env


class Pages:
    """Renders a site's pages with the context every page of that site shares (its header)."""

    def __init__(self, name: str, title: str, template_dir: Path,
                 shared: Callable[[SiteEpisode | None], dict[str, Any]],
                 filters: Mapping[str, Callable[..., Any]] | None = None) -> None:
        self.env = make_environment(template_dir, filters)
        self.name, self.title, self.shared = name, title, shared

    def render(self, episode: SiteEpisode | None, template: str, status_code: int = 200,
               **context: Any) -> HTMLResponse:
        context.setdefault("notice", None)
        html = self.env.get_template(template).render(
            site_name=self.name, site_title=self.title, **{**self.shared(episode), **context})
        return HTMLResponse(html, status_code=status_code)


def format_cents(cents: int, currency: str = "$") -> str:
    """1234567 -> '$12,345.67' (negative amounts keep the sign in front)."""
    sign = "-" if cents < 0 else ""
    whole, frac = divmod(abs(cents), 100)
    return f"{sign}{currency}{whole:,}.{frac:02d}"

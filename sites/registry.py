"""Every site webchaos ships, discovered: each package `sites/<name>/` with a `site.py` that
exposes `SITE` (a `sites.kit.site.Site`) is a site. Adding one touches nothing outside its folder.
A site declared elsewhere (the tiny site of the tests) is served alongside them by passing it as `extra`."""

import functools
import importlib
import pkgutil
from collections.abc import Iterable
from pathlib import Path

from scenarios.loader import Catalog, load_catalog
from scenarios.profile import SiteProfile
from sites.kit.site import Site

_SITES_DIR = Path(__file__).resolve().parent
_NOT_SITES = frozenset({"kit"})


@functools.cache
def _discover() -> tuple[Site, ...]:
    found: list[Site] = []
    for module in sorted(pkgutil.iter_modules([str(_SITES_DIR)]), key=lambda m: m.name):
        if not module.ispkg or module.name in _NOT_SITES or not (_SITES_DIR / module.name / "site.py").exists():
            continue
        site = importlib.import_module(f"sites.{module.name}.site").SITE
        if not isinstance(site, Site) or site.name != module.name:
            raise TypeError(f"sites/{module.name}/site.py: SITE must be a Site named {module.name!r}")
        found.append(site)
    return tuple(found)


def all_sites(extra: Iterable[Site] = ()) -> dict[str, Site]:
    """The discovered sites by name, and the `extra` ones (a name may not be taken twice)."""
    sites = {site.name: site for site in _discover()}
    for site in extra:
        if site.name in sites:
            raise ValueError(f"extra site {site.name!r}: a site of that name is already served")
        sites[site.name] = site
    return sites


def site_hosts() -> list[str]:
    return [site.host for site in _discover()]


def profiles(extra: Iterable[Site] = ()) -> dict[str, SiteProfile]:
    """Each site's profile, with the fault types it implements (read off its `faults`)."""
    return {name: site.profile for name, site in all_sites(extra).items()}


def load_site_catalog(*roots: Path, extra: Iterable[Site] = ()) -> Catalog:
    """The catalog, checked against the sites (and the `extra` ones): each task's site exists and
    implements its variants' seed and server fault types (a `ScenarioError` names the file, the site
    and the type)."""
    return load_catalog(*roots, profiles=profiles(extra))

"""The built-in catalog, loaded once per test process.

Loading it (YAML, recipes expanded onto every task, checked against the sites) takes most of a second, and a
dozen test modules parametrise over it as they are imported: under pytest-xdist each worker loaded it once per
module. Tests share this one object, so they read it and never change it (a test that needs a changed catalog
builds its own)."""

import functools

from scenarios.loader import Catalog
from sites.registry import load_site_catalog


@functools.cache
def builtin_catalog() -> Catalog:
    return load_site_catalog()

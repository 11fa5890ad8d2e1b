"""What `webchaos list` and `webchaos faults` print, as plain data, and where they get it from.

Both derive from far more than they show: the catalog's tasks and variants need the YAML loaded and validated
and the recipes expanded onto every task (which needs each site's profile, so every site and its web framework),
and the fault table needs every fault plugin imported (the proxy's among them). So the data is derived once and
kept (harness.cli.derived), keyed by a digest of everything it derives from: the catalog files, the Python
sources of the packages below the harness that the catalog and the fault registry are made of, every fault
plugin's package, the installed distributions and their entry points, and the command line's own code. A run
with the same inputs reads the data (and what it printed, for the same console settings) back without importing
any of it."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.cli import derived
from harness.cli.common import console
from harness.config import PROJECT_ROOT
from scenarios.sources import catalog_files

# What the fault registry is made of (the fault types' base and the built-in plugins), and, with the sites (their
# profiles and the fault types each implements), what the expanded catalog is made of.
FAULT_PACKAGES = ("scenarios", "injectors", "proxy_addons")
CATALOG_PACKAGES = (*FAULT_PACKAGES, "sites")
FAULT_PLUGIN_GROUPS = "webchaos.faults."  # scenarios.faults.PLUGIN_GROUP_PREFIX, one group per layer


def _plugin_files() -> list[Path]:
    """The sources of every fault plugin's top-level package (found without importing it)."""
    files: list[Path] = []
    for top in sorted({module.split(".")[0] for module in derived.entry_point_modules(FAULT_PLUGIN_GROUPS)}):
        if top in CATALOG_PACKAGES:
            continue
        spec = importlib.util.find_spec(top)
        if spec is None:
            continue  # an entry point naming a missing module: deriving the data reports it
        if spec.submodule_search_locations:
            files += derived.python_files(*(Path(p) for p in spec.submodule_search_locations))
        elif spec.origin:
            files.append(Path(spec.origin))
    return files


def input_files(packages: tuple[str, ...], catalog: list[Path] | None = None) -> list[Path]:
    """The files data derived from `packages` (and the catalog of `catalog`, if not None) derives from."""
    # harness/cli: the commands' own code, which makes the data and prints it
    files = [*derived.python_files(*(PROJECT_ROOT / p for p in packages)), *_plugin_files(),
             *derived.python_files(Path(__file__).parent)]
    if catalog is not None:
        files += [path.resolve() for path in catalog_files(*catalog)]
    return files


def _inputs(packages: tuple[str, ...], catalog: list[Path] | None = None) -> str:
    facts = [f"{name}\0{declared}" for name, declared in derived.distributions()]
    if catalog is not None:  # which roots were asked for, and from where (a relative one names another file)
        facts.append("catalog\0" + "\0".join(str(p.resolve()) for p in catalog))
    return derived.inputs_digest(input_files(packages, catalog), facts)


def catalog_inputs(catalog: list[Path] | None) -> str:
    """The digest of what the catalog of `catalog` (None: the built-in one) is derived from."""
    return _inputs(CATALOG_PACKAGES, list(catalog or []))


def fault_inputs() -> str:
    """The digest of what the fault registry is derived from."""
    return _inputs(FAULT_PACKAGES)


def _cache_name(kind: str) -> str:
    """One file per kind and checkout (two checkouts do not take turns overwriting one file)."""
    return f"{kind}-{hashlib.sha256(str(PROJECT_ROOT).encode()).hexdigest()[:12]}"


def _derive_tasks(catalog: list[Path]) -> list[dict[str, Any]]:
    from harness.cli.common import load_catalog
    from scenarios.schema import kind_of

    cat = load_catalog(catalog)
    return [{"id": t.id, "kind": t.kind, "site": t.site, "primitives": [p.value for p in t.primitives],
             "title": t.title,
             "variants": [{"id": v.id, "infeasible": kind_of(t, v) != t.kind, "primitive": v.target_primitive.value,
                           "title": v.title} for v in cat.variants_for(t.id)]}
            for t in cat.tasks.values()]


def task_listing(catalog: list[Path] | None, inputs: str | None = None) -> list[dict[str, Any]]:
    """Every task of the catalog (the built-in one, or the files and folders of `catalog`) in catalog order:
    id, kind, site, primitives, title and its variants (those marked out of default runs included), each with id,
    whether it makes the task infeasible, target primitive and title. `inputs`: `catalog_inputs(catalog)` when
    the caller has it. A catalog that does not load raises CliError (nothing is kept)."""
    roots = list(catalog or [])
    result: list[dict[str, Any]] = derived.cached(
        _cache_name("list"), inputs or catalog_inputs(roots), lambda: _derive_tasks(roots))
    return result


def _derive_fault_types() -> list[dict[str, Any]]:
    from scenarios.faultdocs import catalog

    return catalog()


def fault_types(inputs: str | None = None) -> list[dict[str, Any]]:
    """Every registered fault type as `scenarios.faultdocs.catalog()` describes it (layer order, then name).
    `inputs`: `fault_inputs()` when the caller has it."""
    result: list[dict[str, Any]] = derived.cached(_cache_name("faults"), inputs or fault_inputs(),
                                                  _derive_fault_types)
    return result


def print_kept(kind: str, inputs: str, render: Callable[[], None]) -> None:
    """Print on the console what `render()` prints there, kept with `inputs` and the console's settings (width,
    colours, encoding, terminal or not): rich takes longer to lay out a long table than the rest of a fast
    command to start. The same `inputs` and settings print the same bytes."""
    if console.is_jupyter:  # rendered as HTML, not as text
        render()
        return
    settings = json.dumps([console.width, console.color_system, console.no_color, console.encoding,
                           console.legacy_windows, console.is_terminal, console.is_dumb_terminal])

    def capture() -> str:
        with console.capture() as captured:
            render()
        return captured.get()

    text = derived.cached(_cache_name(f"{kind}-printed-{hashlib.sha256(settings.encode()).hexdigest()[:8]}"),
                          inputs, capture)
    console.file.write(text)
    console.file.flush()

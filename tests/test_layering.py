"""The project's shape: top-level packages stand on floors and import only downward (type-only imports
included), no two files import each other in a circle, the sites server runs without the proxy's
code, and no generic layer names a site or uses its words."""

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sites.registry import all_sites

ROOT = Path(__file__).resolve().parent.parent
# Low to high; a package imports only packages on lower floors (and, without a circle, its own floor's).
FLOORS: dict[str, int] = {"scenarios": 1, "proxy_addons": 2, "grader": 2, "injectors": 2, "sites": 3,
                          "harness": 4, "webchaos": 5}
PACKAGES = tuple(FLOORS)
GENERIC = ("proxy_addons", "grader", "injectors", "harness")


def _imports(path: Path) -> list[str]:
    """Every module a file names in an import: function-level and type-only (TYPE_CHECKING) ones too,
    since an annotation that names a higher floor ties the floors together all the same."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names]
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _project_files() -> dict[str, Path]:
    return {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt):], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_imports_run_down_the_floors_only() -> None:
    """scenarios < proxy_addons, grader, injectors < sites < harness < webchaos (the public API on top)."""
    upward = []
    for name, path in sorted(_project_files().items()):
        own = FLOORS[name.split(".")[0]]
        up = {m for m in _imports(path) if FLOORS.get(m.split(".")[0], 0) > own}
        # `from a.b import C` names both a.b and a.b.C: one import, reported once.
        upward += sorted(f"{name} -> {m}" for m in up if not any(m.startswith(other + ".") for other in up))
    assert upward == []


def test_no_cycle_among_top_level_packages() -> None:
    """Packages on one floor (proxy_addons, grader, injectors) may use each other, but not both ways."""
    edges: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for name, path in _project_files().items():
        package = name.split(".")[0]
        edges[package] |= {m.split(".")[0] for m in _imports(path)} & set(PACKAGES) - {package}
    assert _cycles(edges) == []


def test_no_two_files_import_each_other_in_a_circle() -> None:
    modules = _project_files()
    edges = {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}
    # A module importing the package it lives in (`from harness.agents import base`) reaches its
    # sibling, not the package's __init__ re-exporting it: not a circle.
    for name in edges:
        edges[name] = {m for m in edges[name] if not name.startswith(m + ".")}
    assert _cycles(edges) == []


_SITES_SERVER_ALONE = """
import asyncio, json, sys
import httpx
from sites.server import build

async def main():
    _, oracle, _ = build()
    faults = [{"type": "stale_read", "layer": "server"},
              {"type": "latency", "layer": "network", "params": {"delay_ms": 5}},
              {"type": "overlay", "layer": "client", "match": {"path": "/"}}]
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=oracle), base_url="http://oracle") as client:
        opened = await client.post("/episodes", json={"site": "shop", "task_id": "t", "seed": 3, "faults": faults})
        armed = await client.post(f"/episodes/{opened.json()['episode_id']}/faults",
                                  json={"type": "validation_reject_once", "layer": "server"})
    print(json.dumps({"opened": opened.status_code, "armed": armed.status_code,
                      "loaded": sorted({m.split(".")[0] for m in sys.modules} & {"mitmproxy", "proxy_addons"})}))

asyncio.run(main())
"""


def test_the_sites_server_never_imports_the_proxy() -> None:
    """Opening an episode with faults of every layer, and arming one at run time, loads only the seed
    and server fault plugins: the sites server imports neither mitmproxy nor the proxy's addons."""
    done = subprocess.run([sys.executable, "-c", _SITES_SERVER_ALONE], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"opened": 201, "armed": 201, "loaded": []}


def _site_words() -> re.Pattern[str]:
    words: set[str] = set()
    for site in all_sites().values():
        words |= {site.name, site.profile.title, site.host}
        words |= set(site.profile.vocabulary.entity_kinds)
        words |= {f"{kind}_ids?" for kind in site.profile.vocabulary.entity_kinds}
    return re.compile(r"\b(" + "|".join(sorted(words, key=len, reverse=True)) + r")\b", re.I)


# Words the generic layers legitimately share with some site's vocabulary.
_COMMON = {"message", "messages", "message_id", "order", "address"}


@pytest.mark.parametrize("package", GENERIC)
def test_generic_layers_name_no_site(package: str) -> None:
    pattern = _site_words()
    hits = []
    for path in sorted((ROOT / package).rglob("*")):
        if path.suffix not in (".py", ".js", ".j2", ".html") or "__pycache__" in path.parts:
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for found in pattern.finditer(line):
                if found.group(0).lower() not in _COMMON:
                    hits.append(f"{path.relative_to(ROOT)}:{number}: {found.group(0)}")
    assert hits == []

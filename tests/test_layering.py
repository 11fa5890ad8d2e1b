"""The project's shape: top-level packages import each other in one direction only, no package's
modules import each other in a circle, and no generic layer names a site or uses its words."""

import ast
import re
from pathlib import Path

import pytest

from sites.registry import all_sites

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scenarios", "injectors", "sites", "proxy_addons", "grader", "harness", "webchaos")
GENERIC = ("proxy_addons", "grader", "injectors", "harness")


def _imports(path: Path) -> list[str]:
    """Modules imported at run time (TYPE_CHECKING blocks skipped), function-level ones included."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip |= {n.lineno for b in node.body for n in ast.walk(b) if hasattr(n, "lineno")}
    found = []
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append(node.module)
            found += [f"{node.module}.{a.name}" for a in node.names]
    return found


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


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


def test_no_cycle_among_top_level_packages() -> None:
    edges: dict[str, set[str]] = {p: set() for p in PACKAGES}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            edges[package] |= {m.split(".")[0] for m in _imports(path)} & set(PACKAGES) - {package}
    assert _cycles(edges) == []


def test_nothing_imports_the_public_webchaos_package() -> None:
    """`webchaos` re-exports the API from the other packages; importing it back would tie them in a knot."""
    users = [str(path.relative_to(ROOT)) for package in PACKAGES if package != "webchaos"
             for path in (ROOT / package).rglob("*.py") if any(m.split(".")[0] == "webchaos" for m in _imports(path))]
    assert users == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_cycle_among_the_modules_of_a_package(package: str) -> None:
    modules = {_module_name(p): p for p in (ROOT / package).rglob("*.py")}
    edges = {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}
    # A package's __init__ importing its own submodules is how it exposes them, not a cycle.
    for name in edges:
        edges[name] = {m for m in edges[name] if not name.startswith(m + ".")}
    assert _cycles(edges) == []


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

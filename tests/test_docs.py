"""The docs tell the truth: their runnable commands run, their links resolve, their worked examples work.

- A fenced block right after a `<!-- runnable -->` line holds `webchaos …` commands; each runs, in
  order, from the project root with the runs folder in a temporary directory (an argument under
  `runs/` points there too), and must exit 0. Only cheap commands are marked: listings and a
  browserless run.
- Every relative link (and image) in README.md, docs/ and benchmarks/README.md names a file that
  exists, and an anchor names a heading of the target.
- The worked examples of docs/extending.md (`<!-- example: NAME -->` blocks) load into the catalog,
  and the example fault type registers, parses and behaves as its own example test says.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from scenarios import faults
from scenarios.faults import FaultError, parse_fault
from scenarios.loader import CATALOG_DIR
from sites.registry import load_site_catalog
from tests.proxy_addons.conftest import Chain, chain  # noqa: F401  (`chain` is a fixture used below)

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", ROOT / "benchmarks" / "README.md", *(ROOT / "docs").glob("*.md")])
RUNNABLE = "<!-- runnable -->"
EXAMPLE = re.compile(r"<!-- example: ([\w-]+) -->")
FENCE = re.compile(r"^(```+|~~~+)")


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int  # 1-based line of the opening fence
    marker: str
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


def blocks(doc: Path) -> Iterator[Block]:
    """Fenced blocks that directly follow an HTML-comment marker line."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    i = 0
    while i < len(lines):
        marker = lines[i].strip()
        if marker.startswith("<!--") and i + 1 < len(lines) and (fence := FENCE.match(lines[i + 1])):
            end = next((j for j in range(i + 2, len(lines)) if lines[j].startswith(fence.group(1))), None)
            assert end is not None, f"{doc.relative_to(ROOT)}:{i + 2}: unclosed code block"
            yield Block(doc, i + 2, marker, "\n".join(lines[i + 2:end]))
            i = end
        i += 1


def runnable_blocks() -> list[Block]:
    return [b for doc in DOCS for b in blocks(doc) if b.marker == RUNNABLE]


def examples() -> dict[str, str]:
    found = {}
    for block in blocks(ROOT / "docs" / "extending.md"):
        m = EXAMPLE.fullmatch(block.marker)
        if m:
            found[m.group(1)] = block.text
    return found


def commands(block: Block) -> list[list[str]]:
    """Each shell line of a block, continuations joined and comments dropped, as argv."""
    joined = re.sub(r"\\\n", " ", block.text)
    out = []
    for line in joined.splitlines():
        argv = shlex.split(line, comments=True)
        if argv:
            assert argv[0] == "webchaos", f"{block.where}: a runnable block holds webchaos commands only: {line!r}"
            out.append(argv)
    return out


def webchaos_executable() -> str:
    beside = Path(sys.executable).parent / "webchaos"
    found = str(beside) if beside.exists() else shutil.which("webchaos")
    assert found, "the webchaos console script is not installed in this environment"
    return found


def test_the_docs_mark_commands_runnable() -> None:
    found = runnable_blocks()
    readme = [b for b in found if b.doc.name == "README.md" and b.doc.parent == ROOT]
    assert readme, "README.md shows no runnable command"
    runs = [argv for b in found for argv in commands(b) if argv[1] == "run"]
    assert any("cmd:python examples/http_agent.py" in argv for argv in runs), "no browserless run is exercised"


@pytest.mark.parametrize("block", runnable_blocks(), ids=lambda b: b.where)
def test_runnable_commands_exit_0(block: Block, tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    env = {**os.environ, "WEBCHAOS_RUNS_DIR": str(runs)}
    for argv in commands(block):
        args = [str(runs / a.removeprefix("runs/")) if a.startswith("runs/") else a for a in argv[1:]]
        done = subprocess.run([webchaos_executable(), *args], cwd=ROOT, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, (f"{block.where}: `{shlex.join(argv)}` exited {done.returncode}\n"
                                      f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")


# --- links -------------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (links there are not links)."""
    text = re.sub(r"^(```+|~~~+).*?^\1", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    text = re.sub(r"^(```+|~~~+).*?^\1", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*$", text, flags=re.M)}


def links() -> list[tuple[Path, str]]:
    return [(doc, m.group(1)) for doc in DOCS for m in LINK.finditer(prose(doc.read_text(encoding="utf-8")))]


@pytest.mark.parametrize(("doc", "target"), links(), ids=lambda x: str(x.relative_to(ROOT)) if isinstance(x, Path)
                         else x)
def test_relative_links_resolve(doc: Path, target: str) -> None:
    if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: …
        return
    path, _, anchor = target.partition("#")
    resolved = (doc.parent / path).resolve() if path else doc
    assert resolved.exists(), f"{doc.relative_to(ROOT)}: link to {target!r}: no such file"
    if anchor:
        assert resolved.suffix == ".md", f"{doc.relative_to(ROOT)}: anchor on a non-Markdown target {target!r}"
        assert anchor in anchors(resolved), (f"{doc.relative_to(ROOT)}: {target!r}: no such heading; "
                                             f"headings: {sorted(anchors(resolved))}")


def test_the_docs_have_links_to_check() -> None:
    assert len(links()) > 20


# --- the worked examples of docs/extending.md -----------------------------------------------------


def test_the_worked_task_variant_and_recipe_load_into_the_catalog(tmp_path: Path) -> None:
    found = examples()
    for name in ("task", "variant", "recipe"):
        (tmp_path / f"{name}.yaml").write_text(found[name], encoding="utf-8")
    catalog = load_site_catalog(CATALOG_DIR, tmp_path)
    task = yaml.safe_load(found["task"])["tasks"][0]["id"]
    variant = yaml.safe_load(found["variant"])["variants"][0]["id"]
    recipe = yaml.safe_load(found["recipe"])["recipes"][0]["id"]
    assert task in catalog.tasks
    assert variant in {v.id for v in catalog.variants_for(task)}
    assert f"{recipe}@{task}" in {v.id for v in catalog.variants_for(task)}
    assert f"{recipe}@shop_add_to_cart" in {v.id for v in catalog.variants_for("shop_add_to_cart")}


@pytest.fixture
def example_fault_module() -> Iterator[types.ModuleType]:
    """The example fault type's module, imported as `my_faults` (its import registers the type)."""
    module = types.ModuleType("my_faults")
    sys.modules["my_faults"] = module
    try:
        exec(compile(examples()["fault-type"], "docs/extending.md (fault-type)", "exec"), module.__dict__)
        yield module
    finally:
        for value in list(module.__dict__.values()):
            if isinstance(value, type) and issubclass(value, faults.FaultType) and value.__module__ == "my_faults":
                faults.unregister(value)
        del sys.modules["my_faults"]


def test_the_worked_fault_type_registers_and_parses(example_fault_module: types.ModuleType) -> None:
    (envelope,) = yaml.safe_load(examples()["fault-envelope"])
    spec, params = parse_fault(envelope, 0)
    assert spec.type == "maintenance_page" and type(params).__module__ == "my_faults"
    misspelled = {**envelope, "params": {"mesage": "x"}}
    with pytest.raises(FaultError) as refused:
        parse_fault(misspelled, 0)
    text = "faults[0].params.mesage: Extra inputs are not permitted (parameters of 'maintenance_page': message)"
    assert str(refused.value) == text
    assert text in (ROOT / "docs" / "extending.md").read_text(encoding="utf-8")


async def test_the_worked_fault_types_own_test_passes(example_fault_module: types.ModuleType,
                                                      chain: Chain) -> None:  # noqa: F811
    namespace: dict[str, Any] = {}
    exec(compile(examples()["fault-test"], "docs/extending.md (fault-test)", "exec"), namespace)
    tests = [f for name, f in namespace.items() if name.startswith("test_")]
    assert len(tests) == 1
    await tests[0](chain)

"""Suites: named, versioned, committed selections of the catalog (`scenarios/suites/<name>.yaml`).

A suite is the exact list of (task, base or variant) episodes and the seeds each runs on, so two users'
numbers on `core@1` come from the same episodes. The files are written by `webchaos catalog suites
--write` (harness/catalog/suites.py chooses what goes in, by a committed seed); a suite whose choice
changes gets the next version.
"""

from collections.abc import Iterator
from pathlib import Path

import yaml
from pydantic import Field, ValidationError

from scenarios.loader import ScenarioError, model_fields_at, parse_yaml
from scenarios.strict import Strict

SUITES_DIR = Path(__file__).resolve().parent / "suites"


class SuiteEntry(Strict):
    task: str = Field(description="catalog task id")
    variant: str | None = Field(default=None, description="variant id; none: the task's base (no faults)")


class Suite(Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    version: int = Field(ge=1, description="raised whenever the entries or seeds change")
    purpose: str = Field(min_length=1, description="what the suite is for, in a sentence")
    seeds: list[int] = Field(min_length=1, description="every entry runs on each of these seeds")
    chosen_with: int | None = Field(default=None, description="the seed of the draw that chose the entries")
    entries: list[SuiteEntry] = Field(min_length=1)

    @property
    def ref(self) -> str:
        """How a run names it: `core@1`."""
        return f"{self.name}@{self.version}"

    @property
    def episodes_per_agent(self) -> int:
        return len(self.entries) * len(self.seeds)

    def episodes(self) -> Iterator[tuple[str, str | None, int]]:
        """(task, variant or None, seed) for every episode, in the file's order, seed by seed."""
        for seed in self.seeds:
            for entry in self.entries:
                yield entry.task, entry.variant, seed

    def dump(self) -> str:
        """The suite as its committed YAML (one entry a line, so a diff shows what changed)."""
        head = {"name": self.name, "version": self.version, "purpose": self.purpose, "seeds": self.seeds}
        if self.chosen_with is not None:
            head["chosen_with"] = self.chosen_with
        lines = [yaml.safe_dump(head, sort_keys=False, width=110).rstrip(), "entries:"]
        for e in self.entries:
            lines.append(f"  - {{task: {e.task}, variant: {e.variant}}}" if e.variant else f"  - {{task: {e.task}}}")
        return "\n".join(lines) + "\n"


def suite_names(folder: Path = SUITES_DIR) -> list[str]:
    return sorted(p.stem for p in folder.glob("*.yaml"))


def names_a_file(name_or_path: str | Path) -> bool:
    """Is it a suite file of one's own (a YAML path), not a built-in suite's name (`core`, `core@1`)?"""
    text = str(name_or_path)
    return text.endswith((".yaml", ".yml")) or "/" in text


def suite_path(name_or_path: str | Path, folder: Path = SUITES_DIR) -> Path:
    """A built-in suite's file by name (`core`, or `core@1` to insist on a version), or a YAML path."""
    text = str(name_or_path)
    return Path(text) if names_a_file(text) else folder / f"{text.split('@', 1)[0]}.yaml"


def load_suite(name_or_path: str | Path, folder: Path = SUITES_DIR) -> Suite:
    """The suite, or a ScenarioError naming the file, the field and what was expected (and, for `core@2`
    when the file holds another version, which one it holds)."""
    path = suite_path(name_or_path, folder)
    if not path.is_file():
        known = ", ".join(suite_names(folder)) or "none"
        raise ScenarioError(path, "(file)", f"no such suite; built in: {known}")
    try:
        raw = parse_yaml(path.read_text())
    except yaml.YAMLError as exc:
        raise ScenarioError(path, "(file)", f"not valid YAML: {getattr(exc, 'problem', exc)}") from exc
    try:
        suite = Suite.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(root)"
        message = first["msg"]
        if first["type"] == "extra_forbidden":
            message = f"unknown field; allowed: {', '.join(model_fields_at(Suite, first['loc']))}"
        raise ScenarioError(path, where, message) from exc
    wanted = str(name_or_path)
    if "@" in wanted and not names_a_file(wanted) and wanted.split("@", 1)[1].lstrip("v") != str(suite.version):
        raise ScenarioError(path, "version", f"asked for {wanted}, the file holds {suite.ref}")
    return suite

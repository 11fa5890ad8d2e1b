"""What validation has proven, as committed in scenarios/validity/: the models of the site files
(`webchaos validate`) and of the specificity evidence (`webchaos validate --specificity`), and reading them.

Kept apart from running validation (validate.py, specificity.py) so the run report can read the evidence
without importing the runner that writes it.
"""

from pathlib import Path

from pydantic import BaseModel, Field

from harness.config import PROJECT_ROOT
from harness.run.results import write_json_atomic
from scenarios.faults import Primitive

VALIDITY_DIR = PROJECT_ROOT / "scenarios" / "validity"
RECOVERY_ON, RECOVERY_OFF = "reference", "reference-no-recovery"  # the two agents every variant is judged with
BASE = "base"  # a task's own runs are the item `base:<task>`
ON_TASK = " on "  # a variant's runs on a task other than its first are the item `<variant> on <task>`
# The folder's one file that is not a site's: `validate --specificity`'s evidence (harness/catalog/specificity.py).
SPECIFICITY_NAME = "specificity.json"


class RunRecord(BaseModel):
    success: bool
    score: float
    failed_checks: list[str] = Field(default_factory=list)
    first_failed_step: int | None = Field(default=None, description="1-based plan step the agent stopped at")
    agent_error: str | None = None
    fired: list[str] = Field(default_factory=list, description="fault types that fired (sorted)")
    digest: str = Field(default="", description="of what decides the run (decision_digest); '': before digests")
    again: bool | None = Field(default=None, description="success when run again (--resample); None: not yet")

    @property
    def flaky(self) -> bool:
        return self.again is not None and self.again != self.success


class Judgement(BaseModel):
    task: str
    target_primitive: str
    layers: list[str]
    faults_digest: str = Field(default="", description="of the faults judged: evidence of other faults is stale")
    recipe: str | None = None
    fair: bool | None = Field(description="None: not every seed has run yet")
    effective: bool | None = Field(default=None, description="each fault fired for the reference agent on every seed")
    biting: bool | None
    flaky: bool = Field(default=False, description="a run of it, run again, came out otherwise (either agent)")
    reason: str | None = Field(default=None, description="why not fair (seed, failed check, step, firings) or "
                                                         "not effective (seed, the faults that never fired)")

    @property
    def valid(self) -> bool | None:
        """Fair and effective (None until both are known)."""
        if self.fair is None or self.effective is None:
            return None
        return self.fair and self.effective


class ValidityFile(BaseModel):
    site: str
    seeds: list[int]
    # item (a task's base, `base:<task>`, or a variant on one of its tasks: variant_item) -> seed -> agent -> run
    runs: dict[str, dict[str, dict[str, RunRecord]]] = Field(default_factory=dict)
    variants: dict[str, Judgement] = Field(default_factory=dict)

    def bites_on(self, variant_id: str, seed: int) -> bool:
        """The agent without recoveries fails the variant on `seed`, where it passes the variant's base task."""
        judgement = self.variants.get(variant_id)
        if judgement is None:
            return False
        mine = self.runs.get(variant_id, {}).get(str(seed), {}).get(RECOVERY_OFF)
        base = self.runs.get(f"{BASE}:{judgement.task}", {}).get(str(seed), {}).get(RECOVERY_OFF)
        return mine is not None and base is not None and base.success and not mine.success


def variant_item(variant_id: str, tasks: list[str], task_id: str) -> str:
    """The item a variant's runs on `task_id` (one of its `tasks`) are recorded under: the variant's id on its
    first task, the one it is named and reported with; `<variant> on <task>` on each other. Each task of a
    variant is run, so each has its own runs: one item for all would keep whichever task finished last."""
    return variant_id if task_id == tasks[0] else f"{variant_id}{ON_TASK}{task_id}"


def validity_path(site: str, folder: Path = VALIDITY_DIR) -> Path:
    return folder / f"{site}.json"


def read_validity(site: str, folder: Path = VALIDITY_DIR) -> ValidityFile | None:
    path = validity_path(site, folder)
    if not path.is_file():
        return None
    return ValidityFile.model_validate_json(path.read_bytes())


def write_validity(data: ValidityFile, folder: Path = VALIDITY_DIR) -> Path:
    path = validity_path(data.site, folder)
    ordered = {item: {seed: dict(sorted(by_agent.items()))
                      for seed, by_agent in sorted(seeds.items(), key=lambda s: int(s[0]))}
               for item, seeds in sorted(data.runs.items())}
    data = data.model_copy(update={"runs": ordered, "variants": dict(sorted(data.variants.items())),
                                   "seeds": sorted(data.seeds)})
    write_json_atomic(path, data, exclude_defaults=True)
    return path



def all_validity(folder: Path = VALIDITY_DIR) -> list[ValidityFile]:
    """Every site's validity file in `folder` (not the specificity evidence beside them)."""
    return [ValidityFile.model_validate_json(p.read_bytes()) for p in sorted(folder.glob("*.json"))
            if p.name != SPECIFICITY_NAME]


SPECIFICITY_FILE = VALIDITY_DIR / SPECIFICITY_NAME
# A primitive x site cell is proven specific when, on its sampled variants, the agent lacking the target
# primitive fails at least this share and each agent lacking another primitive at most the other (issue 29).
DIAGONAL_GOAL = 0.8
OFF_DIAGONAL_LIMIT = 0.1


def ablated(primitive: Primitive) -> str:
    return f"reference-without-{primitive.value}"


class Cell(BaseModel):
    failed: int = 0
    of: int = 0


class SpecificityFile(BaseModel):
    sample_seed: int
    per_cell: int
    seed: int = Field(description="the episode seed every sampled variant runs on")
    sample: dict[str, str] = Field(default_factory=dict, description="variant id -> its faults' digest")
    # variant id -> agent -> run
    runs: dict[str, dict[str, RunRecord]] = Field(default_factory=dict)
    # target primitive (row) -> primitive the agent lacks (column) -> failed of judged
    matrix: dict[str, dict[str, Cell]] = Field(default_factory=dict)
    # "<site>/<target primitive>" -> primitive the agent lacks -> failed of judged: the matrix per site
    cells: dict[str, dict[str, Cell]] = Field(default_factory=dict)


def read_specificity(path: Path = SPECIFICITY_FILE) -> SpecificityFile | None:
    return SpecificityFile.model_validate_json(path.read_bytes()) if path.is_file() else None


def write_specificity(data: SpecificityFile, path: Path = SPECIFICITY_FILE) -> Path:
    ordered = data.model_copy(update={
        "sample": dict(sorted(data.sample.items())),
        "runs": {v: dict(sorted(by_agent.items())) for v, by_agent in sorted(data.runs.items())},
        "cells": dict(sorted(data.cells.items()))})
    write_json_atomic(path, ordered)
    return path


def proven_specific(data: SpecificityFile) -> dict[tuple[str, str], bool]:
    """(site, target primitive) -> whether the cell's sampled variants meet the goal (a cell whose variants
    have not all been run by the seven ablated agents is absent: not yet proven either way)."""
    proven: dict[tuple[str, str], bool] = {}
    for key, columns in data.cells.items():
        site, _, row = key.partition("/")
        if any(columns.get(p.value, Cell()).of == 0 for p in Primitive):
            continue
        proven[(site, row)] = all(
            cell.failed >= DIAGONAL_GOAL * cell.of if column == row else cell.failed <= OFF_DIAGONAL_LIMIT * cell.of
            for column, cell in columns.items())
    return proven


def diagonal_shown(data: SpecificityFile) -> str:
    """'grounding 51%, planning 26%, …': per target primitive, the share the agent lacking it fails."""
    return ", ".join(f"{row} {100 * cells[row].failed / cells[row].of:.0f}%"
                     for row, cells in data.matrix.items() if row in cells and cells[row].of) or "–"

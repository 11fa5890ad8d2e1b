"""`webchaos validate --specificity`: does a variant measure the primitive it names?

Seven ablated reference agents (`reference-without-<primitive>`, each lacking exactly that primitive's
recovery moves: harness/agents/recovery.py RECOVERIES) run a stratified sample of valid variants: up to
`PER_CELL` per primitive × site cell, chosen by a committed seed among the variants the validity files
judge fair and effective (so the full reference agent passes each on every seed). The matrix's cell
(row, column) is the share of the sample's variants targeting primitive *row* that the agent lacking
primitive *column* fails: a specific catalog has a high diagonal and low elsewhere.

The evidence is `scenarios/validity/specificity.json`, rewritten after every episode (`--resume` goes on
where a run stopped).
"""

import random
from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from harness.agents import ReferenceAgent
from harness.catalog.validate import (
    SPECIFICITY_NAME,
    VALIDITY_DIR,
    RunRecord,
    ValidityFile,
    faults_digest,
    record_of,
    render_markdown,
)
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult, write_json_atomic
from harness.run.runner import new_run_id, run_matrix
from harness.services.processes import Services
from scenarios.faults import Primitive
from scenarios.loader import Catalog

SPECIFICITY_FILE = VALIDITY_DIR / SPECIFICITY_NAME
SAMPLE_SEED = 20261203  # committed: the sample is the same for everyone until this changes
PER_CELL = 5
EPISODE_SEED = 1


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


def choose_sample(catalog: Catalog, files: Sequence[ValidityFile], per_cell: int = PER_CELL,
                  sample_seed: int = SAMPLE_SEED) -> list[str]:
    """Up to `per_cell` valid variants per (site, target primitive), drawn by the committed seed."""
    cells: dict[tuple[str, str], list[str]] = {}
    for data in files:
        for variant_id, judgement in data.variants.items():
            if variant_id in catalog.variants and judgement.valid:
                cells.setdefault((data.site, judgement.target_primitive), []).append(variant_id)
    chosen: list[str] = []
    for (site, primitive), ids in sorted(cells.items()):
        rng = random.Random(f"{sample_seed}:{site}:{primitive}")
        chosen += sorted(rng.sample(sorted(ids), min(per_cell, len(ids))))
    return chosen


def tally(data: SpecificityFile, catalog: Catalog) -> None:
    """The matrix from the runs: a variant counts in a cell once its column's agent has run it."""
    matrix = {row.value: {column.value: Cell() for column in Primitive} for row in Primitive}
    for variant_id, by_agent in data.runs.items():
        variant = catalog.variants.get(variant_id)
        if variant is None:
            continue
        row = matrix[variant.target_primitive.value]
        for column in Primitive:
            run = by_agent.get(ablated(column))
            if run is not None:
                row[column.value].of += 1
                row[column.value].failed += int(not run.success)
    data.matrix = matrix


def read_specificity(path: Path = SPECIFICITY_FILE) -> SpecificityFile | None:
    return SpecificityFile.model_validate_json(path.read_bytes()) if path.is_file() else None


def write_specificity(data: SpecificityFile, path: Path = SPECIFICITY_FILE) -> Path:
    ordered = data.model_copy(update={
        "sample": dict(sorted(data.sample.items())),
        "runs": {v: dict(sorted(by_agent.items())) for v, by_agent in sorted(data.runs.items())}})
    write_json_atomic(path, ordered.model_dump(mode="json"))
    return path


def plan_specificity(catalog: Catalog, files: Sequence[ValidityFile], *, resume: bool,
                     path: Path = SPECIFICITY_FILE) -> tuple[SpecificityFile, list[EpisodeSpec]]:
    """The file as the run starts (a sample whose faults changed is dropped) and the episodes still to run."""
    data = (read_specificity(path) if resume else None) or SpecificityFile(
        sample_seed=SAMPLE_SEED, per_cell=PER_CELL, seed=EPISODE_SEED)
    sample = choose_sample(catalog, files, data.per_cell, data.sample_seed)
    digests = {v: faults_digest(catalog.variants[v]) for v in sample}
    data.runs = {v: runs for v, runs in data.runs.items() if data.sample.get(v) == digests.get(v)}
    data.sample = digests
    specs = [EpisodeSpec(catalog.tasks[catalog.variants[v].tasks[0]], catalog.variants[v], data.seed) for v in sample
             if any(ablated(p) not in data.runs.get(v, {}) for p in Primitive)]
    return data, specs


async def run_specificity(catalog: Catalog, files: Sequence[ValidityFile], *, runs_dir: Path, concurrency: int = 2,
                          resume: bool = False, path: Path = SPECIFICITY_FILE, stack: Services | None = None,
                          on_result: Callable[[EpisodeResult], None] | None = None) -> SpecificityFile:
    data, specs = plan_specificity(catalog, files, resume=resume, path=path)
    run_id = f"specificity-{new_run_id()}"

    def keep(result: EpisodeResult) -> None:
        if not result.infra_failed and result.variant_id is not None:
            data.runs.setdefault(result.variant_id, {})[result.agent] = record_of(
                result, runs_dir / run_id / "episodes" / result.episode_id)
            tally(data, catalog)
            write_specificity(data, path)
        if on_result is not None:
            on_result(result)

    if specs:
        agents = [ReferenceAgent(recovery=True, without=p) for p in Primitive]
        await run_matrix(specs, agents, run_id=run_id, runs_dir=runs_dir, concurrency=concurrency, on_result=keep,
                         stack=stack, record_replay=False, resume=False)
    tally(data, catalog)
    write_specificity(data, path)
    return data


def render_specificity(data: SpecificityFile) -> list[str]:
    """The docs/validity.md section: the 7 x 7 matrix, failed % (of n) per cell."""
    columns = [p.value for p in Primitive]
    lines = ["## Specificity", "",
             f"A stratified sample of valid variants (up to {data.per_cell} per primitive × site cell, drawn with seed "
             f"{data.sample_seed}; {len(data.sample)} variants, episode seed {data.seed}) run by seven ablated "
             "reference agents, each lacking one primitive's recovery moves. A cell is the share of the row's "
             "variants (by target primitive) that the agent lacking the column's primitive fails. Specific: the "
             "diagonal high, the rest low.", "",
             "| target \\ lacking | " + " | ".join(columns) + " |", "|---|" + "---:|" * len(columns)]
    for row in columns:
        cells = []
        for column in columns:
            cell = data.matrix.get(row, {}).get(column, Cell())
            text = f"{100 * cell.failed / cell.of:.0f}% of {cell.of}" if cell.of else "–"
            cells.append(f"**{text}**" if row == column else text)
        lines.append(f"| {row} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def validity_docs(files: Sequence[ValidityFile], catalog: Catalog, path: Path = SPECIFICITY_FILE) -> str:
    """docs/validity.md: the validity files' judgements, then the specificity matrix when it has been run."""
    text = render_markdown(files, catalog)
    data = read_specificity(path)
    return text + ("\n".join(render_specificity(data)) if data is not None else "")

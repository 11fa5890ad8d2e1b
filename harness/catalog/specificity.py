"""`webchaos validate --specificity`: does a variant measure the primitive it names?

Seven ablated reference agents (`reference-without-<primitive>`, each lacking exactly that primitive's
recovery moves: harness/agents/recovery.py RECOVERIES) run a stratified sample of biting variants: up to
`PER_CELL` per primitive × site cell, chosen by a committed seed among the variants the validity files
judge fair and effective (so the full reference agent passes each on every seed) and that bite on the
episode seed the sample runs on (the agent without any recovery fails them there, and passes the base).
Specificity asks *which* missing recovery a variant's bite comes from, so a variant that bites no agent
has nothing to say about it: it is counted where it belongs, in the validity files' biting share. The
matrix's cell (row, column) is the share of the sample's variants targeting primitive *row* that the
agent lacking primitive *column* fails: a specific catalog has a high diagonal and low elsewhere.

The evidence is `scenarios/validity/specificity.json`, rewritten after every episode (`--resume` goes on
where a run stopped).
"""

import hashlib
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from harness.agents import ReferenceAgent
from harness.catalog.evidence import (
    DIAGONAL_GOAL,
    OFF_DIAGONAL_LIMIT,
    SPECIFICITY_FILE,
    Cell,
    RunRecord,
    SpecificityFile,
    ValidityFile,
    ablated,
    proven_specific,
    read_specificity,
    write_specificity,
)
from harness.catalog.validate import decision_digest, faults_digest, record_of, render_markdown
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult
from harness.run.runner import new_run_id, run_matrix
from harness.services.processes import Services
from scenarios.faults import Primitive
from scenarios.loader import Catalog

SAMPLE_SEED = 20261203  # committed: the sample is the same for everyone until this changes
PER_CELL = 5
EPISODE_SEED = 1


def sample_rank(sample_seed: int, variant_id: str) -> str:
    return hashlib.sha256(f"{sample_seed}:{variant_id}".encode()).hexdigest()


def choose_sample(catalog: Catalog, files: Sequence[ValidityFile], per_cell: int = PER_CELL,
                  sample_seed: int = SAMPLE_SEED) -> list[str]:
    """Up to `per_cell` valid variants in default runs that bite on the episode seed per (site, target
    primitive): the ones
    ranked first by a hash of the committed seed and their id. The ranking is each variant's own, so a cell
    that gains such variants keeps its sample unless a newcomer ranks above one in it (a redraw would replace
    the whole sample, and every run of it, each time the catalog grows)."""
    cells: dict[tuple[str, str], list[str]] = {}
    for data in files:
        for variant_id, judgement in data.variants.items():
            if variant_id in catalog.variants and catalog.variants[variant_id].by_default and judgement.valid \
                    and data.bites_on(variant_id, EPISODE_SEED):
                primitive = catalog.variants[variant_id].target_primitive.value  # the catalog's, now
                cells.setdefault((data.site, primitive), []).append(variant_id)
    chosen: list[str] = []
    for _, ids in sorted(cells.items()):
        chosen += sorted(sorted(ids, key=lambda v: sample_rank(sample_seed, v))[:per_cell])
    return chosen


def _count(row: dict[str, Cell], by_agent: dict[str, RunRecord]) -> None:
    """Add one variant's runs to a row: per ablated agent that ran it, one more judged, and failed or not."""
    for column in Primitive:
        if (run := by_agent.get(ablated(column))) is not None:
            row[column.value].of += 1
            row[column.value].failed += int(not run.success)


def tally(data: SpecificityFile, catalog: Catalog) -> None:
    """The matrix from the runs: a variant counts in a cell once its column's agent has run it."""
    cells: dict[str, dict[str, Cell]] = {}
    for variant_id, by_agent in data.runs.items():
        variant = catalog.variants.get(variant_id)
        if variant is None or variant.tasks[0] not in catalog.tasks:
            continue
        _count(cells.setdefault(f"{catalog.tasks[variant.tasks[0]].site}/{variant.target_primitive.value}",
                                {column.value: Cell() for column in Primitive}), by_agent)
    data.cells = cells
    # the matrix over every site: the per-site rows summed
    data.matrix = {row.value: {column.value: Cell() for column in Primitive} for row in Primitive}
    for key, columns in cells.items():
        total = data.matrix[key.partition("/")[2]]
        for lacking, cell in columns.items():
            total[lacking].of += cell.of
            total[lacking].failed += cell.failed


def plan_specificity(catalog: Catalog, files: Sequence[ValidityFile], *, resume: bool,
                     path: Path = SPECIFICITY_FILE,
                     sites: Collection[str] | None = None) -> tuple[SpecificityFile, list[EpisodeSpec]]:
    """The file as the run starts (a run judged on anything that has changed since, the task, its faults,
    the site's or the agent's code, is dropped) and the episodes still to run: of the sampled variants on
    `sites` only, when given (the sample and the other sites' runs are the same either way)."""
    data = (read_specificity(path) if resume else None) or SpecificityFile(
        sample_seed=SAMPLE_SEED, per_cell=PER_CELL, seed=EPISODE_SEED)
    sample = choose_sample(catalog, files, data.per_cell, data.sample_seed)
    current = {v: decision_digest(spec_of(catalog, v, data.seed), catalog) for v in sample}
    data.runs = {v: kept for v, runs in data.runs.items() if v in current
                 and (kept := {agent: run for agent, run in runs.items() if run.digest == current[v]})}
    data.sample = {v: faults_digest(catalog.variants[v]) for v in sample}
    specs = [spec_of(catalog, v, data.seed) for v in sample
             if any(ablated(p) not in data.runs.get(v, {}) for p in Primitive)]
    if sites is not None:
        specs = [spec for spec in specs if spec.task.site in sites]
    return data, specs


def spec_of(catalog: Catalog, variant_id: str, seed: int) -> EpisodeSpec:
    variant = catalog.variants[variant_id]
    return EpisodeSpec(catalog.tasks[variant.tasks[0]], variant, seed)


async def run_specificity(catalog: Catalog, files: Sequence[ValidityFile], *, runs_dir: Path, concurrency: int = 2,
                          resume: bool = False, path: Path = SPECIFICITY_FILE, stack: Services | None = None,
                          on_result: Callable[[EpisodeResult], None] | None = None,
                          on_planned: Callable[[int], None] | None = None,
                          sites: Collection[str] | None = None) -> SpecificityFile:
    """Run the sample's missing variants (with `resume`) or all of them with the seven ablated agents, writing
    the evidence after every episode. `on_planned` hears how many episodes will run; `on_result` each result."""
    data, specs = plan_specificity(catalog, files, resume=resume, path=path, sites=sites)
    agents = [ReferenceAgent(recovery=True, without=p) for p in Primitive]
    if on_planned is not None:
        on_planned(len(specs) * len(agents))
    run_id = f"specificity-{new_run_id()}"

    def keep(result: EpisodeResult) -> None:
        if not result.infra_failed and result.variant_id is not None:
            data.runs.setdefault(result.variant_id, {})[result.agent] = record_of(
                result, runs_dir / run_id / "episodes" / result.episode_id,
                decision_digest(spec_of(catalog, result.variant_id, data.seed), catalog))
            tally(data, catalog)
            write_specificity(data, path)
        if on_result is not None:
            on_result(result)

    if specs:
        await run_matrix(specs, agents, run_id=run_id, runs_dir=runs_dir, concurrency=concurrency, on_result=keep,
                         stack=stack, record_replay=False, resume=False)
    tally(data, catalog)
    write_specificity(data, path)
    return data


def render_specificity(data: SpecificityFile) -> list[str]:
    """The docs/validity.md section: the 7 x 7 matrix, failed % (of n) per cell."""
    columns = [p.value for p in Primitive]
    lines = ["## Specificity", "",
             f"A stratified sample of biting variants (valid, and failed on seed {data.seed} by the agent without "
             f"recoveries; up to {data.per_cell} per primitive × site cell, drawn with seed {data.sample_seed}; "
             f"{len(data.sample)} variants, episode seed {data.seed}) run by seven ablated "
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
    proven = proven_specific(data)
    lines += ["", f"Proven specific (in a primitive × site cell's sample, the agent lacking the primitive fails at "
                  f"least {DIAGONAL_GOAL:.0%} and each agent lacking another at most {OFF_DIAGONAL_LIMIT:.0%}): "
                  f"{sum(proven.values())} of {len(proven)} sampled cells"
                  + (": " + ", ".join(f"{site} × {row}" for (site, row), ok in sorted(proven.items()) if ok)
                     if any(proven.values()) else "") + "."]
    return [*lines, ""]


def render_families(data: SpecificityFile, catalog: Catalog) -> list[str]:
    """Per target primitive and fault family (the recipe a variant came from, or hand-written), how many of its
    sampled variants each ablated agent fails: where a row misses the diagonal, which families miss it, and
    which other agent's missing moves their bite comes from (a family every agent passes is rescued by moves
    of more than one primitive)."""
    columns = list(Primitive)
    families: dict[tuple[int, str], dict[str, Cell]] = {}  # (target's place in the table, family) -> row
    for variant_id, by_agent in data.runs.items():
        variant = catalog.variants.get(variant_id)
        if variant is not None:
            key = (columns.index(variant.target_primitive), variant.recipe or "hand-written")
            _count(families.setdefault(key, {c.value: Cell() for c in columns}), by_agent)
    lines = ["### By fault family", "",
             "Of each family's sampled variants, how many the agent lacking each primitive fails.", "",
             "| target | family | " + " | ".join(c.value for c in columns) + " |",
             "|---|---|" + "---:|" * len(columns)]
    for (place, family), row in sorted(families.items()):
        cells = [f"{row[c.value].failed}/{row[c.value].of}" if row[c.value].of else "–" for c in columns]
        cells[place] = f"**{cells[place]}**"
        lines.append(f"| {columns[place].value} | {family} | " + " | ".join(cells) + " |")
    return [*lines, ""]


def left_out_as_not_biting(files: Sequence[ValidityFile], catalog: Catalog, seed: int) -> list[str]:
    """Per target primitive, the valid variants the sample could not draw because none bites on `seed`: what
    the matrix does not speak for (their share is the validity section's biting column)."""
    valid: dict[str, int] = {}
    quiet: dict[str, int] = {}
    for data in files:
        for variant_id, judgement in data.variants.items():
            if variant_id in catalog.variants and judgement.valid:
                row = catalog.variants[variant_id].target_primitive.value
                valid[row] = valid.get(row, 0) + 1
                quiet[row] = quiet.get(row, 0) + int(not data.bites_on(variant_id, seed))
    parts = [f"{p.value} {quiet.get(p.value, 0)} of {valid[p.value]}" for p in Primitive if valid.get(p.value)]
    return [f"Valid variants left out of the sample because they do not bite on seed {seed} (the agent without "
            "recoveries passes them, or fails the base too: no agent's failure can show which primitive they "
            f"measure): {', '.join(parts)}.", ""]


def validity_docs(files: Sequence[ValidityFile], catalog: Catalog, path: Path = SPECIFICITY_FILE) -> str:
    """docs/validity.md: the validity files' judgements, then the specificity matrix when it has been run."""
    text = render_markdown(files, catalog)
    data = read_specificity(path)
    if data is None:
        return text
    return text + "\n".join([*render_specificity(data), *left_out_as_not_biting(files, catalog, data.seed),
                              *render_families(data, catalog)])

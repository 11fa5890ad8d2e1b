"""What goes into each built-in suite, chosen from the catalog and the validity files by a committed seed.

- smoke: the demo's tour (one task per site, its base and one variant per primitive, proven and biting where
  one is), seed 1.
- core: every primitive × site cell filled with CORE_PER_CELL proven variants (fair, effective, not flaky on
  seeds 1-3) on as few tasks as fill it, with those tasks' bases; seeds 1-3, at most CORE_BUDGET episodes per
  agent. Once committed it stays while it holds (`core_problems`), so numbers on one version stay comparable.
- full: every default variant on every task it applies to, and every base; seed 1.

`webchaos catalog suites --write` writes them to scenarios/suites/ (a suite whose choice changed gets the
next version); `webchaos catalog suites` says whether the committed files are what the catalog gives today.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from harness.catalog.evidence import Judgement, read_validity
from harness.catalog.validate import faults_digest
from scenarios.faults import Primitive
from scenarios.loader import Catalog
from scenarios.suites import SUITES_DIR, Suite, SuiteEntry, load_suite, suite_names

CHOSEN_WITH = 20261203  # the draw's seed: committed, so the same catalog and evidence give the same suites
CORE_PER_CELL = 3
CORE_SEEDS = [1, 2, 3]
CORE_BUDGET = 500  # episodes per agent

PURPOSES = {
    "smoke": "A first look in minutes: one task per site, its base and one variant per primitive (what "
             "`make demo` runs).",
    "core": f"The comparable profile: every primitive x site cell with {CORE_PER_CELL} proven variants (fair, "
            f"effective, not flaky) and their tasks' bases, on seeds 1-3.",
    "full": "Everything in default runs: every base and every default variant on every task it applies to.",
}


@dataclass(frozen=True)
class Shortfall:
    """A core cell with fewer proven variants than it wants."""

    site: str
    primitive: str
    have: int


def judgements(catalog: Catalog) -> dict[str, Judgement]:
    """Every variant's judgement in the committed validity files."""
    found: dict[str, Judgement] = {}
    for site in sorted({t.site for t in catalog.tasks.values()}):
        data = read_validity(site)
        if data is not None:
            found.update(data.variants)
    return found


def proven(catalog: Catalog, judged: Mapping[str, Judgement]) -> dict[str, str]:
    """variant id -> the task it was proven on: in default runs, fair and effective on every seed, not flaky,
    judged on the faults it has today."""
    out = {}
    for variant_id, j in judged.items():
        variant = catalog.variants.get(variant_id)
        if (variant is not None and variant.by_default and j.valid and not j.flaky and j.task in catalog.tasks
                and j.faults_digest in ("", faults_digest(variant))):
            out[variant_id] = j.task
    return out


def smoke(catalog: Catalog, judged: Mapping[str, Judgement]) -> list[SuiteEntry]:
    """The demo's tour, each primitive shown by a variant proven and biting where the task has one, else proven
    (a first look should not meet a variant nobody has judged)."""
    from harness.run.runner import tour

    sound = proven(catalog, judged)

    def rank(variant_id: str) -> int:
        return 0 if variant_id in sound and judged[variant_id].biting else 1 if variant_id in sound else 2

    task_ids, variant_ids = tour(catalog, rank=rank)
    entries = [SuiteEntry(task=t) for t in task_ids]
    for variant_id in variant_ids:
        task = next(t for t in task_ids if t in catalog.variants[variant_id].tasks)
        entries.append(SuiteEntry(task=task, variant=variant_id))
    return entries


def core(catalog: Catalog, judged: Mapping[str, Judgement], rng: random.Random) -> tuple[list[SuiteEntry],
                                                                                       list[Shortfall]]:
    """Per site, the fewest tasks (greedy, ties by the draw) whose proven variants fill every primitive's cell,
    then CORE_PER_CELL variants per cell drawn among them; the tasks' bases first."""
    by_task: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))  # task -> primitive -> ids
    for variant_id, task in sorted(proven(catalog, judged).items()):
        by_task[task][catalog.variants[variant_id].target_primitive.value].append(variant_id)
    bases: list[SuiteEntry] = []
    chosen_variants: list[SuiteEntry] = []
    short: list[Shortfall] = []
    primitives = [p.value for p in Primitive]
    for site in sorted({t.site for t in catalog.tasks.values()}):
        candidates = sorted(t for t in by_task if catalog.tasks[t].site == site)
        rng.shuffle(candidates)
        chosen: list[str] = []

        def have(primitive: str, chosen: list[str] = chosen) -> int:
            return sum(len(by_task[t][primitive]) for t in chosen)

        def gain(task: str) -> int:
            return sum(min(CORE_PER_CELL - have(p), len(by_task[task][p])) for p in primitives
                       if have(p) < CORE_PER_CELL)

        while (best := max((t for t in candidates if t not in chosen), key=gain, default=None)) and gain(best) > 0:
            chosen.append(best)
        bases += [SuiteEntry(task=t) for t in sorted(chosen)]
        for primitive in primitives:
            pool = sorted((t, v) for t in chosen for v in by_task[t][primitive])
            picked = sorted(rng.sample(pool, min(CORE_PER_CELL, len(pool))))
            chosen_variants += [SuiteEntry(task=t, variant=v) for t, v in picked]
            if len(picked) < CORE_PER_CELL:
                short.append(Shortfall(site, primitive, len(picked)))
    return bases + chosen_variants, short


def core_problems(suite: Suite, catalog: Catalog, judged: Mapping[str, Judgement]) -> list[str]:
    """Why a committed core no longer holds (empty: it does, and it is kept, so its numbers stay comparable)."""
    problems = []
    ok = proven(catalog, judged)
    for e in suite.entries:
        if e.task not in catalog.tasks:
            problems.append(f"{e.task}: no such task")
        elif e.variant is not None and ok.get(e.variant) != e.task:
            problems.append(f"{e.variant} on {e.task}: not proven there (not fair, effective and steady on seeds 1-3)")
    # a cell the suite no longer fills as it could (its variants now count for another primitive)
    have = Counter((catalog.tasks[e.task].site, catalog.variants[e.variant].target_primitive.value)
                   for e in suite.entries if e.variant in catalog.variants and e.task in catalog.tasks)
    could = Counter((catalog.tasks[task].site, catalog.variants[v].target_primitive.value) for v, task in ok.items())
    for (site, primitive), available in sorted(could.items()):
        if have[(site, primitive)] < min(CORE_PER_CELL, available):
            problems.append(f"{site} × {primitive}: {have[(site, primitive)]} variants, where {CORE_PER_CELL} are "
                            f"wanted and {available} proven")
    if suite.seeds != CORE_SEEDS:
        problems.append(f"seeds {suite.seeds}, not {CORE_SEEDS}")
    if suite.episodes_per_agent > CORE_BUDGET:
        problems.append(f"{suite.episodes_per_agent} episodes per agent, more than {CORE_BUDGET}")
    return problems


def full(catalog: Catalog) -> list[SuiteEntry]:
    entries = [SuiteEntry(task=t) for t in sorted(catalog.tasks)]
    entries += [SuiteEntry(task=t, variant=v.id) for v in sorted(catalog.variants.values(), key=lambda v: v.id)
                if v.by_default for t in v.tasks]
    return entries


@dataclass
class Built:
    suite: Suite
    changed: bool               # differs from the committed file (or there is none)
    shortfalls: list[Shortfall]


def build(catalog: Catalog, judged: Mapping[str, Judgement] | None = None, *,
          redraw_core: bool = False, folder: Path = SUITES_DIR) -> dict[str, Built]:
    """Each built-in suite as the catalog and evidence give it today, versioned against the committed files.
    smoke and full follow the catalog; the committed core is kept while every entry is still proven (and drawn
    again, as the next version, when one is not or `redraw_core`)."""
    judged = judgements(catalog) if judged is None else judged
    committed = set(suite_names(folder))
    kept = load_suite("core", folder) if "core" in committed and not redraw_core else None
    short: list[Shortfall] = []
    if kept is not None and not core_problems(kept, catalog, judged):
        core_entries = kept.entries  # a sound core stays as it is: new evidence does not reshuffle it
    else:
        core_entries, short = core(catalog, judged, random.Random(CHOSEN_WITH))
    chosen = {"smoke": ([1], smoke(catalog, judged), None), "core": (CORE_SEEDS, core_entries, CHOSEN_WITH),
              "full": ([1], full(catalog), None)}
    out = {}
    for name, (seeds, entries, drawn) in chosen.items():
        before = load_suite(name, folder) if name in committed else None
        same_choice = before is not None and before.seeds == seeds and before.entries == entries
        version = before.version if before is not None and same_choice else (before.version + 1 if before else 1)
        suite = Suite(name=name, version=version, purpose=PURPOSES[name], seeds=seeds, chosen_with=drawn,
                      entries=entries)
        out[name] = Built(suite, before != suite, short if name == "core" else [])
    return out


def write(built: Mapping[str, Built], folder: Path = SUITES_DIR) -> list[str]:
    """Write the changed suites; returns their refs."""
    folder.mkdir(exist_ok=True)
    written = []
    for b in built.values():
        if b.changed:
            (folder / f"{b.suite.name}.yaml").write_text(b.suite.dump())
            written.append(b.suite.ref)
    return written

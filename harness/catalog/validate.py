"""`webchaos validate`: the evidence that each variant is fair (the reference agent with its generic
recoveries passes it on every seed), effective (each of its faults fires, in the ledger, on every seed
the reference agent runs) and whether it bites (without recoveries it fails on a seed where it passes
the base task). A variant is valid when it is fair and effective: a fault that never fires proves
nothing, however fair the run.

Each site's evidence is one committed file, `scenarios/validity/<site>.json`: every base task and
variant × seed × agent run, reduced to what is deterministic (pass, score, failed checks, the first
plan step that failed, the fault types that fired), and per variant the judgement with its reason.
It is rewritten after every episode, so an interrupted validation resumes where it stopped
(`--resume`). `docs/validity.md` is rendered from these files.

Each run records a digest of what decides it (the task, the variant's faults, the site's and the kit's
code and templates, the agent's code, the seed): `--resume` runs again what is missing or stale (its
digest differs from today's), so changing one site's template re-judges that site only, and
`--stale` lists it. A run recorded before digests (no digest) is stale too: nothing shows it was judged on
today's code.
"""

import functools
import hashlib
import json
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from harness.agents import ReferenceAgent
from harness.agents.actions import action_files, step_key
from harness.agents.moves import move_files
from harness.catalog.evidence import (
    BASE,
    ON_TASK,
    RECOVERY_OFF,
    RECOVERY_ON,
    VALIDITY_DIR,
    Judgement,
    RunRecord,
    ValidityFile,
    read_validity,
    variant_item,
    write_validity,
)
from harness.config import PROJECT_ROOT
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult
from harness.run.runner import run_matrix
from harness.services.processes import Services
from scenarios.faults import registry
from scenarios.ledger import is_firing
from scenarios.loader import Catalog
from scenarios.schema import PlanStep, Task, Variant

DOCS_FILE = PROJECT_ROOT / "docs" / "validity.md"
AGENTS = (RECOVERY_ON, RECOVERY_OFF)


_READ: dict[Path, dict[Path, bytes]] = {}  # root -> {path in the project: bytes}, as first read


def _read_tree(root: Path) -> dict[Path, bytes]:
    return {path.relative_to(PROJECT_ROOT): path.read_bytes()
            for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)}


def _files_under(root: Path) -> dict[Path, bytes]:
    """Every file under `root` but caches, read once per process: a run's digests describe the code as the run
    found it, so a file edited (or reverted) while it runs does not change them half-way."""
    if root not in _READ:
        _READ[root] = _read_tree(root)
    return _READ[root]


def _tree_digest(*roots: Path, leave_out: frozenset[Path] = frozenset()) -> str:
    """Of every file under `roots` (path and bytes), caches and `leave_out` (paths in the project) left out."""
    kept = tuple((relative, data) for root in roots for relative, data in _files_under(root).items()
                 if relative not in leave_out)
    return _digest_of(kept)


@functools.cache
def _digest_of(files: tuple[tuple[Path, bytes], ...]) -> str:
    """Many runs' fault types leave the same files out: their trees are hashed once (`webchaos catalog` asks for
    thousands)."""
    digest = hashlib.sha256()
    for relative, data in files:
        digest.update(str(relative).encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def read_sources(sites: Iterable[str]) -> None:
    """Read what the digests of `sites`' runs cover now, before the first episode starts."""
    for site in sites:
        site_digest(site)
    agent_digest()
    grader_digest()


def changed_sources() -> list[Path]:
    """Files (paths in the project) that differ now from what the digests read: runs that saw such an edit may
    have been judged with either version."""
    changed: list[Path] = []
    for root, before in _READ.items():
        now = _read_tree(root)
        changed += sorted(path for path in before.keys() | now.keys() if before.get(path) != now.get(path))
    return changed


def forget_sources() -> None:
    """Read the tree again at the next digest (tests that change a copy of it)."""
    _READ.clear()
    _digest_of.cache_clear()
    site_digest.cache_clear()
    agent_digest.cache_clear()
    grader_digest.cache_clear()


CODE_ROOT = PROJECT_ROOT.resolve()  # where the running code is (PROJECT_ROOT may point at a copy in tests)


@functools.cache
def type_files() -> dict[Path, frozenset[str]]:
    """The files that implement particular proxy and injector fault types (a type's module, a client type's
    script), as paths in the project, each with the `layer:type` keys it implements. A module another file
    imports is shared, so it is not here: it stays in every digest."""
    roots = (CODE_ROOT / "proxy_addons", CODE_ROOT / "injectors")
    owners: dict[Path, set[str]] = {}
    for kind in registry().values():
        key = f"{kind.layer.value}:{kind.name}"
        module = sys.modules.get(kind.__module__)
        files = [Path(module.__file__).resolve()] if module is not None and module.__file__ else []
        if (script := getattr(kind, "script", None)) and files:
            files.append(files[0].parent / script)
        for file in files:
            if any(file.is_relative_to(root) for root in roots):
                owners.setdefault(file, set()).add(key)
    sources = {p.resolve(): p.read_text() for root in roots for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    out = {}
    for file, keys in owners.items():
        name = ".".join(file.relative_to(CODE_ROOT).with_suffix("").parts)
        if file.suffix == ".py" and any(path != file and re.search(rf"\b{re.escape(name)}\b", text)
                                        for path, text in sources.items()):
            continue
        out[file.relative_to(CODE_ROOT)] = frozenset(keys)
    return out


@functools.cache
def answer_files() -> dict[Path, frozenset[str]]:
    """The reference agent's move modules (harness/agents/moves), as paths in the project, each with the fault
    types whose obstacles its moves answer."""
    return {file.relative_to(CODE_ROOT): keys for file, keys in move_files().items()}


@functools.cache
def kind_files() -> dict[Path, frozenset[str]]:
    """The reference agent's action modules (harness/agents/actions), as paths in the project, each with the
    plan step kinds it performs (as `step:<kind>`)."""
    return {file.relative_to(CODE_ROOT): keys for file, keys in action_files().items()}


def _other_types(used: frozenset[str]) -> frozenset[Path]:
    """Files that implement, or answer, only fault types the run does not use, or perform only step kinds its
    plans do not use: they cannot change its verdict."""
    return frozenset(file for files in (type_files(), answer_files(), kind_files()) for file, keys in files.items()
                     if not keys & used)


def step_keys(tasks: Iterable[Task]) -> set[str]:
    """The step kinds the tasks' plans use, effects' completing steps included (as `step:<kind>`)."""
    def walk(steps: Iterable[PlanStep]) -> Iterable[str]:
        for step in steps:
            yield step.do
            if step.effect is not None:
                yield from walk(step.effect.complete)
    return {step_key(kind) for task in tasks for kind in walk(task.plan)}


@functools.cache
def site_digest(site: str, used: frozenset[str] = frozenset()) -> str:
    """The site's code and templates, with the kit's and the seed/server fault mechanisms' (injectors) but those
    of fault types (and step kinds) other than `used`."""
    return _tree_digest(PROJECT_ROOT / "sites" / "kit", PROJECT_ROOT / "sites" / site, PROJECT_ROOT / "injectors",
                        leave_out=_other_types(used))


@functools.cache
def agent_digest(used: frozenset[str] = frozenset()) -> str:
    """The reference agent's code and the proxy's (client and network fault mechanisms) but those of fault types
    and step kinds other than `used`: a new fault type or step kind leaves every other run's evidence current."""
    return _tree_digest(PROJECT_ROOT / "harness" / "agents", PROJECT_ROOT / "proxy_addons",
                        leave_out=_other_types(used))


@functools.cache
def grader_digest() -> str:
    """The grader's code, which turns the run into its verdict; its sums over many verdicts (aggregate.py)
    decide none."""
    return _tree_digest(PROJECT_ROOT / "grader", leave_out=frozenset({Path("grader") / "aggregate.py"}))


def decision_digest(spec: EpisodeSpec, catalog: Catalog) -> str:
    """Of everything that decides a validation run's verdict but the machine's timing: the run's own task
    (each task of a variant has its own runs), the variant's faults, the code, the seed."""
    used = frozenset((fault_keys(spec.variant) if spec.variant is not None else set()) | step_keys([spec.task]))
    # Fields left at their defaults are left out: a new optional field leaves every task's evidence current.
    parts = [spec.task.model_dump_json(exclude_defaults=True),
             faults_digest(spec.variant) if spec.variant is not None else "",
             site_digest(spec.task.site, used), agent_digest(used), grader_digest(), str(spec.seed)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def all_current(records: Iterable[RunRecord | None], spec: EpisodeSpec, catalog: Catalog) -> bool:
    """Every one of `records` (runs of one spec: one per agent) judged on what decides `spec` now; the digest is
    worked out once for all of them (`webchaos catalog` asks it of every recorded run)."""
    records = list(records)
    if any(record is None for record in records):
        return False
    digests = {record.digest for record in records if record is not None}
    return not digests or digests == {decision_digest(spec, catalog)}


def _item(variant: Variant | None, task_id: str) -> str:
    """The item a run of `variant` (None: the base) on `task_id` is recorded under."""
    return f"{BASE}:{task_id}" if variant is None else variant_item(variant.id, variant.tasks, task_id)


def item_key(spec: EpisodeSpec) -> str:
    return _item(spec.variant, spec.task.id)


def variant_items(variant: Variant) -> list[tuple[str, str]]:
    """(task, the item of the variant's runs on it) for each of its tasks."""
    return [(task_id, variant_item(variant.id, variant.tasks, task_id)) for task_id in variant.tasks]


def fired_types(episode_dir: Path) -> list[str]:
    path = episode_dir / "faults.jsonl"
    if not path.is_file():
        return []
    types = set()
    for line in path.read_text().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if is_firing(entry):
            types.add(f"{entry.get('layer')}:{entry.get('type')}")
    return sorted(types)


def record_of(result: EpisodeResult, episode_dir: Path, digest: str = "") -> RunRecord:
    outcome = result.outcome
    failed_step = None
    if outcome.status != "done" and outcome.steps_total:
        failed_step = min(outcome.steps_done + 1, outcome.steps_total)
    failures = result.verdict.failures if result.verdict is not None else []
    return RunRecord(success=result.success, score=round(result.score, 3), failed_checks=failures[:3],
                     first_failed_step=failed_step,
                     agent_error=(outcome.error or None) and " ".join(str(outcome.error).split())[:200],
                     fired=fired_types(episode_dir), digest=digest)


def faults_digest(variant: Variant) -> str:
    text = json.dumps(sorted(json.dumps(f, sort_keys=True) for f in variant.faults))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def drop_stale(data: ValidityFile, catalog: Catalog) -> None:
    """Forget the runs of variants whose faults changed since they were judged (or that are gone); a
    judgement without a digest (written before digests) is taken as of the current faults."""
    for variant_id, judgement in list(data.variants.items()):
        variant = catalog.variants.get(variant_id)
        if variant is None or judgement.faults_digest not in ("", faults_digest(variant)):
            data.variants.pop(variant_id)
            for item in [i for i in data.runs if i == variant_id or i.startswith(f"{variant_id}{ON_TASK}")]:
                data.runs.pop(item)


def fault_keys(variant: Variant) -> set[str]:
    """The variant's faults as the ledger names them when they fire (`layer:type`)."""
    return {f"{f.get('layer')}:{f.get('type')}" for f in variant.faults}


def layers_of(variant: Variant) -> list[str]:
    return sorted({str(f.get("layer")) for f in variant.faults})


def judge(variant: Variant, runs: dict[str, dict[str, dict[str, RunRecord]]], seeds: Sequence[int]) -> Judgement:
    """Over each of the variant's tasks and every seed: fair when recovery on passes every one; effective when
    each of its faults fires for recovery on in every one; biting when recovery off fails one where it passes
    that task's base."""
    several = len(variant.tasks) > 1

    def where(seed: int, task_id: str) -> str:
        return f"seed {seed}" + (f" on {task_id}" if several else "")

    cases = [(s, task_id, runs.get(item, {}).get(str(s), {}), runs.get(f"{BASE}:{task_id}", {}).get(str(s), {}))
             for task_id, item in variant_items(variant) for s in seeds]
    complete = all(agent in mine for _, _, mine, _ in cases for agent in AGENTS)
    fair: bool | None = None
    effective: bool | None = None
    biting: bool | None = None
    reason = None
    if complete:
        failing = [(s, task_id, mine[RECOVERY_ON]) for s, task_id, mine, _ in cases if not mine[RECOVERY_ON].success]
        fair = not failing
        if failing:
            s, task_id, run = failing[0]
            parts = [f"{where(s, task_id)}: score {run.score}"]
            if run.first_failed_step:
                parts.append(f"stopped at plan step {run.first_failed_step}")
            if run.agent_error:
                parts.append(f"agent: {run.agent_error}")
            if run.failed_checks:
                parts.append(f"failed check: {run.failed_checks[0]}")
            parts.append(f"fired: {', '.join(run.fired) or 'nothing'}")
            reason = "; ".join(parts)
        wanted = fault_keys(variant)
        silent = [(s, task_id, sorted(wanted - set(mine[RECOVERY_ON].fired))) for s, task_id, mine, _ in cases]
        silent = [(s, task_id, keys) for s, task_id, keys in silent if keys]
        effective = not silent
        if silent and reason is None:
            reason = "not effective: " + "; ".join(f"{where(s, task_id)}: {', '.join(keys)} never fired"
                                                   for s, task_id, keys in silent)
        if all(RECOVERY_OFF in base for _, _, _, base in cases):
            biting = any(base[RECOVERY_OFF].success and not mine[RECOVERY_OFF].success for _, _, mine, base in cases)
    flaky = [(s, task_id, agent) for s, task_id, mine, _ in cases for agent, run in sorted(mine.items()) if run.flaky]
    if flaky and reason is None:
        reason = "flaky: " + "; ".join(f"{where(s, task_id)} {agent} passed once and failed once"
                                       for s, task_id, agent in flaky)
    return Judgement(task=variant.tasks[0], target_primitive=variant.target_primitive.value,
                     layers=layers_of(variant), faults_digest=faults_digest(variant), recipe=variant.recipe,
                     fair=fair, effective=effective, biting=biting, flaky=bool(flaky), reason=reason)


def site_variants(catalog: Catalog, site: str, variant_ids: Iterable[str] | None = None) -> list[Variant]:
    wanted = set(variant_ids) if variant_ids is not None else None
    return [v for v in sorted(catalog.variants.values(), key=lambda v: v.id)
            if (wanted is None or v.id in wanted) and catalog.tasks[v.tasks[0]].site == site]


def plan_validation(catalog: Catalog, site: str, seeds: Sequence[int], variant_ids: Iterable[str] | None = None,
                    done: ValidityFile | None = None) -> list[EpisodeSpec]:
    """Every base task of the variants' tasks and every variant (each of its tasks) × seed, minus the
    (item, seed) pairs `done` already has, current, for both agents."""
    variants = site_variants(catalog, site, variant_ids)
    if variant_ids is None:
        task_ids = sorted(t for t, task in catalog.tasks.items() if task.site == site)
    else:
        task_ids = sorted({t for v in variants for t in v.tasks})
    specs = [EpisodeSpec(catalog.tasks[t], None, s) for t in task_ids for s in seeds]
    specs += [EpisodeSpec(catalog.tasks[t], v, s) for v in variants for t in v.tasks for s in seeds]
    if done is None:
        return specs
    return [spec for spec in specs
            if not all_current((done.runs.get(item_key(spec), {}).get(str(spec.seed), {}).get(a) for a in AGENTS),
                               spec, catalog)]


def stale_items(catalog: Catalog, site: str, seeds: Sequence[int], done: ValidityFile) -> list[tuple[str, int, str]]:
    """(item, seed, why) for every run `--resume` would do: missing, or judged on what has changed since."""
    out = []
    for spec in plan_validation(catalog, site, seeds, None, done):
        by_agent = done.runs.get(item_key(spec), {}).get(str(spec.seed), {})
        recorded = [by_agent[a] for a in AGENTS if a in by_agent]
        why = ("never run" if not recorded else "judged before digests" if all(not r.digest for r in recorded)
               else "changed since judged")
        out.append((item_key(spec), spec.seed, why))
    return out


def prepare_validation(catalog: Catalog, site: str, seeds: Sequence[int], variant_ids: list[str] | None, *,
                       resume: bool, folder: Path = VALIDITY_DIR) -> tuple[ValidityFile, list[EpisodeSpec]]:
    """The site's validity file as the run starts, and what the run must do. Stale judgements are dropped;
    without `resume`, the runs of what is asked for again are dropped too (they are about to be replaced),
    and everything else in the file is kept."""
    data = read_validity(site, folder) or ValidityFile(site=site, seeds=list(seeds))
    drop_stale(data, catalog)
    data.seeds = sorted(set(data.seeds) | set(seeds))
    specs = plan_validation(catalog, site, seeds, variant_ids, data if resume else None)
    if not resume:
        for spec in specs:
            data.runs.get(item_key(spec), {}).pop(str(spec.seed), None)
    return data, specs


async def validate_site(catalog: Catalog, site: str, seeds: Sequence[int], *, variant_ids: Iterable[str] | None = None,
                        concurrency: int = 2, resume: bool = False, folder: Path = VALIDITY_DIR,
                        runs_dir: Path, stack: Services | None = None,
                        on_result: Callable[[EpisodeResult], None] | None = None,
                        on_planned: Callable[[int], None] | None = None) -> ValidityFile:
    """Run what is missing (with `resume`) or everything asked for, and write the site's validity file after
    every episode. What was not asked for (other variants, other seeds) stays in the file as it was.
    `on_planned` hears how many episodes will run, before the first; `on_result` each one's result."""
    ids = list(variant_ids) if variant_ids is not None else None
    data, specs = prepare_validation(catalog, site, seeds, ids, resume=resume, folder=folder)
    agents = [ReferenceAgent(recovery=True), ReferenceAgent(recovery=False)]
    if on_planned is not None:
        on_planned(len(specs) * len(agents))

    digests = {(item_key(s), s.seed): decision_digest(s, catalog) for s in specs}

    def keep(result: EpisodeResult) -> None:
        if not result.infra_failed:
            spec_key = run_item(catalog, result.variant_id, result.task_id)
            episode_dir = runs_dir / run_id / "episodes" / result.episode_id
            data.runs.setdefault(spec_key, {}).setdefault(str(result.seed), {})[result.agent] = \
                record_of(result, episode_dir, digests.get((spec_key, result.seed), ""))
            refresh_after_run(data, catalog, result.variant_id, result.task_id)
            write_validity(data, folder)
        if on_result is not None:
            on_result(result)

    from harness.run.runner import new_run_id

    run_id = f"validate-{site}-{new_run_id()}"
    refresh(data, catalog, ids)  # the seeds asked for may have changed every judgement; each run then changes its own
    if specs:
        await run_matrix(specs, agents, run_id=run_id, runs_dir=runs_dir, concurrency=concurrency, on_result=keep,
                         stack=stack, record_replay=False)
    refresh(data, catalog, ids)
    write_validity(data, folder)
    return data


async def resample(catalog: Catalog, files: Sequence[ValidityFile], count: int, seed: int, *, runs_dir: Path,
                   concurrency: int = 2, sample_seed: int = 29, folder: Path = VALIDITY_DIR,
                   stack: Services | None = None) -> tuple[int, int, list[str]]:
    """Run `count` judged variants (drawn by `sample_seed`) again on `seed` with both agents; record each
    run's second outcome (`again`) in its site's file and judge again. Returns (agreeing runs, runs, the
    variants whose verdict flipped). Only runs judged on what decides them now are drawn: a run of older code
    or faults may differ from a run of today's for a reason, and that is staleness, not flakiness."""
    import random

    def spec(variant_id: str) -> EpisodeSpec:
        return EpisodeSpec(catalog.tasks[catalog.variants[variant_id].tasks[0]], catalog.variants[variant_id], seed)

    def current(data: ValidityFile, variant_id: str) -> bool:
        runs = data.runs.get(variant_id, {}).get(str(seed), {})
        return all_current((runs.get(a) for a in AGENTS), spec(variant_id), catalog)

    by_site = {data.site: data for data in files}
    judged = sorted((data.site, v) for data in files for v, j in data.variants.items()
                    if j.fair is not None and v in catalog.variants and current(data, v))
    chosen = random.Random(sample_seed).sample(judged, min(count, len(judged)))
    specs = [spec(v) for _, v in chosen]
    site_of = dict((v, s) for s, v in chosen)
    tally = {"agree": 0, "runs": 0}
    flipped: set[str] = set()

    def keep(result: EpisodeResult) -> None:
        if result.infra_failed or result.variant_id is None:
            return
        data = by_site[site_of[result.variant_id]]
        record = data.runs[result.variant_id][str(seed)][result.agent]
        record.again = result.success
        tally["runs"] += 1
        tally["agree"] += int(record.again == record.success)
        if record.flaky:
            flipped.add(result.variant_id)
        refresh_after_run(data, catalog, result.variant_id, result.task_id)
        write_validity(data, folder)

    from harness.run.runner import new_run_id

    if specs:
        await run_matrix(specs, [ReferenceAgent(recovery=True), ReferenceAgent(recovery=False)],
                         run_id=f"resample-{new_run_id()}", runs_dir=runs_dir, concurrency=concurrency,
                         on_result=keep, stack=stack, record_replay=False)
    return tally["agree"], tally["runs"], sorted(flipped)


def refresh(data: ValidityFile, catalog: Catalog, variant_ids: Iterable[str] | None = None) -> None:
    """Judge every variant of the file's site that has runs (or was asked for)."""
    wanted = set(variant_ids) if variant_ids is not None else None
    for variant in site_variants(catalog, data.site):
        if _has_runs(data, variant) or (wanted is not None and variant.id in wanted):
            data.variants[variant.id] = judge(variant, data.runs, data.seeds)
    data.variants = {k: v for k, v in data.variants.items() if k in catalog.variants}


def _has_runs(data: ValidityFile, variant: Variant) -> bool:
    return any(item in data.runs for _, item in variant_items(variant))


def run_item(catalog: Catalog, variant_id: str | None, task_id: str) -> str:
    """item_key of a run known by its result's ids."""
    return _item(catalog.variants[variant_id] if variant_id is not None else None, task_id)


def refresh_after_run(data: ValidityFile, catalog: Catalog, variant_id: str | None, task_id: str) -> None:
    """Judge again what one new run of `variant_id` (None: the base) on `task_id` changes (`refresh` of the
    whole site, after every episode, took more of a run's own CPU than the episodes' bookkeeping): the
    variant, or for a base task's run every variant with runs on that task."""
    if variant_id is not None:
        variants = [catalog.variants[variant_id]] if variant_id in catalog.variants else []
    else:
        variants = [v for v in site_variants(catalog, data.site) if task_id in v.tasks and _has_runs(data, v)]
    for variant in variants:
        data.variants[variant.id] = judge(variant, data.runs, data.seeds)


# --- reading the evidence --------------------------------------------------------------------------------------

K = TypeVar("K")


def _count_judged(files: Iterable[ValidityFile], key: Callable[[ValidityFile, Judgement], K],
                  keep: Callable[[str], bool] = lambda _: True) -> dict[K, dict[str, int]]:
    """key -> counts of judged, fair, effective and biting variants (and biting among the fair), of the variant
    ids `keep` keeps."""
    out: dict[K, dict[str, int]] = {}
    for data in files:
        for variant_id, judgement in data.variants.items():
            if judgement.fair is None or not keep(variant_id):
                continue
            cell = out.setdefault(key(data, judgement), {"judged": 0, "fair": 0, "effective": 0, "biting": 0,
                                                         "fair_biting": 0})
            cell["judged"] += 1
            cell["fair"] += int(bool(judgement.fair))
            cell["effective"] += int(bool(judgement.effective))
            cell["biting"] += int(bool(judgement.biting))
            cell["fair_biting"] += int(bool(judgement.fair and judgement.biting))
    return out


def _in_default_runs(catalog: Catalog) -> Callable[[str], bool]:
    """Is the variant (by id) in default runs: in the catalog, not marked unfair, ineffective or harmless?"""
    return lambda variant_id: variant_id in catalog.variants and catalog.variants[variant_id].by_default


def default_run_shares(files: Iterable[ValidityFile], catalog: Catalog) -> dict[str, dict[str, int]]:
    """target primitive -> counts of the judged variants in default runs: what a run of the catalog as shipped
    meets."""
    return _count_judged(files, lambda _, judgement: judgement.target_primitive, _in_default_runs(catalog))


def default_run_summary(files: Iterable[ValidityFile], catalog: Catalog) -> str:
    """One line: the default runs' judged variants, fair, effective, biting among the fair, overall and per target."""
    rows = default_run_shares(files, catalog)
    total = {k: sum(row[k] for row in rows.values()) for k in ("judged", "fair", "effective", "fair_biting")}
    per = ", ".join(f"{primitive} {_pct(row['fair_biting'], row['fair'])}" for primitive, row in sorted(
        rows.items(), key=lambda kv: (-kv[1]["fair_biting"] / max(1, kv[1]["fair"]), kv[0])))
    return (f"default runs: {total['judged']} variants judged, {_pct(total['fair'], total['judged'])} fair, "
            f"{_pct(total['effective'], total['judged'])} effective, {_pct(total['fair_biting'], total['fair'])} of "
            f"the fair biting (by target: {per})")


BITING_GOAL = 0.6  # of the fair variants in default runs, per target primitive (issue 29's row goal)


def rows_short_of_biting(files: Sequence[ValidityFile], catalog: Catalog) -> list[str]:
    """One line per target primitive whose default-run variants bite less than BITING_GOAL of the fair: the
    recipes biting less than the row does, the least first, and what the row would bite without them."""
    rows = default_run_shares(files, catalog)
    by_recipe_in_row = _count_judged(files, lambda _, j: (j.target_primitive, j.recipe or HAND_WRITTEN),
                                     _in_default_runs(catalog))
    lines = []
    for primitive, row in sorted(rows.items()):
        if not row["fair"] or row["fair_biting"] >= BITING_GOAL * row["fair"]:
            continue
        share = row["fair_biting"] / row["fair"]
        holding = sorted(((recipe, c) for (target, recipe), c in by_recipe_in_row.items()
                          if target == primitive and c["fair"] and c["fair_biting"] < share * c["fair"]),
                         key=lambda rc: (rc[1]["fair_biting"] / rc[1]["fair"], rc[0]))
        rest = {k: row[k] - sum(c[k] for _, c in holding) for k in ("fair", "fair_biting")}
        named = ", ".join(f"`{recipe}` bites {c['fair_biting']} of its {c['fair']} fair variants "
                          f"({_pct(c['fair_biting'], c['fair'])})" for recipe, c in holding)
        lines.append(f"{primitive} {_pct(row['fair_biting'], row['fair'])}: {named}; the row's other recipes bite "
                     f"{_pct(rest['fair_biting'], rest['fair'])} of {rest['fair']}")
    return lines


def shares(files: Iterable[ValidityFile]) -> dict[tuple[str, str], dict[str, int]]:
    """(site, primitive) -> counts of judged, fair, effective and biting variants."""
    return _count_judged(files, lambda data, judgement: (data.site, judgement.target_primitive))


@dataclass(frozen=True)
class Currency:
    """How many of a site's judged variants were judged on the code, task and faults as they are now."""

    judged: int
    current: int  # every recorded run, on every seed, of the variant and the bases it is measured against
    by_seed: dict[int, int]  # those whose runs on that seed (the bases' included) are all current


def judged_current(data: ValidityFile, catalog: Catalog) -> Currency:
    """Which judgements were made on the code, task and faults as they are now, in all and seed by seed: a
    judgement is only as good as the code it was made on, and a seed judged again leaves the others stale."""
    known: dict[tuple[str, str], bool] = {}

    def current(item: str, task: Task, variant: Variant | None, seed: str) -> bool:
        if (item, seed) not in known:
            by_agent = data.runs.get(item, {}).get(seed)
            known[(item, seed)] = by_agent is not None and all_current(
                by_agent.values(), EpisodeSpec(task, variant, int(seed)), catalog)
        return known[(item, seed)]

    def seeds_current(variant: Variant) -> dict[str, bool]:
        """Per seed any of the variant's tasks was run on: is every task's run on it, and its base's, current?"""
        items = variant_items(variant)
        seeds = {seed for _, item in items for seed in data.runs.get(item, {})}
        return {seed: all(current(item, catalog.tasks[task_id], variant, seed)
                          and current(f"{BASE}:{task_id}", catalog.tasks[task_id], None, seed)
                          for task_id, item in items) for seed in seeds}

    judged = [catalog.variants[variant_id] for variant_id, j in data.variants.items()
              if j.fair is not None and variant_id in catalog.variants]
    per_variant = [seeds_current(variant) for variant in judged]
    by_seed = Counter(int(seed) for seeds in per_variant for seed, ok in seeds.items() if ok)
    return Currency(judged=len(judged), current=sum(1 for seeds in per_variant if all(seeds.values())),
                    by_seed={seed: by_seed.get(seed, 0) for seed in sorted(data.seeds)})


def by_recipe(files: Iterable[ValidityFile]) -> dict[str, dict[str, int]]:
    """recipe (or "hand-written") -> counts of judged, fair, effective and biting variants over every site."""
    return _count_judged(files, lambda _, judgement: judgement.recipe or HAND_WRITTEN)


HAND_WRITTEN = "(hand-written)"


def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "–"


def render_markdown(files: Sequence[ValidityFile], catalog: Catalog) -> str:
    """docs/validity.md: per site and primitive, fair and biting shares; then every judged variant."""
    lines = ["# Validity of the catalog", "",
             "Generated by `webchaos validate --docs` from `scenarios/validity/*.json` (do not edit). A variant is",
             "**fair** when the reference agent with its generic recoveries passes it on every seed, **effective**",
             "when each of its faults fires (in the ledger) on every seed the reference agent runs, **valid** when",
             "both, and **biting** when the agent without recoveries fails it on a seed where it passes the base",
             "task. A variant of several tasks is run on each: every seed of every task counts.", ""]
    cells = shares(files)
    recipes = by_recipe(files)
    harmless = sorted(Counter((v.recipe or "hand-written", v.reason) for v in catalog.variants.values()
                              if v.status == "harmless").items())
    summary = default_run_summary(files, catalog)
    lines += ["## Default runs", "", summary[0].upper() + summary[1:] + ".", ""]
    if short := rows_short_of_biting(files, catalog):
        lines += [f"Below {BITING_GOAL:.0%} biting, with the recipes that hold the row down (their variants the agent "
                  "without recoveries gets through; whether those that bite measure the row's primitive is the "
                  "specificity sample's question, below):", ""]
        lines += [f"- {line}" for line in short]
        lines.append("")
    if harmless:
        lines += ["Out of default runs as harmless (fair and effective, but no naive agent fails them):", ""]
        lines += [f"- `{recipe}` ({count} variant{'s' * (count != 1)}): {reason}"
                  for (recipe, reason), count in harmless]
        lines.append("")
    lines += ["## By recipe", "",
              "Every site's judged variants of each recipe, the least biting first. One that seldom bites is "
              "one the scripted agent without recoveries gets through: text it never reads (an instruction "
              "injected in the page, a correction in an older message), a page it never scrolls by hand, "
              "records it never looks past, a write reset before the site saw it (it fires, and the browser "
              "sends the write again on a new connection by itself), a slow or failing write that is the "
              "plan's last (it stops there, and the write it sent lands: an agent that sends it again fails).",
              "",
              "| recipe | judged | fair | effective | biting |", "|---|---:|---:|---:|---:|"]
    for recipe, row in sorted(recipes.items(), key=lambda kv: (kv[1]["biting"] / kv[1]["judged"], kv[0])):
        lines.append(f"| `{recipe}` | {row['judged']} | {_pct(row['fair'], row['judged'])} | "
                     f"{_pct(row['effective'], row['judged'])} | {_pct(row['biting'], row['judged'])} |")
    lines.append("")
    for data in sorted(files, key=lambda d: d.site):
        site_variants_total = sum(1 for v in catalog.variants.values() if catalog.tasks[v.tasks[0]].site == data.site)
        judged = [j for j in data.variants.values() if j.fair is not None]
        lines += [f"## {data.site}", "",
                  f"Seeds {', '.join(map(str, data.seeds))}; {len(judged)} of {site_variants_total} variants judged, "
                  f"{_pct(sum(1 for j in judged if j.fair), len(judged))} fair, "
                  f"{_pct(sum(1 for j in judged if j.effective), len(judged))} effective, "
                  f"{_pct(sum(1 for j in judged if j.biting), len(judged))} biting, "
                  f"{sum(1 for j in judged if j.flaky)} flaky.", "",
                  "| primitive | judged | fair | effective | biting |", "|---|---:|---:|---:|---:|"]
        for (site, primitive), cell in sorted(cells.items()):
            if site == data.site:
                lines.append(f"| {primitive} | {cell['judged']} | {_pct(cell['fair'], cell['judged'])} | "
                             f"{_pct(cell['effective'], cell['judged'])} | {_pct(cell['biting'], cell['judged'])} |")
        lines += ["", "| variant | task | primitive | layers | fair | effective | biting | reason when not valid |",
                  "|---|---|---|---|---|---|---|---|"]
        for variant_id, j in sorted(data.variants.items()):
            if j.fair is None:
                continue
            reason = (j.reason or "").replace("|", "\\|")
            lines.append(f"| `{variant_id}` | {j.task} | {j.target_primitive} | {', '.join(j.layers)} | "
                         f"{'yes' if j.fair else '**no**'} | {'yes' if j.effective else '**no**'} | "
                         f"{'yes' if j.biting else 'no'} | {reason} |")
        lines.append("")
    return "\n".join(lines)

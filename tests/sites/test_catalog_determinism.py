"""Determinism of world making: the same (task, seed, variant) opened in two fresh processes (different hash
seeds) gives the same initial state bytes and the same seed-layer ledger. Only seed-layer faults act on a world as
it is made (sites/kit/hooks.run_seed_hooks); server-layer ones are armed then and act on requests later.

The cases, each opened in both processes: every task on seed 1, with the server faults of its variants that have
no seed faults armed on it (the store arms them there); and the variants with seed faults, every hand-written one
and up to `PER_RECIPE_AND_SITE` of each recipe on each site (a recipe's variants on one site run one seed hook
on different tasks; which ones is drawn from a committed seed). Variants of one task with the same seed faults
are one case. Every task's world on seeds 1-10 is pinned besides (test_digests.py), and `webchaos catalog check`
opens every seed variant on three seeds: this test is for what neither shows, a world that differs with the
process's hash seed, and it stays the same size as the catalog grows."""

import json
import os
import random
import subprocess
import sys
from pathlib import Path

from harness.config import PROJECT_ROOT
from scenarios.loader import Catalog
from scenarios.schema import Variant
from sites.registry import load_site_catalog

PER_RECIPE_AND_SITE = 3
SAMPLE_SEED = 20261206  # committed: the same sample for everyone until this changes

PROBE = """
import hashlib, json, sys
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites, load_site_catalog

catalog = load_site_catalog()
store = EpisodeStore(all_sites())
worlds = {}  # (task, its seed-layer faults) -> (those faults, the variants opening that world)
on_base = {}  # task -> (the server-layer faults of its variants without seed faults, those variants)
chosen = set(json.loads(sys.argv[1]))
for v in sorted(catalog.variants.values(), key=lambda v: v.id):
    seeded = [f for f in v.faults if f.get("layer") == "seed"]
    if seeded and v.id not in chosen:
        continue
    served = [f for f in v.faults if f.get("layer") == "server"]
    if seeded:
        worlds.setdefault((v.tasks[0], json.dumps(seeded, sort_keys=True)), (seeded, []))[1].append(v.id)
    elif served:
        faults, ids = on_base.setdefault(v.tasks[0], ([], []))
        faults.extend(dict(f, id=f"{v.id}#{n}") for n, f in enumerate(served))
        ids.append(v.id)


cases = [(t, *on_base.get(t, ([], [])), 1) for t in sorted(catalog.tasks)]
cases = [(t, faults, ["base", *ids], seed) for t, faults, ids, seed in cases]
cases += [(task_id, faults, ids, 1) for (task_id, _), (faults, ids) in worlds.items()]
for index, (task_id, faults, ids, seed) in enumerate(cases):
    task = catalog.tasks[task_id]
    variant_id = ids[0] if ids[0] != "base" else None
    episode = store.create(site=task.site, task_id=task_id, seed=seed, setup=WorldSetup(params=task.setup.params),
                           variant_id=variant_id, episode_id=f"e{index}", faults=faults)
    seed_lines = [{k: v for k, v in line.items() if k != "t_ms"} for line in episode.ledger.lines
                  if line.get("layer") == "seed"]
    ledger = hashlib.sha256(json.dumps(seed_lines, sort_keys=True).encode()).hexdigest()
    print(task_id, ",".join(ids), seed, hashlib.sha256(episode.initial_state).hexdigest(), ledger,
          len(seed_lines))
    store.delete(episode.id)
"""


def seed_variants(catalog: Catalog) -> list[Variant]:
    return [v for v in catalog.variants.values() if any(f.get("layer") == "seed" for f in v.faults)]


def chosen_variants(catalog: Catalog) -> list[str]:
    """Every hand-written variant with seed faults, and up to `PER_RECIPE_AND_SITE` of each recipe's on each
    site, drawn with `SAMPLE_SEED`."""
    groups: dict[tuple[str, str], list[str]] = {}
    for variant in seed_variants(catalog):
        key = (variant.recipe, catalog.tasks[variant.tasks[0]].site) if variant.recipe else ("", variant.id)
        groups.setdefault(key, []).append(variant.id)
    draw = random.Random(SAMPLE_SEED)
    return sorted(v for key in sorted(groups) for v in draw.sample(sorted(groups[key]),
                                                                   min(PER_RECIPE_AND_SITE, len(groups[key]))))


def probes(tmp_path: Path, chosen: list[str], *hash_seeds: str) -> list[list[str]]:
    """The probe's lines from one fresh process per hash seed, the processes run at once (each opens the whole
    catalog: the time grows with it). Their output goes to files: a full pipe would hold one up."""
    started = []
    for seed in hash_seeds:
        out, err = (tmp_path / f"probe-{seed}.out").open("w+"), (tmp_path / f"probe-{seed}.err").open("w+")
        started.append((subprocess.Popen([sys.executable, "-c", PROBE, json.dumps(chosen)], stdout=out, stderr=err,
                                         text=True, env={**os.environ, "PYTHONHASHSEED": seed}, cwd=PROJECT_ROOT),
                        out, err))
    lines = []
    try:
        for process, out, err in started:
            code = process.wait(timeout=600)
            out.seek(0)
            err.seek(0)
            assert code == 0, err.read()[-3000:]
            lines.append(out.read().splitlines())
    finally:
        for process, out, err in started:
            if process.poll() is None:
                process.kill()
                process.wait()
            out.close()
            err.close()
    return lines


def test_every_task_and_a_sample_of_seed_variants_open_identically_in_two_processes(tmp_path: Path) -> None:
    catalog = load_site_catalog()
    chosen = chosen_variants(catalog)
    first, second = probes(tmp_path, chosen, "11", "12")
    seeded = {v.id for v in seed_variants(catalog)}
    served = [v for v in catalog.variants.values()
              if any(f.get("layer") == "server" for f in v.faults) and v.id not in seeded]
    # every task once, every chosen variant and every variant with server faults only in exactly one case
    named = [variant for line in first for variant in line.split()[1].split(",") if variant != "base"]
    assert sorted(named) == sorted([*chosen, *(v.id for v in served)])
    assert sum(line.split()[1].split(",")[0] == "base" for line in first) == len(catalog.tasks)
    differing = [a for a, b in zip(first, second, strict=True) if a != b]
    assert differing == [], f"{len(differing)} cases differ, e.g. {differing[:5]}"
    # the seed layer really acted: every chosen variant has a ledger line for it
    lines = {variant: int(line.split()[-1]) for line in first for variant in line.split()[1].split(",")
             if variant != "base"}
    assert chosen and all(lines[v] > 0 for v in chosen), [v for v in chosen if lines[v] == 0]


def test_the_sample_takes_every_recipe_on_every_site_and_every_hand_written_seed_variant() -> None:
    catalog = load_site_catalog()
    chosen = set(chosen_variants(catalog))
    every = seed_variants(catalog)
    assert {(v.recipe, catalog.tasks[v.tasks[0]].site) for v in every if v.recipe} == \
        {(v.recipe, catalog.tasks[v.tasks[0]].site) for v in every if v.id in chosen and v.recipe}
    assert {v.id for v in every if not v.recipe} <= chosen
    assert len(chosen) < len(every) and chosen_variants(catalog) == sorted(chosen)  # the same draw each time

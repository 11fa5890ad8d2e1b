"""Determinism over the whole catalog: every (task, seed 1-2) and every (variant, seed 1) whose faults act
on the world, opened in two fresh processes (different hash seeds), gives the same initial state bytes and the
same seed-layer ledger. Only seed-layer faults act on a world as it is made (sites/kit/hooks.run_seed_hooks);
server-layer ones are armed then and act on requests later. So a variant opens its task's world as the base
does unless it has seed faults: one with server faults only is named on its base's seed-1 line (the store
still arms its faults there), and variants of one task with the same seed faults are one case, whose line
names them all (the store records a variant's id and nothing reads it)."""

import os
import subprocess
import sys
from pathlib import Path

from harness.config import PROJECT_ROOT
from sites.registry import load_site_catalog

PROBE = """
import hashlib, json
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites, load_site_catalog

catalog = load_site_catalog()
store = EpisodeStore(all_sites())
worlds = {}  # (task, its seed-layer faults) -> (those faults, the variants opening that world)
on_base = {}  # task -> (the server-layer faults of its variants without seed faults, those variants)
for v in sorted(catalog.variants.values(), key=lambda v: v.id):
    seeded = [f for f in v.faults if f.get("layer") == "seed"]
    served = [f for f in v.faults if f.get("layer") == "server"]
    if seeded:
        worlds.setdefault((v.tasks[0], json.dumps(seeded, sort_keys=True)), (seeded, []))[1].append(v.id)
    elif served:
        faults, ids = on_base.setdefault(v.tasks[0], ([], []))
        faults.extend(dict(f, id=f"{v.id}#{n}") for n, f in enumerate(served))
        ids.append(v.id)


def base_case(task_id, seed):
    faults, ids = on_base.get(task_id, ([], [])) if seed == 1 else ([], [])
    return task_id, faults, ["base", *ids], seed


cases = [base_case(t, s) for t in sorted(catalog.tasks) for s in (1, 2)]
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


def probes(tmp_path: Path, *hash_seeds: str) -> list[list[str]]:
    """The probe's lines from one fresh process per hash seed, the processes run at once (each opens the whole
    catalog: the time grows with it). Their output goes to files: a full pipe would hold one up."""
    started = []
    for seed in hash_seeds:
        out, err = (tmp_path / f"probe-{seed}.out").open("w+"), (tmp_path / f"probe-{seed}.err").open("w+")
        started.append((subprocess.Popen([sys.executable, "-c", PROBE], stdout=out, stderr=err, text=True,
                                         env={**os.environ, "PYTHONHASHSEED": seed}, cwd=PROJECT_ROOT), out, err))
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


def test_every_task_and_variant_opens_identically_in_two_processes(tmp_path: Path) -> None:
    catalog = load_site_catalog()
    first, second = probes(tmp_path, "11", "12")
    acting = [v for v in catalog.variants.values() if any(f.get("layer") in ("seed", "server") for f in v.faults)]
    # every task twice, and every acting variant in exactly one case (with those sharing its task's world)
    named = [variant for line in first for variant in line.split()[1].split(",") if variant != "base"]
    assert sorted(named) == sorted(v.id for v in acting)
    assert sum(line.split()[1].split(",")[0] == "base" for line in first) == 2 * len(catalog.tasks)
    differing = [a for a, b in zip(first, second, strict=True) if a != b]
    assert differing == [], f"{len(differing)} cases differ, e.g. {differing[:5]}"
    # the seed layer really acted: every variant with a seed fault has a ledger line for it
    seeded = {v.id for v in catalog.variants.values() if any(f.get("layer") == "seed" for f in v.faults)}
    lines = {variant: int(line.split()[-1]) for line in first for variant in line.split()[1].split(",")
             if variant != "base"}
    assert seeded and all(lines[v] > 0 for v in seeded), [v for v in seeded if lines[v] == 0]
    # and different seeds give different worlds
    bases = [line.split() for line in first if line.split()[1].split(",")[0] == "base"]
    assert all(a[3] != b[3] for a, b in zip(bases[::2], bases[1::2], strict=True))

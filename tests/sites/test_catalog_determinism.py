"""Determinism over the whole catalog: every (task, seed 1-2) and every (variant, seed 1), opened in two
fresh processes (different hash seeds), gives the same initial state bytes and the same seed-layer
ledger."""

import os
import subprocess
import sys

from harness.config import PROJECT_ROOT
from sites.registry import load_site_catalog

PROBE = """
import hashlib, json
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites, load_site_catalog

catalog = load_site_catalog()
store = EpisodeStore(all_sites())
cases = [(t, None, s) for t in sorted(catalog.tasks) for s in (1, 2)]
cases += [(v.tasks[0], v.id, 1) for v in sorted(catalog.variants.values(), key=lambda v: v.id)]
for index, (task_id, variant_id, seed) in enumerate(cases):
    task = catalog.tasks[task_id]
    faults = [] if variant_id is None else [
        f for f in catalog.variants[variant_id].faults if f.get("layer") in ("seed", "server")]
    episode = store.create(site=task.site, task_id=task_id, seed=seed, setup=WorldSetup(params=task.setup.params),
                           variant_id=variant_id, episode_id=f"e{index}", faults=faults)
    seed_lines = [{k: v for k, v in line.items() if k != "t_ms"} for line in episode.ledger.lines
                  if line.get("layer") == "seed"]
    ledger = hashlib.sha256(json.dumps(seed_lines, sort_keys=True).encode()).hexdigest()
    print(task_id, variant_id or "base", seed, hashlib.sha256(episode.initial_state).hexdigest(), ledger,
          len(seed_lines))
    store.delete(episode.id)
"""


def probe(hash_seed: str) -> list[str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, cwd=PROJECT_ROOT,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.splitlines()


def test_every_task_and_variant_opens_identically_in_two_processes() -> None:
    catalog = load_site_catalog()
    first, second = probe("11"), probe("12")
    assert len(first) == 2 * len(catalog.tasks) + len(catalog.variants)
    differing = [a for a, b in zip(first, second, strict=True) if a != b]
    assert differing == [], f"{len(differing)} cases differ, e.g. {differing[:5]}"
    # the seed layer really acted: every variant with a seed fault has a ledger line for it
    seeded = {v.id for v in catalog.variants.values() if any(f.get("layer") == "seed" for f in v.faults)}
    lines = {line.split()[1]: int(line.split()[-1]) for line in first if line.split()[1] != "base"}
    assert seeded and all(lines[v] > 0 for v in seeded), [v for v in seeded if lines[v] == 0]
    # and different seeds give different worlds
    bases = [line.split() for line in first if line.split()[1] == "base"]
    assert all(a[3] != b[3] for a, b in zip(bases[::2], bases[1::2], strict=True))

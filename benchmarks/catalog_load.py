"""How long loading and validating the whole catalog takes (recipes expanded), against plain YAML
parsing of the same files in the same run (so the shared machine's noise cancels in the ratio).

  - baseline: plain YAML parsing of every catalog file with the loader's own safe YAML loader
    (libyaml's when PyYAML has it);
  - catalog: `load_site_catalog()`: parse, validate every task, variant and recipe, check them
    against the sites, expand the recipes and validate each variant they make.

Target: the catalog in under 0.5 s at 600 variants or more.

    .venv/bin/python benchmarks/catalog_load.py [--repeat 15]
"""

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

from scenarios.loader import CATALOG_DIR, parse_yaml
from sites.registry import load_site_catalog, profiles


def timed(fn: Callable[[], Any], repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append(time.perf_counter() - start)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    files = sorted(CATALOG_DIR.rglob("*.yaml"))
    profiles()  # import the sites and the fault registry once: not part of loading the catalog
    catalog = load_site_catalog()

    def parse_only() -> None:
        for path in files:
            parse_yaml(path.read_text())

    baseline = timed(parse_only, args.repeat)
    loading = timed(load_site_catalog, args.repeat)
    base_med, load_med = statistics.median(baseline), statistics.median(loading)
    recipes = sum(1 for v in catalog.variants.values() if v.recipe)
    print(f"catalog: {len(files)} files, {len(catalog.tasks)} tasks, {len(catalog.variants)} variants "
          f"({recipes} from {len(catalog.recipes)} recipes)")
    print(f"plain YAML parse      median {base_med * 1000:7.1f} ms  (min {min(baseline) * 1000:.1f})")
    print(f"load + validate + expand median {load_med * 1000:7.1f} ms  (min {min(loading) * 1000:.1f})")
    print(f"ratio (catalog / plain YAML parse): {load_med / base_med:.2f}x")
    verdict = "ok" if load_med < 0.5 and len(catalog.variants) >= 600 else "MISSED"
    print(f"target < 500 ms at >= 600 variants: {verdict} ({load_med * 1000:.0f} ms, {len(catalog.variants)} variants)")


if __name__ == "__main__":
    main()

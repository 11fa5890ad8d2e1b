"""The `webchaos catalog`, `webchaos catalog check` and `webchaos validate` commands."""

from __future__ import annotations

import sys
import time
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from harness.cli.common import CliError, cli_seeds, console, load_catalog
from harness.config import RUNS_DIR, ChromiumNotFound

if TYPE_CHECKING:
    from harness.run.results import EpisodeResult
    from scenarios.loader import Catalog

catalog_app = typer.Typer(add_completion=False, invoke_without_command=True,
                          help="What the catalog holds (counts, primitive × site coverage, fair and biting shares); "
                               "`check` finds what is wrong with it.")


def _layers(catalog: Catalog) -> Counter[str]:
    return Counter(layer for v in catalog.variants.values()
                   for layer in sorted({str(f.get("layer")) for f in v.faults}))


@catalog_app.callback()
def catalog_summary(ctx: typer.Context,
                    catalog: Annotated[list[Path] | None, typer.Option(help="scenario YAML file or folder")] = None,
                    ) -> None:
    """Counts (sites, task templates, variants by layer and primitive, fault types per layer) and the
    primitive × site matrix with the fair and biting shares of the validity files."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.table import Table

    from harness.catalog.check import coverage
    from harness.catalog.evidence import (
        DIAGONAL_GOAL,
        OFF_DIAGONAL_LIMIT,
        all_validity,
        diagonal_shown,
        proven_specific,
        read_specificity,
    )
    from harness.catalog.validate import default_run_summary, judged_current, shares
    from scenarios.answers import TASK_KINDS
    from scenarios.faults import Primitive, registry

    cat = load_catalog(catalog)
    sites = sorted({t.site for t in cat.tasks.values()})
    variants = list(cat.variants.values())
    recipes = sum(1 for v in variants if v.recipe)
    marked = Counter(v.status for v in variants)
    console.print(f"sites {len(sites)} ({', '.join(sites)}); task templates {len(cat.tasks)}; variants {len(variants)} "
                  f"({recipes} from {len(cat.recipes)} recipes, {len(variants) - recipes} hand-written; "
                  f"{marked['unfair']} marked unfair, {marked['ineffective']} ineffective, {marked['harmless']} "
                  "harmless)", highlight=False)
    layers = _layers(cat)
    console.print("variants by layer: " + ", ".join(f"{k} {layers[k]}" for k in sorted(layers)), highlight=False)
    primitives = Counter(v.target_primitive.value for v in variants)
    console.print("variants by primitive: " + ", ".join(f"{p.value} {primitives[p.value]}" for p in Primitive),
                  highlight=False)
    kinds: Counter[tuple[str, str]] = Counter((t.site, t.kind) for t in cat.tasks.values())
    kinds.update((cat.tasks[task].site, "infeasible variants") for v in variants if v.makes_infeasible
                 for task in v.tasks if task in cat.tasks)
    for site in sites:
        console.print(f"{site} tasks by kind: " + ", ".join(
            f"{kind} {kinds[(site, kind)]}" for kind in (*TASK_KINDS, "infeasible variants")), highlight=False)
    types = Counter(kind.layer.value for kind in registry().values())
    console.print("fault types per layer: " + ", ".join(f"{k} {types[k]}" for k in sorted(types)), highlight=False)
    cells = coverage(cat)
    evidence = all_validity()
    judged = shares(evidence)
    flaky = sorted(v for data in evidence for v, j in data.variants.items() if j.flaky)
    fresh = {data.site: judged_current(data, cat) for data in evidence}
    by_seed: Counter[int] = Counter()
    for currency in fresh.values():
        by_seed.update(currency.by_seed)
    console.print(f"judged on the code as it is now: {sum(c.current for c in fresh.values())} of "
                  f"{sum(c.judged for c in fresh.values())} judged variants on every seed ("
                  + ", ".join(f"{site} {c.current}/{c.judged}" for site, c in sorted(fresh.items()))
                  + "); by seed: " + ", ".join(f"seed {seed} {n}" for seed, n in sorted(by_seed.items()))
                  + "; `webchaos validate --stale` lists the rest", highlight=False)
    console.print(default_run_summary(evidence, cat), highlight=False)
    flaky_default = [v for v in flaky if v in cat.variants and cat.variants[v].by_default]
    console.print(f"flaky variants (a verdict that flipped when run again): {len(flaky_default)} in default runs"
                  + (f" ({', '.join(flaky_default[:5])}{' …' if len(flaky_default) > 5 else ''})"
                     if flaky_default else "")
                  + f", {len(flaky) - len(flaky_default)} marked out of them", highlight=False)
    specificity = read_specificity()
    proven = proven_specific(specificity) if specificity is not None else {}
    if specificity is not None:
        worst = max(((100 * cell.failed / cell.of, row, column) for row, cells in specificity.matrix.items()
                     for column, cell in cells.items() if column != row and cell.of), default=None)
        off = (f"; worst off the diagonal: {worst[0]:.0f}% ({worst[1]} variants, agent without {worst[2]}; "
               f"goal ≤ {OFF_DIAGONAL_LIMIT:.0%})" if worst else "")
        console.print(f"specificity (the agent lacking the target primitive fails; goal ≥ {DIAGONAL_GOAL:.0%}): "
                      f"{diagonal_shown(specificity)}{off}", highlight=False)
        console.print(f"cells proven specific: {sum(proven.values())} of {len(proven)} sampled "
                      "(* below: not proven)", highlight=False)
    table = Table(title="variants per primitive × site (fair % / effective % / biting % of those validated; "
                        "* not proven specific)", header_style="bold")
    table.add_column("primitive")
    for site in sites:
        table.add_column(site, justify="right")
    for primitive in Primitive:
        row = [primitive.value]
        for site in sites:
            text = str(cells[(site, primitive.value)]) + ("" if proven.get((site, primitive.value)) else "*")
            cell = judged.get((site, primitive.value))
            if cell and cell["judged"]:
                text += (f"  ({100 * cell['fair'] / cell['judged']:.0f}% / "
                         f"{100 * cell['effective'] / cell['judged']:.0f}% / "
                         f"{100 * cell['biting'] / cell['judged']:.0f}% of {cell['judged']})")
            row.append(text)
        table.add_row(*row)
    console.print(table)
    from scenarios.suites import load_suite, suite_names

    suites = [load_suite(name) for name in suite_names()]
    console.print("suites (episodes per agent): " + ", ".join(
        f"{s.ref} {s.episodes_per_agent} ({len(s.entries)} x {len(s.seeds)} seeds)" for s in suites), highlight=False)


@catalog_app.command("tasks")
def catalog_tasks(write: Annotated[bool, typer.Option(
        "--write", help="write docs/tasks.md when it is not current")] = False) -> None:
    """The task table (docs/tasks.md): every task template per site with its kind, primitive, plan length and
    variants, and each site's spread. Says whether the committed file is current (exit 1 when not, unless
    --write writes it)."""
    from harness.catalog.task_table import TASKS_DOC, render

    text = render(load_catalog(None))
    current = TASKS_DOC.is_file() and TASKS_DOC.read_text() == text
    if not current and write:
        TASKS_DOC.write_text(text)
        console.print(f"wrote {TASKS_DOC}", highlight=False)
        return
    console.print(f"{TASKS_DOC}: {'current' if current else 'not current (webchaos catalog tasks --write)'}",
                  highlight=False)
    if not current:
        raise typer.Exit(1)


@catalog_app.command("suites")
def catalog_suites(write: Annotated[bool, typer.Option(
        "--write", help="write the suites that changed (each gets the next version)")] = False,
                   redraw_core: Annotated[bool, typer.Option(
        "--redraw-core", help="draw core again even though the committed one still holds")] = False) -> None:
    """The built-in suites (smoke, core, full) as the catalog and the validity files give them today, beside
    the committed scenarios/suites/*.yaml: size, version, and whether the committed file is current (exit 1
    when one is not, unless --write writes it)."""
    from harness.catalog.suites import build
    from harness.catalog.suites import write as write_suites

    built = build(load_catalog(None), redraw_core=redraw_core)
    for b in built.values():
        s = b.suite
        state = "changed: run with --write" if b.changed and not write else "written" if b.changed else "current"
        console.print(f"{s.ref}: {len(s.entries)} entries x {len(s.seeds)} seeds = {s.episodes_per_agent} episodes "
                      f"per agent ({state})", highlight=False)
        for short in b.shortfalls:
            console.print(f"  {short.site} x {short.primitive}: {short.have} proven variants (wants 3)",
                          highlight=False)
    if write:
        write_suites(built)
    elif any(b.changed for b in built.values()):
        raise typer.Exit(1)


@catalog_app.command("check")
def catalog_check(catalog: Annotated[list[Path] | None, typer.Option(help="scenario YAML file or folder")] = None,
                  seeds: Annotated[str, typer.Option(help="seeds the placeholders and plans are checked on")] = "1-3",
                  task: Annotated[list[str] | None, typer.Option(
                      "--task", "-t", help="check these tasks' plans and variants only (repeatable); the whole "
                      "catalog still loads, its coverage is not judged")] = None,
                  ) -> None:
    """Exit 1 on any error (file, field, what was expected): schema, unknown tasks / fault types / sites,
    fault types a site does not implement, placeholders that do not resolve, plan steps whose role + name
    is not on the rendered page, more than 2 primitives, duplicate variants, a variant with seed faults
    that does not open. Thin coverage warns; tasks a recipe skipped by its site's declaration are info."""
    from harness.catalog.check import check_catalog

    findings = check_catalog(*(catalog or []), seeds=cli_seeds(seeds), tasks=task or ())
    for finding in findings:
        colour = {"error": "red", "warning": "yellow"}.get(finding.level, "cyan")
        console.print(f"[{colour}]{finding.level}[/] {finding.file}: {finding.where}: {finding.message}",
                      highlight=False, soft_wrap=True)
    errors = sum(1 for f in findings if f.level == "error")
    warnings = sum(1 for f in findings if f.level == "warning")
    skipped = len(findings) - errors - warnings
    console.print(f"catalog check: {errors} errors, {warnings} warnings, {skipped} recipe tasks skipped (info)",
                  highlight=False)
    raise typer.Exit(1 if errors else 0)


class EpisodeCount:
    """A validation step's episodes done of those planned, and the time left at its pace so far: each result's
    log line carries it (a step runs for up to hours)."""

    def __init__(self) -> None:
        self.planned = 0
        self.done = 0
        self.started = time.monotonic()

    def plan(self, episodes: int) -> None:
        self.planned, self.done, self.started = episodes, 0, time.monotonic()

    def tick(self) -> str:
        self.done += 1
        left_s = (time.monotonic() - self.started) / self.done * max(self.planned - self.done, 0)
        return f"{self.done}/{self.planned}, about {left_s / 60:.0f} min left"

    def show(self, label: str, result: EpisodeResult) -> None:
        """One result's log line: what ran (`label`), on which seed, by which agent, its mark, the count."""
        mark = "infra" if result.infra_failed else ("pass" if result.success else "fail")
        console.print(f"  {label} s{result.seed} {result.agent}: {mark} ({self.tick()})", highlight=False)


def validate(
    site: Annotated[list[str] | None, typer.Option("--site", help="site (repeatable); default: every site")] = None,
    seeds: Annotated[str, typer.Option(help="seeds: '1-3', '1,2'")] = "1-3",
    variant: Annotated[list[str] | None, typer.Option(
        "--variant", "-v", help="only these variants (and their base tasks); the rest of the file is kept")] = None,
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", min=1)] = 2,
    resume: Annotated[bool, typer.Option(
        "--resume", help="keep the runs already in the validity files; run only what is missing")] = False,
    runs_dir: Annotated[Path, typer.Option(help="where the validation's episodes are written")] = RUNS_DIR,
    docs: Annotated[bool, typer.Option(
        "--docs", help="only judge again from the runs the validity files hold and render docs/validity.md "
        "(runs nothing)")] = False,
    resample: Annotated[int | None, typer.Option(
        "--resample", min=1, help="run N judged variants (drawn by a committed seed) again with both agents on the "
        "first of --seeds; print how many runs agree with the validity files, record the second outcome and mark "
        "the variants whose verdict flipped flaky; with --site, drawn from those sites only")] = None,
    stale: Annotated[bool, typer.Option(
        "--stale", help="list what --resume would run: runs never done, or judged on a task, faults, site or "
        "agent code that has changed since (runs nothing)")] = False,
    specificity: Annotated[bool, typer.Option(
        "--specificity", help="run the seven reference-without-<primitive> agents on a stratified sample of biting "
        "variants (valid, failed by the agent without recoveries; 5 per primitive x site, committed seed) and "
        "write scenarios/validity/specificity.json and the matrix in docs/validity.md (with --resume, only what "
        "is missing; with --site, only the sampled variants of those sites)")] = False,
) -> None:
    """Run every base task and variant with `reference` and `reference-no-recovery` on each seed; write
    scenarios/validity/<site>.json (fair, biting, the reason when not fair) and docs/validity.md."""
    import asyncio

    from harness.catalog.evidence import (
        ValidityFile,
        all_validity,
        diagonal_shown,
        read_specificity,
        write_specificity,
        write_validity,
    )
    from harness.catalog.specificity import run_specificity, tally, validity_docs
    from harness.catalog.validate import (
        DOCS_FILE,
        changed_sources,
        drop_stale,
        read_sources,
        refresh,
        run_item,
        validate_site,
    )

    cat = load_catalog(None)
    if resample is not None:
        from harness.catalog.validate import resample as run_resample

        first_seed = cli_seeds(seeds)[0]
        try:
            drawn_from = [data for data in all_validity() if not site or data.site in site]
            agree, runs, flipped = asyncio.run(run_resample(cat, drawn_from, resample, first_seed,
                                                            runs_dir=runs_dir, concurrency=concurrency))
        except ChromiumNotFound as exc:
            raise CliError(str(exc)) from None
        share = f"{100 * agree / runs:.1f}%" if runs else "–"
        console.print(f"resample: {agree} of {runs} runs agree with the validity files ({share}) on seed {first_seed}; "
                      f"flipped: {', '.join(flipped) or 'none'}", highlight=False, markup=False)
        DOCS_FILE.write_text(validity_docs(all_validity(), cat))
        return
    if stale:
        from harness.catalog.validate import read_validity, stale_items

        wanted_sites = site or sorted({t.site for t in cat.tasks.values()})
        total = 0
        for name in wanted_sites:
            data = read_validity(name) or ValidityFile(site=name, seeds=cli_seeds(seeds))
            items = stale_items(cat, name, cli_seeds(seeds), data)
            total += len(items)
            for item, seed, why in items:
                console.print(f"{name} {item} s{seed}: {why}", highlight=False, markup=False)
        console.print(f"{total} runs stale or missing", highlight=False)
        return
    if specificity:
        count = EpisodeCount()
        try:
            result = asyncio.run(run_specificity(
                cat, all_validity(), runs_dir=runs_dir, concurrency=concurrency, resume=resume, sites=site or None,
                on_result=lambda ran: count.show(str(ran.variant_id), ran), on_planned=count.plan))
        except ChromiumNotFound as exc:
            raise CliError(str(exc)) from None
        console.print(f"specificity: {len(result.sample)} variants sampled; diagonal: {diagonal_shown(result)}",
                      highlight=False)
    elif docs:
        for data in all_validity():
            drop_stale(data, cat)
            refresh(data, cat)
            write_validity(data)
        evidence = read_specificity()
        if evidence is not None:
            tally(evidence, cat)
            write_specificity(evidence)
    else:
        missing = sorted(set(variant or ()) - set(cat.variants))
        if missing:
            raise CliError(f"unknown variant(s) {', '.join(missing)} (`webchaos list` names them)")
        variant_sites = {cat.tasks[t].site for v in variant or () for t in cat.variants[v].tasks}
        sites = site or sorted(variant_sites or {t.site for t in cat.tasks.values()})
        unknown = sorted(set(sites) - {t.site for t in cat.tasks.values()})
        if unknown:
            raise CliError(f"no tasks on site(s) {', '.join(unknown)}")
        started = time.monotonic()
        read_sources(sites)
        for name in sites:
            count = EpisodeCount()

            def show(ran: EpisodeResult, name: str = name, count: EpisodeCount = count) -> None:
                count.show(f"{name} {run_item(cat, ran.variant_id, ran.task_id)}", ran)

            try:
                data = asyncio.run(validate_site(cat, name, cli_seeds(seeds), variant_ids=variant,
                                                 concurrency=concurrency, resume=resume, runs_dir=runs_dir,
                                                 on_result=show, on_planned=count.plan))
            except ChromiumNotFound as exc:
                raise CliError(str(exc)) from None
            judged = [j for j in data.variants.values() if j.fair is not None]
            console.print(f"{name}: {len(judged)} variants judged, {sum(1 for j in judged if j.fair)} fair, "
                          f"{sum(1 for j in judged if j.effective)} effective, "
                          f"{sum(1 for j in judged if j.biting)} biting", highlight=False)
        console.print(f"validated in {time.monotonic() - started:.0f} s", highlight=False)
        if edited := changed_sources():
            console.print(f"warning: {len(edited)} file(s) the verdicts depend on changed during the run "
                          f"({', '.join(map(str, edited[:5]))}{', …' if len(edited) > 5 else ''}); its runs are "
                          "recorded as judged with the code as it was at the start: judge them again if that is "
                          "not what ran", highlight=False, markup=False)
    DOCS_FILE.write_text(validity_docs(all_validity(), cat))
    sys.stdout.write(f"docs: {DOCS_FILE}\n")

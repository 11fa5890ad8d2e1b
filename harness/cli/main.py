"""The `webchaos` command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from harness.cli.coercion import defer_option_coercion
from harness.cli.common import (
    HTTPS_HELP,
    ISOLATE_HELP,
    CheckFailed,
    CliError,
    Commands,
    check_isolation,
    cli_seeds,
    console,
    load_catalog,
)
from harness.config import RUNS_DIR, ChromiumNotFound

# Each command imports what it runs when it runs: `webchaos --help`, `list` and `faults` start without the
# web frameworks, the browser driver, the proxy or the sites (tests/harness/test_cli_startup.py).
if TYPE_CHECKING:
    from harness.run.results import EpisodeResult, RunConfig
    from scenarios.loader import Catalog

T = TypeVar("T")
defer_option_coercion()  # an option not given costs no pydantic import (harness/cli/coercion.py)
app = typer.Typer(cls=Commands, add_completion=False, no_args_is_help=True,
                  help="Fault-injection toolkit for evaluating web agents.")


async def _until_sigterm(work: Coroutine[Any, Any, T]) -> T:
    """Run `work`, cancelled by SIGTERM as Ctrl-C cancels it: run.json keeps every finished episode."""
    import asyncio
    import signal

    task = asyncio.ensure_future(work)
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    try:
        return await task
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def _execute(config: RunConfig, *, run_id: str | None, runs_dir: Path, resume: bool = False,
             catalog: Catalog | None = None) -> None:
    """Plan and run what `config` asks for (the catalog: `catalog`, else the built-in one plus
    `config.catalog`); raises CliError before anything starts when it cannot, typer.Exit(130) when
    interrupted (finished episodes kept)."""
    import asyncio

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from harness.agents import agents_from_specs
    from harness.executors.ray_cluster import RayExecutorError, RayOptions
    from harness.reporting.score_card import print_score_card
    from harness.reporting.table import print_summary
    from harness.run.overlays import print_robustness, with_overlays
    from harness.run.runner import RunsDirError, check_runs_dir, plan_matrix, plan_suite, run_matrix
    from scenarios.suites import load_suite

    catalog = catalog if catalog is not None else load_catalog(config.catalog)
    try:
        planned = (plan_suite(catalog, load_suite(config.suite)) if config.suite is not None else
                   plan_matrix(catalog, config.tasks, config.variants, config.seeds, include_base=config.include_base,
                               one_per_primitive=config.one_per_primitive))
        specs = with_overlays(planned, config.chaos_profiles, config.script)
        agent_objs = agents_from_specs(config.agents, config.browser, config.chromium_args, isolate=config.isolate)
    except ValueError as exc:  # a ScenarioError (a broken suite file) is one too
        raise CliError(str(exc)) from exc
    if config.isolate:
        check_isolation()
    if not specs:
        raise CliError("nothing to run: no task/variant matched")
    try:
        check_runs_dir(runs_dir)
    except RunsDirError as exc:
        raise CliError(str(exc)) from exc
    total = len(specs) * len(agent_objs)
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=False) as progress:
        bar = progress.add_task("episodes", total=total)

        def advance(result: EpisodeResult) -> None:
            mark = ("[yellow]infra error[/]" if result.infra_failed else
                    "[green]pass[/]" if result.success else "[red]fail[/]")
            why = f"  ({result.infra.cause})" if result.infra is not None else ""
            progress.console.print(f"  {mark} {result.task_id} / {result.variant_id or 'base'} / "
                                   f"seed {result.seed} / {result.agent}  score {result.score:.2f}{why}")
            progress.advance(bar)

        executor = None if config.executor == "local" else RayOptions(config.address, config.workers).executor(
            agent_objs, config.concurrency, https=config.https, record_replay=config.record_replay,
            time_budget_s=config.time_budget_s)
        try:
            summary, run_dir = asyncio.run(_until_sigterm(run_matrix(
                specs, agent_objs, run_id=run_id, runs_dir=runs_dir, concurrency=config.concurrency,
                on_result=advance, time_budget_s=config.time_budget_s, https=config.https, config=config,
                resume=resume, record_replay=config.record_replay, executor=executor,
            )))
        except (RayExecutorError, ChromiumNotFound, RunsDirError) as exc:
            raise CliError(str(exc)) from exc
        except (KeyboardInterrupt, asyncio.CancelledError):
            console.print("[yellow]interrupted[/]: finished episodes are kept in runs/; "
                          "`webchaos run --resume <run folder>` runs the rest")
            raise typer.Exit(130) from None
    print_summary(summary, console)
    print_score_card(summary, console)
    print_robustness(summary, console)
    console.print(f"results: {run_dir}/run.json")
    if (run_dir / "report.html").is_file():
        console.print(f"report:  {run_dir}/report.html")


def _executor_options(executor: str | None, address: str | None, workers: int | None,
                      recorded: RunConfig | None = None) -> dict[str, Any]:
    """RunConfig's executor, address and workers; CliError with how to install Ray when it is missing.
    `recorded`: a resumed run's config, whose executor, address and workers hold where none is given."""
    from harness.executors.ray_cluster import RayExecutorError, import_ray

    if recorded is not None and recorded.executor == "ray" and executor in (None, "ray"):
        executor = "ray"
        address = recorded.address if address is None else address
        workers = recorded.workers if workers is None else workers
    executor = executor or "local"
    if executor == "local":
        if address is not None or workers is not None:
            raise typer.BadParameter("--address and --workers go with --executor ray")
        return {"executor": "local", "address": None, "workers": None}
    if executor != "ray":
        raise typer.BadParameter(f"--executor must be 'local' or 'ray', got {executor!r}")
    try:
        import_ray()
    except RayExecutorError as exc:
        raise CliError(str(exc)) from exc
    return {"executor": "ray", "address": address, "workers": workers}


def _resume(run_dir: Path, concurrency: int | None, executor: str | None = None, address: str | None = None,
            workers: int | None = None) -> None:
    """Run again exactly the missing and infrastructure-failed episodes of a run, as it was configured
    (on its recorded executor, unless `executor`, `address` or `workers` say otherwise)."""
    from pydantic import ValidationError

    from harness.run.results import RunSummary

    try:
        summary = RunSummary.model_validate_json((run_dir / "run.json").read_bytes())
    except OSError as exc:
        raise CliError(f"{run_dir / 'run.json'}: {exc.strerror}") from exc
    except ValidationError as exc:
        raise CliError(f"{run_dir / 'run.json'} is not a webchaos run.json: {exc.errors()[0]['msg']}") from exc
    if summary.config is None:
        raise CliError(f"{run_dir / 'run.json'} records no run options (it was not started by `webchaos run`): "
                       "cannot resume it")
    config = summary.config.model_copy(update={
        "concurrency": concurrency or summary.config.concurrency,
        **_executor_options(executor, address, workers, recorded=summary.config)})
    _execute(config, run_id=run_dir.name, runs_dir=run_dir.parent, resume=True)


def wanted_variants(variant: list[str] | None, base_only: bool) -> list[str] | None:
    """The variant ids asked for: none at all with --base-only or `-v none`; None means every applicable one."""
    if base_only or variant == ["none"]:
        return []
    return variant


@app.command()
def run(
    suite: Annotated[str | None, typer.Option(
        "--suite", help="a suite (smoke, core, full; `core@1` to insist on a version; or a suite YAML): its exact "
        "tasks, variants and seeds, and a score card at the end")] = None,
    task: Annotated[list[str] | None, typer.Option(
        "--task", "-t", help="task id (repeatable); default: all, or with --variant, the tasks those variants "
        "apply to")] = None,
    variant: Annotated[
        list[str] | None, typer.Option("--variant", "-v", help="variant id (repeatable); default: all applicable")
    ] = None,
    seeds: Annotated[str | None, typer.Option(help="seeds: '1', '1,2,5' or '1-10' (default 1)")] = None,
    agent: Annotated[
        list[str] | None,
        typer.Option("--agent", "-a", help="reference | reference-no-recovery | reference-without-<primitive> | "
                     "cmd:'<command>', optionally NAME=cmd:'<command>' (repeatable; the name shows in every table). "
                     "A cmd: agent answers by "
                     "writing WEBCHAOS_ANSWER_FILE: text, or JSON {\"answer\": ..., \"infeasible\": true|false}"),
    ] = None,
    browser: Annotated[str, typer.Option(
        "--browser", help="for cmd: agents: 'proxy' (WEBCHAOS_PROXY only) or 'cdp' (webchaos launches the "
        "episode's Chromium on the proxy and gives WEBCHAOS_CDP_URL)")] = "proxy",
    chromium_arg: Annotated[list[str] | None, typer.Option(
        "--chromium-arg", help="with --browser cdp: an extra flag for the episode's Chromium (repeatable), e.g. "
        "--chromium-arg=--enable-unsafe-extension-debugging for Stagehand")] = None,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", "-j", min=1, help="episodes at once (default 2; with --resume, the run's own)")] = None,
    resume: Annotated[Path | None, typer.Option(
        "--resume", help="a run folder (runs/<id>): run again its missing and infrastructure-failed episodes, "
        "with the run's own tasks, variants, seeds, agents and options (the others here are ignored); "
        "finished results are kept as they are")] = None,
    no_base: Annotated[bool, typer.Option("--no-base", help="skip the unperturbed base episodes")] = False,
    base_only: Annotated[bool, typer.Option(
        "--base-only", help="the base tasks only, no variants (same as -v none)")] = False,
    run_id: Annotated[str | None, typer.Option(help="folder name under runs/")] = None,
    runs_dir: Annotated[Path, typer.Option(help="where runs are written")] = RUNS_DIR,
    catalog: Annotated[list[Path] | None, typer.Option(help="scenario YAML file or folder (default: built-in)")] = None,
    time_budget: Annotated[float, typer.Option(help="seconds an agent may take per episode")] = 120.0,
    https: Annotated[bool, typer.Option("--https", help=HTTPS_HELP)] = False,
    one_per_primitive: Annotated[bool, typer.Option(
        "--one-per-primitive", help="per task, only the first variant of each target primitive")] = False,
    isolate: Annotated[bool, typer.Option("--isolate", help=ISOLATE_HELP)] = False,
    no_replay: Annotated[bool, typer.Option(
        "--no-replay", help="do not record pages with rrweb (no rrweb.jsonl; replay.html shows the timeline only)"),
    ] = False,
    executor: Annotated[str | None, typer.Option(
        "--executor", help="'local' (one stack on this machine; the default) or 'ray' (a stack per Ray worker; "
        "pip install 'webchaos\\[ray]'); with ray, -j is episodes at once per worker; with --resume, the run's own "
        "executor, address and workers unless given")] = None,
    address: Annotated[str | None, typer.Option(
        "--address", help="with --executor ray: 'auto' (the cluster `ray start` made here) or HOST:PORT of its "
        "head; default: a new Ray instance on this machine")] = None,
    workers: Annotated[int | None, typer.Option(
        "--workers", min=1, help="with --executor ray: Ray workers, each with its own stack, 1 CPU each "
        "(default: one per node)")] = None,
    chaos_profile: Annotated[list[str] | None, typer.Option(
        "--chaos-profile", help="a chaos profile (built in: flaky-network, hostile-page, all-weather; or a YAML "
        "path) laid over every base episode, run beside the clean base (repeatable)")] = None,
) -> None:
    """Run tasks × variants × seeds with one or more agents and print a result table."""
    from harness.run.results import RunConfig

    if resume is not None:
        _resume(resume, concurrency, executor, address, workers)
        return
    suite_ref = None
    if suite is not None:
        from scenarios.suites import load_suite, names_a_file

        given = [flag for flag, value in (("--task", task), ("--variant", variant), ("--seeds", seeds),
                                          ("--base-only", base_only), ("--no-base", no_base),
                                          ("--one-per-primitive", one_per_primitive)) if value]
        if given:
            raise CliError(f"--suite fixes the tasks, variants and seeds: leave out {', '.join(given)}")
        try:
            loaded = load_suite(suite)
        except ValueError as exc:
            raise CliError(str(exc)) from exc
        suite_ref = suite if names_a_file(suite) else loaded.ref  # a file of one's own is named by its path
    config = RunConfig(
        suite=suite_ref, tasks=task, variants=wanted_variants(variant, base_only), seeds=cli_seeds(seeds or "1"),
        agents=agent or ["reference"], include_base=not no_base, one_per_primitive=one_per_primitive,
        catalog=[str(p.resolve()) for p in catalog or []], https=https, browser=browser,
        chromium_args=chromium_arg or [], time_budget_s=time_budget, concurrency=concurrency or 2, isolate=isolate,
        record_replay=not no_replay, chaos_profiles=chaos_profile or [],
        **_executor_options(executor, address, workers))
    _execute(config, run_id=run_id, runs_dir=runs_dir)


@app.command()
def script(
    path: Annotated[Path, typer.Argument(help="a scenario script: a .py file defining async scenario(ep)")],
    task: Annotated[list[str] | None, typer.Option(
        "--task", "-t", help="task id (repeatable); default: the script's TASKS")] = None,
    seeds: Annotated[str, typer.Option(help="seeds: '1', '1,2,5' or '1-10'")] = "1",
    agent: Annotated[list[str] | None, typer.Option(
        "--agent", "-a", help="as for run: reference | reference-no-recovery | [NAME=]cmd:'<command>'")] = None,
    browser: Annotated[str, typer.Option("--browser", help="for cmd: agents: 'proxy' or 'cdp' (as for run)")
                       ] = "proxy",
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", min=1)] = 2,
    run_id: Annotated[str | None, typer.Option(help="folder name under runs/")] = None,
    runs_dir: Annotated[Path, typer.Option(help="where runs are written")] = RUNS_DIR,
    time_budget: Annotated[float, typer.Option(help="seconds an agent may take per episode")] = 120.0,
    https: Annotated[bool, typer.Option("--https", help=HTTPS_HELP)] = False,
) -> None:
    """Run a scenario script beside any agent: it arms and disarms faults as the episode goes; graded like run."""
    from harness.episodes.script import ScriptError, load_script
    from harness.run.results import RunConfig

    try:
        tasks = task or list(load_script(path).tasks)
    except ScriptError as exc:
        raise CliError(str(exc)) from exc
    if not tasks:
        raise CliError(f"{path}: give --task (the script names no TASKS)")
    config = RunConfig(tasks=tasks, variants=[], seeds=cli_seeds(seeds), agents=agent or ["reference"],
                       https=https, browser=browser, time_budget_s=time_budget, concurrency=concurrency,
                       script=str(path.resolve()))
    _execute(config, run_id=run_id, runs_dir=runs_dir)


@app.command()
def demo(
    concurrency: Annotated[int, typer.Option("--concurrency", "-j", min=1)] = 3,
    runs_dir: Annotated[Path, typer.Option()] = RUNS_DIR,
    https: Annotated[bool, typer.Option("--https", help=HTTPS_HELP)] = False,
    everything: Annotated[bool, typer.Option(
        "--all", help="every task × (base + one variant per target primitive), not the short tour")] = False,
) -> None:
    """The smoke suite (a tour: per site, the task whose variants reach the most primitives, its base run and
    one variant per target primitive), with the reference agent with recovery on and off."""
    from harness.run.results import RunConfig
    from scenarios.suites import load_suite

    catalog = load_catalog(None)
    suite = None if everything else load_suite("smoke").ref
    config = RunConfig(suite=suite, seeds=[1], agents=["reference", "reference-no-recovery"],
                       one_per_primitive=everything, https=https, concurrency=concurrency)
    _execute(config, run_id=None, runs_dir=runs_dir, catalog=catalog)


@app.command("list")
def list_catalog(catalog: Annotated[list[Path] | None, typer.Option()] = None) -> None:
    """List tasks and variants, each with its kind: action (graded from server state), answer (from the
    agent's answer, nothing written), action+answer, or infeasible (the answer 'infeasible', nothing written)."""
    from harness.cli.listings import catalog_inputs, print_kept, task_listing

    inputs = catalog_inputs(catalog)

    def render() -> None:
        from rich.markup import escape

        lines = []
        for t in task_listing(catalog, inputs):
            kind = escape(f"[{t['kind']}]")
            lines.append(f"[bold]{t['id']}[/] {kind} ({t['site']}; {', '.join(t['primitives'])}): {t['title']}")
            for v in t["variants"]:
                mark = escape(" [infeasible]") if v["infeasible"] else ""
                lines.append(f"    variant [cyan]{v['id']}[/]{mark} → {v['primitive']}: {v['title']}")
        if lines:  # one print of thousands of lines: a print per line took seconds
            console.print(*lines, sep="\n", highlight=False)

    print_kept("list", inputs, render)


@app.command()
def faults(
    markdown: Annotated[bool, typer.Option("--markdown", help="print docs/faults.md instead of a table")] = False,
) -> None:
    """List every registered fault type with its layer, parameters (type, unit, default) and primitive."""
    from harness.cli.listings import fault_inputs, fault_types, print_kept

    inputs = fault_inputs()
    if markdown:
        from scenarios.faultdocs import render_markdown

        sys.stdout.write(render_markdown(fault_types(inputs)))
        return

    def render() -> None:
        from rich.table import Table

        table = Table(header_style="bold", show_lines=True)
        for column in ("type", "layer", "primitive", "parameters", "what it does"):
            table.add_column(column)
        for entry in fault_types(inputs):
            params = "\n".join(
                f"{p['name']}: {p['type']}" + (f" [{p['unit']}]" if p["unit"] else "") + f" = {p['default']}"
                for p in entry["params"]
            )
            table.add_row(entry["type"], entry["layer"], entry["primitive"], params or "(none)",
                          entry["description"])
        console.print(table, markup=False)

    print_kept("faults", inputs, render)


@app.command("grade")
def grade_cmd(episode_dir: Annotated[Path, typer.Argument(help="an episode folder of a run")],
              catalog: Annotated[list[Path] | None, typer.Option()] = None,
              check: Annotated[bool, typer.Option(
                  "--check", help="exit 1 if the verdict differs from the one in result.json")] = False,
              answer: Annotated[str | None, typer.Option(
                  "--answer", help="grade this answer instead of the one the episode stored")] = None,
              infeasible: Annotated[bool, typer.Option(
                  "--infeasible", help="grade the answer 'the task cannot be done' instead")] = False) -> None:
    """Re-grade a finished episode offline from its saved files (states, events, ledger, actions, and the
    agent's answer as result.json stored it)."""
    from grader.verdict import Verdict
    from harness.episodes.manager import grade_episode_dir
    from scenarios.answers import Answer

    try:
        meta = json.loads((episode_dir / "episode.json").read_text())
        for name in ("state_initial.json", "state_final.json"):
            (episode_dir / name).stat()
    except OSError as exc:
        raise CliError(f"{episode_dir}: {exc.strerror}: {exc.filename}") from exc
    cat = load_catalog(catalog)
    task = cat.tasks.get(meta["task_id"])
    if task is None:
        raise CliError(f"task {meta['task_id']!r} is not in the catalog")
    given = Answer(value=answer, infeasible=infeasible) if answer is not None or infeasible else None
    text = grade_episode_dir(task, episode_dir, answer=given).model_dump_json(indent=2)
    sys.stdout.write(text + "\n")
    if check:
        try:
            stored = json.loads((episode_dir / "result.json").read_bytes())["verdict"]
            same = Verdict.model_validate(stored).model_dump_json(indent=2) == text
        except (OSError, ValueError, KeyError, TypeError):
            same = False
        if not same:
            raise CheckFailed(f"{episode_dir}: re-graded verdict differs from result.json")


@app.command("report")
def report_cmd(run_dir: Annotated[Path, typer.Argument(help="a run folder (holds run.json)")]) -> None:
    """Re-render a run's report.html from its run.json (and its episode folders)."""
    from pydantic import ValidationError

    from harness.reporting.html import write_report
    from harness.run.results import RunSummary

    try:
        summary = RunSummary.model_validate_json((run_dir / "run.json").read_bytes())
    except OSError as exc:
        raise CliError(f"{run_dir / 'run.json'}: {exc.strerror}") from exc
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise CliError(f"{run_dir / 'run.json'} is not a webchaos run.json: {where}: {first['msg']}") from exc
    console.print(f"report: {write_report(summary, run_dir)}", markup=False)


@app.command("replay")
def replay_cmd(episode_dir: Annotated[Path, typer.Argument(help="an episode folder of a run")]) -> None:
    """Write the episode's replay.html: the recorded page in rrweb's player beside one timeline of its GUI
    actions, semantic events, requests and fault firings (click any to seek), with the verdict. Opens offline."""
    from harness.reporting.replay import ReplayError, write_replay
    from proxy_addons.rrweb import player_assets

    try:
        path = write_replay(episode_dir)
    except (ReplayError, OSError) as exc:
        raise CliError(str(exc)) from exc
    if player_assets() is None:
        console.print("[yellow]warning[/] rrweb-player is not installed (run `make rrweb`): replay.html has the "
                      "timeline but no player")
    elif not (episode_dir / "rrweb.jsonl").is_file():
        console.print("[yellow]note[/] this episode has no page recording (rrweb.jsonl): the timeline only")
    typer.echo(f"replay: {path}")


@app.command()
def play(
    port: Annotated[int, typer.Option(help="port of the play page on 127.0.0.1 (0: any free port)")] = 8765,
    compare: Annotated[str | None, typer.Option(
        "--run", help="a run under runs/ whose agents to compare with (default: the newest)")] = None,
    runs_dir: Annotated[Path, typer.Option()] = RUNS_DIR,
    launch: Annotated[bool, typer.Option(
        "--launch", help="open a headed Chromium on each episode's proxy (needs a display)")] = False,
) -> None:
    """Beat the agent: a local page where you play a task (base or variant) through the proxy; graded on Done,
    stored as agent `human` (HAR, actions, replay) and shown beside the agents of a run."""
    import asyncio

    from harness.interactive.play import serve

    def ready(url: str, _app: object) -> None:
        console.print(f"[bold]webchaos play[/] open {url} in your browser (Ctrl-C to stop)", markup=True)

    try:
        asyncio.run(serve(load_catalog(None), runs_dir, port, compare, launch, on_ready=ready))
    except KeyboardInterrupt:
        console.print("stopped; your episodes are in runs/play-*/")


@app.command()
def up(
    task: Annotated[str | None, typer.Option("--task", "-t", help="task id (default: the catalog's first)")] = None,
    variant: Annotated[str | None, typer.Option("--variant", "-v")] = None,
    seed: Annotated[int, typer.Option()] = 1,
    runs_dir: Annotated[Path, typer.Option()] = RUNS_DIR,
    https: Annotated[bool, typer.Option("--https", help=HTTPS_HELP)] = False,
    cdp: Annotated[bool, typer.Option(
        "--cdp", help="also launch the episode's Chromium on the proxy and print its CDP URL")] = False,
    isolate: Annotated[bool, typer.Option(
        "--isolate", help="also print a command line that runs your agent in its own namespaces, where only "
        "the episode's proxy (and CDP) port is reachable")] = False,
    answer: Annotated[str | None, typer.Option(
        "--answer", help="the agent's answer, graded with the state (else: typed before Enter, else the "
        "episode's answer file)")] = None,
    infeasible: Annotated[bool, typer.Option(
        "--infeasible", help="the agent reports that the task cannot be done")] = False,
) -> None:
    """Start the stack and open one episode for your own agent; grade on Enter or Ctrl-C."""
    from harness.interactive.up import serve_one
    from harness.run.runner import RunsDirError, check_runs_dir
    from scenarios.answers import Answer

    if isolate:
        check_isolation()
    cat = load_catalog(None)
    task = task or sorted(cat.tasks)[0]
    if task not in cat.tasks:
        raise CliError(cat.unknown("task", task))
    if variant and variant not in cat.variants:
        raise CliError(cat.unknown("variant", variant))
    try:
        check_runs_dir(runs_dir)
    except RunsDirError as exc:
        raise CliError(str(exc)) from exc
    given = Answer(value=answer, infeasible=infeasible) if answer is not None or infeasible else None
    raise typer.Exit(serve_one(cat, task, variant, seed, runs_dir, console, https=https, cdp=cdp, isolate=isolate,
                               answer=given))


def _register_catalog_commands() -> None:
    from harness.cli.catalog import catalog_app, validate

    app.add_typer(catalog_app, name="catalog")
    app.command()(validate)


_register_catalog_commands()


def _register_serve_command() -> None:
    from harness.cli.serve import serve

    app.command()(serve)


_register_serve_command()


def main() -> None:
    app()


if __name__ == "__main__":
    main()

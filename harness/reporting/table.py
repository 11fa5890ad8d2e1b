"""What a run prints at its end: a per-agent summary and a primitive × agent table, which fit an 80-column
terminal; the wider tables (every episode, primitive × agent × site, the biggest drops) only when the terminal
is wide enough to show them whole (report.html always has them)."""

import io
from collections import defaultdict

from rich.console import Console
from rich.table import Table

from harness.catalog.evidence import proven_specific, read_specificity
from harness.run.results import RunSummary
from harness.run.usage import cost_per_success_shown, dollars_shown, reported_usage, tokens_in_out_shown
from scenarios.faults import Primitive


def results_table(summary: RunSummary) -> Table:
    table = Table(title=f"webchaos run {summary.run_id}", header_style="bold")
    for column in ("task", "variant", "seed", "agent", "result", "score", "agent status", "firings", "time"):
        table.add_column(column, justify="right" if column in ("seed", "score", "firings", "time") else "left")
    for r in sorted(summary.episodes, key=lambda r: (r.task_id, r.variant_id or "", r.seed, r.agent)):
        mark = "[yellow]infra[/]" if r.infra_failed else "[green]pass[/]" if r.success else "[red]fail[/]"
        status = f"infra error: {r.infra.cause if r.infra else r.error}" if r.infra_failed else r.outcome.status
        variant = (r.variant_id or "base") + (f" + {r.profile}" if r.profile else "")
        table.add_row(r.task_id, variant, str(r.seed), r.agent, mark, f"{r.score:.2f}", status,
                      str(r.firings), f"{r.timings.total_ms / 1000:.1f}s")
    return table


def _share(passed: int, count: int) -> str:
    return f"{passed}/{count} {100 * passed / count:.0f}%" if count else "–"


def agent_totals(summary: RunSummary) -> Table:
    """Per agent: passed / graded overall, on base tasks and on variants, recovery moves, infrastructure errors
    (counted apart, never as failures)."""
    totals: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in summary.episodes:
        row = totals[r.agent]
        if r.infra_failed:
            row["infra"] += 1
            continue
        kind = "variant" if r.variant_id else "base"
        row["n"] += 1
        row["passed"] += int(r.success)
        row[f"{kind}_n"] += 1
        row[f"{kind}_passed"] += int(r.success)
        row["recoveries"] += r.outcome.recoveries
    table = Table(title="by agent", header_style="bold")
    for column in ("agent", "passed", "base", "variants", "recoveries", "infra"):
        # a long agent name wraps onto a second line rather than losing its end to an ellipsis
        table.add_column(column, justify="left" if column == "agent" else "right", overflow="fold")
    for agent, row in sorted(totals.items()):
        table.add_row(agent, _share(row["passed"], row["n"]), _share(row["base_passed"], row["base_n"]),
                      _share(row["variant_passed"], row["variant_n"]), str(row["recoveries"]), str(row["infra"]))
    return table


def usage_table(summary: RunSummary) -> Table | None:
    """Per agent: the episodes that reported usage, tokens in / out and cost per episode that reported them,
    cost per success; "not reported" where the agent gave none (never zero). None when no agent reported any."""
    usage = reported_usage(summary)
    if usage is None:
        return None
    table = Table(title="usage by agent (per episode that reported it)", header_style="bold")
    for column in ("agent", "reported", "tokens in / out", "cost", "cost/success"):
        table.add_column(column, justify="left" if column == "agent" else "right")
    for agent, u in usage.items():
        table.add_row(agent, f"{u.reported}/{u.episodes}", tokens_in_out_shown(u), dollars_shown(
            u.cost_usd.mean if u.cost_usd else None), cost_per_success_shown(u))
    return table


def primitive_by_agent(summary: RunSummary) -> Table | None:
    """Success per target primitive (rows) and agent (columns), over every site: the shape of a profile."""
    cells: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in summary.episodes:
        if r.infra_failed:
            continue
        cell = cells[(r.target_primitive or "base", r.agent)]
        cell[0] += int(r.success)
        cell[1] += 1
    agents = sorted({agent for _, agent in cells})
    if not agents:
        return None
    table = Table(title="success by target primitive", header_style="bold")
    table.add_column("primitive", overflow="fold")
    for agent in agents:
        table.add_column(agent, justify="right", overflow="fold")
    present = {primitive for primitive, _ in cells}
    for primitive in sorted(present, key=lambda p: PRIMITIVE_ORDER.index(p) if p in PRIMITIVE_ORDER else 99):
        row = [primitive]
        for agent in agents:
            passed, count = cells.get((primitive, agent), (0, 0))
            if not count:
                row.append("–")
                continue
            rate = passed / count
            color = "green" if rate >= 0.8 else "yellow" if rate >= 0.5 else "red"
            row.append(f"[{color}]{100 * rate:.0f}%[/] n={count}")
        table.add_row(*row)
    return table


def fits(console: Console, table: Table) -> bool:
    """Whether the console shows the table whole: rendered at its width, no cell is cut short (rich marks a
    cut with an ellipsis) and no line is wider."""
    trial = Console(file=io.StringIO(), width=console.width, color_system=None, force_terminal=False)
    trial.print(table)
    text = trial.file.getvalue()  # type: ignore[attr-defined]
    return "…" not in text and all(len(line) <= console.width for line in text.splitlines())


PRIMITIVE_ORDER = ("base", *(p.value for p in Primitive))
UNPROVEN_MARK = "*"
UNPROVEN_NOTE = ("* not yet proven specific: on the committed sample (webchaos validate --specificity), the agent "
                 "lacking this primitive does not fail these variants reliably, or an agent lacking another does")


def specific_cells() -> set[tuple[str, str]]:
    """The (site, primitive) cells the committed specificity evidence proves specific; the report marks the
    others (a variant cell not in this set measures something, not yet shown to be its primitive)."""
    evidence = read_specificity()
    return {cell for cell, ok in (proven_specific(evidence) if evidence is not None else {}).items() if ok}


def marked(text: str, site: str, primitive: str, specific: set[tuple[str, str]]) -> str:
    return text if primitive == "base" or (site, primitive) in specific else text + UNPROVEN_MARK


def primitive_table(summary: RunSummary) -> Table | None:
    """Success rate per target primitive (rows) for each agent × site (columns)."""
    matrix = (summary.aggregates or {}).get("score_matrix") or {}
    columns = sorted({(agent, site) for agent, rows in matrix.items() for cells in rows.values() for site in cells})
    if not columns:
        return None
    specific = specific_cells()
    table = Table(title="success by primitive (variants grouped by their target primitive)",
                  caption=UNPROVEN_NOTE, header_style="bold")
    table.add_column("primitive")
    for agent, site in columns:
        table.add_column(f"{agent}\n{site}", justify="right")
    primitives = sorted({p for rows in matrix.values() for p in rows},
                        key=lambda p: PRIMITIVE_ORDER.index(p) if p in PRIMITIVE_ORDER else 99)
    for primitive in primitives:
        row = [primitive]
        for agent, site in columns:
            cell = matrix.get(agent, {}).get(primitive, {}).get(site)
            if cell is None:
                row.append("–")
                continue
            rate = cell["success_rate"]
            color = "green" if rate >= 0.8 else "yellow" if rate >= 0.5 else "red"
            row.append(marked(f"[{color}]{100 * rate:.0f}%[/] (n={cell['n']:.0f})", site, primitive, specific))
        table.add_row(*row)
    return table


def drops_table(summary: RunSummary, limit: int = 12) -> Table | None:
    """The variants that hurt most: score drop against the same task and seed without faults."""
    drops = [d for d in (summary.aggregates or {}).get("variant_drops") or [] if d["drop"] > 0]
    if not drops:
        return None
    drops.sort(key=lambda d: (-d["drop"], d["variant_id"], d["agent"]))
    table = Table(title="where it broke: score drop against the base task, same seeds", header_style="bold")
    for column in ("variant", "primitive", "agent", "pairs", "drop", "95% CI"):
        table.add_column(column, justify="right" if column in ("pairs", "drop", "95% CI") else "left")
    for d in drops[:limit]:
        lo, hi = d["ci95"]
        table.add_row(d["variant_id"], d["target_primitive"] or "", d["agent"], str(d["n_pairs"]),
                      f"{d['drop']:.2f}", f"[{lo:.2f}, {hi:.2f}]")
    return table


def print_summary(summary: RunSummary, console: Console | None = None) -> None:
    console = console or Console()
    left_out = []
    for wide in (results_table(summary), primitive_table(summary), drops_table(summary)):
        if wide is None:
            continue
        if fits(console, wide):
            console.print(wide)
        else:
            left_out.append(str(wide.title))
    console.print(agent_totals(summary))
    usage = usage_table(summary)
    if usage is not None:
        console.print(usage)
    by_primitive = primitive_by_agent(summary)
    if by_primitive is not None:
        console.print(by_primitive)
    if left_out:
        console.print(f"[dim]wider than this terminal, in report.html: {'; '.join(left_out)}[/]")

"""The result table printed at the end of a run."""

from collections import defaultdict

from rich.console import Console
from rich.table import Table

from harness.run.results import RunSummary
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


def agent_totals(summary: RunSummary) -> Table:
    """Passed / graded per agent; infrastructure errors are counted apart, never as failures."""
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for r in summary.episodes:
        if r.infra_failed:
            totals[r.agent][2] += 1
            continue
        totals[r.agent][0] += int(r.success)
        totals[r.agent][1] += 1
    table = Table(title="by agent", header_style="bold")
    table.add_column("agent")
    table.add_column("passed", justify="right")
    table.add_column("infra errors", justify="right")
    for agent, (passed, count, infra) in sorted(totals.items()):
        table.add_row(agent, f"{passed}/{count} ({100 * passed / count:.0f}%)" if count else "–", str(infra))
    return table


PRIMITIVE_ORDER = ("base", *(p.value for p in Primitive))


def primitive_table(summary: RunSummary) -> Table | None:
    """Success rate per target primitive (rows) for each agent × site (columns)."""
    matrix = (summary.aggregates or {}).get("score_matrix") or {}
    columns = sorted({(agent, site) for agent, rows in matrix.items() for cells in rows.values() for site in cells})
    if not columns:
        return None
    table = Table(title="success by primitive (variants grouped by their target primitive)", header_style="bold")
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
            row.append(f"[{color}]{100 * rate:.0f}%[/] (n={cell['n']:.0f})")
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
    console.print(results_table(summary))
    console.print(agent_totals(summary))
    for extra in (primitive_table(summary), drops_table(summary)):
        if extra is not None:
            console.print(extra)

"""The result table printed at the end of a run."""

from collections import defaultdict

from rich.console import Console
from rich.table import Table

from harness.results import RunSummary


def results_table(summary: RunSummary) -> Table:
    table = Table(title=f"webchaos run {summary.run_id}", header_style="bold")
    for column in ("task", "variant", "seed", "agent", "result", "score", "agent status", "firings", "time"):
        table.add_column(column, justify="right" if column in ("seed", "score", "firings", "time") else "left")
    for r in sorted(summary.episodes, key=lambda r: (r.task_id, r.variant_id or "", r.seed, r.agent)):
        mark = "[green]pass[/]" if r.success else "[red]fail[/]"
        status = r.outcome.status if not r.error else "harness error"
        table.add_row(r.task_id, r.variant_id or "base", str(r.seed), r.agent, mark, f"{r.score:.2f}", status,
                      str(r.firings), f"{r.timings.total_ms / 1000:.1f}s")
    return table


def agent_totals(summary: RunSummary) -> Table:
    totals: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in summary.episodes:
        totals[r.agent][0] += int(r.success)
        totals[r.agent][1] += 1
    table = Table(title="by agent", header_style="bold")
    table.add_column("agent")
    table.add_column("passed", justify="right")
    for agent, (passed, count) in sorted(totals.items()):
        table.add_row(agent, f"{passed}/{count} ({100 * passed / count:.0f}%)")
    return table


def print_summary(summary: RunSummary, console: Console | None = None) -> None:
    console = console or Console()
    console.print(results_table(summary))
    console.print(agent_totals(summary))

"""A suite run's score card in the terminal: per agent, success and score per target primitive with their
95% intervals, and robustness (variant score / the same tasks' base score); the numbers are run.json's
`aggregates.score_card` (grader/aggregate.py), so what is printed is what is stored."""

from typing import Any

from rich.console import Console
from rich.table import Table

from harness.run.results import RunSummary
from scenarios.faults import Primitive

ORDER = [p.value for p in Primitive] + ["overall", "base"]


def _interval(value: float, ci: list[float], percent: bool) -> str:
    if percent:
        return f"{100 * value:.0f}% [{100 * ci[0]:.0f}-{100 * ci[1]:.0f}]"
    return f"{value:.2f} [{ci[0]:.2f}-{ci[1]:.2f}]"


def score_card_table(agent: str, rows: dict[str, Any], title: str) -> Table:
    table = Table(title=f"{title} · {agent}", header_style="bold")
    for column in ("primitive", "n", "success [95% CI]", "score [95% CI]", "robustness"):
        table.add_column(column, justify="left" if column == "primitive" else "right")
    for name in sorted(rows, key=lambda k: ORDER.index(k) if k in ORDER else len(ORDER)):
        row = rows[name]
        robustness = "–" if row["robustness"] is None else f"{row['robustness']:.2f}"
        table.add_row(name, str(row["n"]), _interval(row["success_rate"], row["success_ci95"], True),
                      _interval(row["mean_score"], row["score_ci95"], False), robustness,
                      style="bold" if name == "overall" else None)
    return table


def print_score_card(summary: RunSummary, console: Console) -> None:
    """The score card of a suite run (nothing for other runs: their selection is not a comparable one)."""
    card = (summary.aggregates or {}).get("score_card") or {}
    suite = summary.config.suite if summary.config is not None else None
    if not suite or not card:
        return
    label = suite.rsplit("/", 1)[-1]  # a suite file of one's own: its name, not its whole path
    for agent, rows in sorted(card.items()):
        console.print(score_card_table(agent, rows, f"score card {label}"))

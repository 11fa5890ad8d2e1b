"""A suite run's score card in the terminal: per agent, success and score per target primitive with their
95% intervals, and robustness (variant score / the same tasks' base score); the numbers are run.json's
`aggregates.score_card` (grader/aggregate.py), so what is printed is what is stored. When some agent reported
usage, each card ends with the agent's (`aggregates.usage`, harness/run/usage.py), "not reported" for what it
did not report."""

from typing import Any

from rich.console import Console
from rich.table import Table

from harness.run.results import RunSummary
from harness.run.usage import AgentUsage, cost_per_success_shown, dollars_shown, reported_usage, tokens_in_out_shown
from scenarios.faults import Primitive

ORDER = [p.value for p in Primitive] + ["overall", "base"]


def _interval(value: float, ci: list[float], percent: bool) -> str:
    if percent:
        return f"{100 * value:.0f}% [{100 * ci[0]:.0f}-{100 * ci[1]:.0f}]"
    return f"{value:.2f} [{ci[0]:.2f}-{ci[1]:.2f}]"


def usage_line(usage: AgentUsage) -> str:
    """The agent's usage under its card: per episode that reported it, and per success."""
    if not usage.any_reported:
        return f"usage: not reported (0/{usage.episodes} episodes)"
    return (f"usage: {usage.reported}/{usage.episodes} episodes reported · cost per success "
            f"{cost_per_success_shown(usage)}\nper episode: tokens in / out {tokens_in_out_shown(usage)} · cost "
            f"{dollars_shown(usage.cost_usd.mean if usage.cost_usd else None)}")


def score_card_table(agent: str, rows: dict[str, Any], title: str, usage: AgentUsage | None = None) -> Table:
    table = Table(title=f"{title} · {agent}", header_style="bold",
                  caption=usage_line(usage) if usage is not None else None, caption_justify="left")
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
    usage = reported_usage(summary) or {}  # no usage lines at all when nobody reported
    for agent, rows in sorted(card.items()):
        console.print(score_card_table(agent, rows, f"score card {label}", usage.get(agent)))

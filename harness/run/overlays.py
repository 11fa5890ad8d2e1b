"""`--chaos-profile` and `webchaos script` in a run's plan, and the robustness table of a run.

A chaos profile (scenarios/chaos_profiles.py) is laid over every planned base episode: the run
keeps the clean base and adds the same (task, seed) once per profile, so the report can put the
score under each profile next to the clean base (`aggregates.profile_robustness`).
"""

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.table import Table

from harness.episodes.manager import EpisodeSpec
from harness.episodes.script import load_script, with_script
from harness.reporting.table import fits
from harness.run.results import RunSummary
from scenarios.chaos_profiles import load_profile


def with_overlays(specs: Sequence[EpisodeSpec], chaos_profiles: Sequence[str] = (),
                  script: Path | str | None = None) -> list[EpisodeSpec]:
    """The plan with each profile laid over each base episode, or every episode given the script.
    Raises ValueError (ScenarioError, ScriptError) naming the file and the problem."""
    planned = list(specs)
    if script is not None:
        planned = with_script(planned, load_script(Path(script)))
    profiles = [load_profile(name) for name in chaos_profiles]
    names = [p.name for p in profiles]
    if len(set(names)) != len(names):
        raise ValueError(f"--chaos-profile: the same profile given twice ({', '.join(names)})")
    extra = [replace(spec, profile=profile) for spec in planned if spec.variant is None for profile in profiles]
    return planned + extra


def robustness_table(summary: RunSummary) -> Table | None:
    rows = (summary.aggregates or {}).get("profile_robustness") or []
    if not rows:
        return None
    table = Table(title="robustness under chaos profiles (paired with the clean base, same tasks and seeds)",
                  header_style="bold")
    for column in ("agent", "profile", "n", "clean base", "under profile", "robustness", "drop (95% CI)",
                   "firings"):
        table.add_column(column, justify="left" if column in ("agent", "profile") else "right")
    for row in rows:
        robustness = "–" if row["robustness"] is None else f"{row['robustness']:.2f}"
        low, high = row["drop_ci95"]
        table.add_row(row["agent"], row["profile"], str(row["n"]),
                      f"{row['base_score']:.2f} ({100 * row['base_success_rate']:.0f}% pass)",
                      f"{row['profile_score']:.2f} ({100 * row['profile_success_rate']:.0f}% pass)",
                      robustness, f"{row['drop']:+.2f} [{low:+.2f}, {high:+.2f}]", str(row.get("firings", "–")))
    return table


def print_robustness(summary: RunSummary, console: Console) -> None:
    table = robustness_table(summary)
    if table is None:
        return
    if fits(console, table):
        console.print(table)
    else:
        console.print(f"[dim]wider than this terminal, in report.html: {table.title}[/]")

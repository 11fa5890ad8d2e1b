"""The end-of-run output reads in an 80- and a 100-column terminal: the per-agent summary and the primitive x
agent table whole, the wider tables left to report.html (and named) rather than cut."""

import io

import pytest
from rich.console import Console

from grader.aggregate import run_aggregates
from harness.reporting.table import print_summary
from harness.run.results import RunSummary
from tests.harness.test_html_report import AGENTS, VARIANTS, _episode

# the longest names the built-in agents have, side by side
BUILT_IN = ("reference", "reference-no-recovery", "reference-without-state_tracking")


def _summary(agents: tuple[str, ...] = AGENTS) -> RunSummary:
    episodes = []
    index = 0
    for seed in (1, 2, 3):
        for variant in (None, *VARIANTS):
            for number, agent in enumerate(agents):
                index += 1
                scored_as = AGENTS[number % len(AGENTS)]  # the fixture's scores are by its own agents' names
                episodes.append(_episode(index, variant, seed, scored_as).model_copy(update={"agent": agent}))
    return RunSummary(run_id="r", started_at="2026-12-03T00:00:00+00:00", planned=len(episodes), episodes=episodes,
                      aggregates=run_aggregates(episodes))


@pytest.mark.parametrize("agents", [AGENTS, BUILT_IN], ids=["short names", "built-in names"])
@pytest.mark.parametrize("width", [80, 100])
def test_nothing_is_cut_at_80_or_100_columns(width: int, agents: tuple[str, ...]) -> None:
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, force_terminal=False)
    print_summary(_summary(agents), console)
    text = out.getvalue()
    assert "…" not in text, text
    assert max(len(line) for line in text.splitlines()) <= width
    assert "by agent" in text and "success by target primitive" in text
    # every name whole in the agent column, a long one wrapped onto the lines below it
    by_agent = text.split("by agent", 1)[1].split("└", 1)[0]
    column = [line.split("│")[1].strip() for line in by_agent.splitlines() if line.startswith("│")]
    assert "".join(column) == "".join(sorted(agents)), text
    assert "recoveries" in text and "variants" in text


def test_a_wide_terminal_gets_the_per_episode_table_too() -> None:
    out = io.StringIO()
    print_summary(_summary(), Console(file=out, width=250, color_system=None, force_terminal=False))
    assert "webchaos run r" in out.getvalue() and "wider than this terminal" not in out.getvalue()

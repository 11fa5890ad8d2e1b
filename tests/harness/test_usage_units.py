"""Usage an agent reports: reading usage.json (a malformed file named with its field and what is expected), adding
reports up, per-agent totals / means / cost per success, and how a run shows them (summary, score card, report).
Absent usage stays None ("not reported") everywhere, never zero."""

import io
import json
import shlex
import sys
from pathlib import Path

import pytest
from rich.console import Console

from harness.agents import CommandAgent
from harness.agents.base import AgentOutcome, EpisodeContext
from harness.agents.usage import (
    MAX_USAGE_FILE_BYTES,
    USAGE_FILE,
    Usage,
    UsageFileError,
    add_usage,
    parse_usage,
    read_usage,
)
from harness.reporting.html import render_report
from harness.reporting.score_card import print_score_card
from harness.reporting.table import print_summary, usage_table
from harness.run.results import EpisodeResult, InfraError, RunConfig, RunSummary
from harness.run.usage import agent_usage, dollars_shown, tokens_shown, usage_aggregate, usage_by_agent
from tests.catalog import builtin_catalog
from tests.harness.test_html_report import AGENTS
from tests.harness.test_terminal_summary import _summary


def test_any_subset_of_the_fields_is_a_report_and_an_empty_object_none() -> None:
    assert parse_usage('{"output_tokens": 12}') == Usage(output_tokens=12)
    assert parse_usage('{"input_tokens": 0, "cost_usd": 0}') == Usage(input_tokens=0, cost_usd=0.0)
    full = parse_usage('{"input_tokens": 1200, "output_tokens": 80, "cost_usd": 0.0123, "model": "m-1"}')
    assert full == Usage(input_tokens=1200, output_tokens=80, cost_usd=0.0123, model="m-1")
    assert parse_usage("{}") is None and parse_usage("  \n") is None
    assert parse_usage('{"model": null}') is None


@pytest.mark.parametrize(("raw", "named"), [
    ('{"input_tokens": -3}', "input_tokens: expected a whole number >= 0, got -3"),
    ('{"output_tokens": 2.5}', "output_tokens: expected a whole number >= 0, got 2.5"),
    ('{"input_tokens": "12"}', "input_tokens: expected a whole number >= 0, got '12'"),
    ('{"input_tokens": true}', "input_tokens: expected a whole number >= 0, got True"),
    ('{"cost_usd": -0.5}', "cost_usd: expected a number of US dollars >= 0, got -0.5"),
    ('{"cost_usd": "0.5"}', "cost_usd: expected a number of US dollars >= 0, got '0.5'"),
    ('{"cost_usd": NaN}', "cost_usd: expected a number of US dollars >= 0, got nan"),
    ('{"model": 4}', "model: expected text of at most 200 characters, got 4"),
    ('{"tokens": 5}', "unknown key(s) 'tokens'; expected a JSON object with any of \"input_tokens\""),
    ("[1, 2]", "got list; expected a JSON object"),
    ("12 tokens", "not JSON"),
])
def test_a_malformed_report_names_the_file_the_field_and_what_is_expected(raw: str, named: str) -> None:
    with pytest.raises(UsageFileError) as caught:
        parse_usage(raw, "/ep/usage.json")
    assert str(caught.value).startswith("/ep/usage.json: ") and named in str(caught.value)


def test_reading_the_file(tmp_path: Path) -> None:
    path = tmp_path / USAGE_FILE
    assert read_usage(path) is None  # no file: nothing reported
    path.write_text('{"input_tokens": 7}')
    assert read_usage(path) == Usage(input_tokens=7)
    path.write_bytes(b'{"model": "\xff"}')
    with pytest.raises(UsageFileError, match="not UTF-8"):
        read_usage(path)
    path.write_text('{"model": "' + "x" * MAX_USAGE_FILE_BYTES + '"}')
    with pytest.raises(UsageFileError, match="larger than"):
        read_usage(path)


def test_reports_add_up_and_what_neither_reported_stays_none() -> None:
    total = Usage(input_tokens=100, model="a") + Usage(input_tokens=50, cost_usd=0.25, model="b, a")
    assert total == Usage(input_tokens=150, output_tokens=None, cost_usd=0.25, model="a, b")
    assert add_usage(None, None) is None and add_usage(Usage(), None) is None
    assert add_usage(None, Usage(output_tokens=0)) == Usage(output_tokens=0)
    assert add_usage(Usage(cost_usd=1.0), Usage(cost_usd=0.5)) == Usage(cost_usd=1.5)
    assert Usage().shown() == "not reported"
    assert Usage(input_tokens=1200).shown() == "1,200 in · output not reported · cost not reported"


def _context(tmp_path: Path) -> EpisodeContext:
    task = builtin_catalog().tasks["shop_add_to_cart"]
    return EpisodeContext(episode_id="e1", task=task, variant=None, seed=1, instruction="do it",
                          start_url="http://shop.test/", proxy_url="http://127.0.0.1:9", plan=task.plan,
                          out_dir=tmp_path, browser=None, time_budget_s=30)


def _writer(text: str) -> str:
    """A command that writes `text` where its environment says usage goes."""
    code = f"import os; open(os.environ['WEBCHAOS_USAGE_FILE'], 'w').write({text!r})"
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)}"


@pytest.mark.asyncio
async def test_a_command_agents_usage_file_is_read_after_it_ends(tmp_path: Path) -> None:
    ctx = _context(tmp_path)
    assert CommandAgent("true").environment(ctx)["WEBCHAOS_USAGE_FILE"] == str(tmp_path / "usage.json")
    assert CommandAgent("true").environment(ctx)["WEBCHAOS_OUT_DIR"] == str(tmp_path)
    outcome = await CommandAgent(_writer('{"input_tokens": 900, "cost_usd": 0.01}')).run(ctx)
    assert outcome.status == "done" and outcome.error is None
    assert outcome.usage == Usage(input_tokens=900, cost_usd=0.01)


@pytest.mark.asyncio
async def test_a_malformed_usage_file_is_recorded_and_the_episode_goes_on(tmp_path: Path) -> None:
    outcome = await CommandAgent(_writer('{"input_tokens": -1}') + " && exit 0").run(_context(tmp_path))
    assert outcome.status == "done" and outcome.usage is None
    assert outcome.error is not None and outcome.error.startswith(f"usage file: {tmp_path / 'usage.json'}: ")
    assert "input_tokens: expected a whole number >= 0, got -1" in outcome.error
    assert any(line.startswith("usage file refused: ") for line in outcome.log)


@pytest.mark.asyncio
async def test_an_agent_without_a_usage_file_reported_nothing(tmp_path: Path) -> None:
    outcome = await CommandAgent("true").run(_context(tmp_path))
    assert outcome.status == "done" and outcome.usage is None and outcome.error is None


def _result(index: int, agent: str, success: bool, usage: Usage | None, infra: bool = False) -> EpisodeResult:
    return EpisodeResult(
        episode_id=f"{index:04d}-t-base-s{index}-{agent}", task_id="t", variant_id=None, target_primitive=None,
        seed=index, site="shop", agent=agent, instruction="", success=success, score=float(success),
        outcome=AgentOutcome(status="done", usage=usage),
        status="infra_error" if infra else "graded",
        infra=InfraError(process="proxy", cause="proxy died") if infra else None)


def test_per_agent_totals_means_and_cost_per_success_count_only_what_was_reported() -> None:
    results = [
        _result(1, "priced", True, Usage(input_tokens=1000, output_tokens=100, cost_usd=0.03, model="m")),
        _result(2, "priced", False, Usage(input_tokens=3000, output_tokens=300, cost_usd=0.05, model="m")),
        _result(3, "priced", True, Usage(input_tokens=2000)),  # no cost: left out of cost per success
        _result(4, "priced", True, None),  # nothing reported: not a zero
        _result(5, "priced", True, Usage(input_tokens=10**9, cost_usd=99.0), infra=True),  # not the agent's run
        _result(6, "silent", True, None),
        _result(7, "free", True, Usage(input_tokens=0, output_tokens=0, cost_usd=0.0)),
        _result(8, "unlucky", False, Usage(cost_usd=0.2)),
    ]
    by_agent = usage_by_agent(results)
    assert list(by_agent) == ["free", "priced", "silent", "unlucky"]
    priced = by_agent["priced"]
    assert (priced.episodes, priced.reported) == (4, 3)
    assert priced.input_tokens is not None and priced.input_tokens.model_dump() == {
        "total": 6000, "episodes": 3, "mean": 2000}
    assert priced.output_tokens is not None and priced.output_tokens.model_dump() == {
        "total": 400, "episodes": 2, "mean": 200}
    assert priced.cost_usd is not None and priced.cost_usd.total == pytest.approx(0.08)
    assert priced.successes_with_cost == 1 and priced.cost_per_success == pytest.approx(0.08)
    assert priced.models == ["m"]
    silent = by_agent["silent"]
    assert (silent.episodes, silent.reported) == (1, 0)
    assert silent.input_tokens is None and silent.cost_usd is None and silent.cost_per_success is None
    free = by_agent["free"]  # a report of nothing spent is zero, not "not reported"
    assert free.cost_usd is not None and free.cost_usd.total == 0 and free.cost_per_success == 0
    assert by_agent["unlucky"].cost_per_success is None  # a cost, but no success to divide by
    stored = json.loads(json.dumps(usage_aggregate(results)))
    assert stored["silent"]["input_tokens"] is None and stored["silent"]["cost_per_success"] is None
    assert stored["priced"]["cost_usd"]["episodes"] == 2


def test_shown_short_and_never_zero_for_absent() -> None:
    usage = agent_usage([_result(1, "a", True, None)])
    assert tokens_shown(usage.input_tokens) == "not reported" and dollars_shown(None) == "not reported"
    assert dollars_shown(0.0) == "$0.0000" and dollars_shown(0.0421) == "$0.0421" and dollars_shown(12.5) == "$12.50"
    assert dollars_shown(0.00001) == "$1.00e-05"
    big = agent_usage([_result(1, "a", True, Usage(input_tokens=123_456, output_tokens=950))])
    assert (tokens_shown(big.input_tokens), tokens_shown(big.output_tokens)) == ("123.5k", "950")


def _with_usage(summary: RunSummary) -> RunSummary:
    for r in summary.episodes:
        if r.agent == "careful":
            r.outcome.usage = Usage(input_tokens=123_456, output_tokens=2_345, cost_usd=0.0421, model="gpt-x")
    return summary


def test_no_usage_columns_when_no_agent_reported_any(tmp_path: Path) -> None:
    summary = _summary()
    assert usage_table(summary) is None
    html = render_report(summary, tmp_path)
    assert "usage reported" not in html and "not reported" not in html


@pytest.mark.parametrize("width", [80, 100])
def test_the_usage_table_fits_80_and_100_columns_and_says_not_reported(width: int) -> None:
    out = io.StringIO()
    print_summary(_with_usage(_summary()), Console(file=out, width=width, color_system=None, force_terminal=False))
    text = out.getvalue()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= width
    usage_part = text[text.index("usage by agent"):]
    careful = next(line for line in usage_part.splitlines() if "careful" in line)
    careless = next(line for line in usage_part.splitlines() if "careless" in line)
    assert "12/12" in careful and "123.5k / 2,345" in careful and "$0.0421" in careful
    assert "$0.0561" in careful  # 12 x $0.0421 over 9 successes
    assert "0/12" in careless and careless.count("not reported") == 3 and "$0" not in careless


def test_the_report_cards_show_usage_and_not_reported(tmp_path: Path) -> None:
    html = render_report(_with_usage(_summary()), tmp_path)
    careless = html[html.index(">careless</div>"):]
    careless = careless[:careless.index("</dl>")]
    assert "usage reported</dt><dd>0/12 episodes" in careless
    assert "cost per success</dt><dd>not reported" in careless and "$0" not in careless
    careful = html[html.index(">careful</div>"):]
    careful = careful[:careful.index("</dl>")]
    assert "tokens in / out per episode</dt><dd>123.5k / 2,345" in careful
    assert "cost, total</dt><dd>$0.5052" in careful and "cost per success</dt><dd>$0.0561" in careful
    assert "model</dt><dd>gpt-x" in careful
    assert "<dt>usage</dt><dd>123,456 in · 2,345 out · $0.0421 · gpt-x</dd>" in html  # each episode's own


def _suite_run(summary: RunSummary) -> RunSummary:
    summary.config = RunConfig(seeds=[1, 2, 3], agents=list(AGENTS), suite="core@1")
    return summary


def test_a_suite_runs_score_card_ends_with_each_agents_usage() -> None:
    out = io.StringIO()
    print_score_card(_suite_run(_with_usage(_summary())), Console(file=out, width=80, color_system=None))
    text = out.getvalue()
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    careful = text[text.index("score card core@1 · careful"):text.index("score card core@1 · careless")]
    assert "usage: 12/12 episodes reported · cost per success $0.0561" in careful
    assert "per episode: tokens in / out 123.5k / 2,345 · cost $0.0421" in careful
    careless = text[text.index("score card core@1 · careless"):]
    assert "usage: not reported (0/12 episodes)" in careless and "$0" not in careless
    quiet = io.StringIO()
    print_score_card(_suite_run(_summary()), Console(file=quiet, width=80, color_system=None))
    assert "score card" in quiet.getvalue() and "usage" not in quiet.getvalue()

"""report.html: rendered from a synthetic run (no browser, no stack), re-rendered by `webchaos report`."""

import json
import logging
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import unquote

import pytest

from grader.aggregate import run_aggregates
from grader.process import FaultRecovery, ProcessMetrics, WrongStep
from grader.verdict import CheckResult, SubgoalResult, Verdict
from harness.agents.base import AgentOutcome
from harness.config import PROJECT_ROOT
from harness.reporting import html as html_report
from harness.reporting.html import render_report, write_report
from harness.reporting.table import PRIMITIVE_ORDER
from harness.run.results import EpisodeResult, EpisodeTimings, RunSummary, write_json_atomic

HOSTILE = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'
AGENTS = ("careful", "careless")
# variant → (target primitive, score per agent); base always scores 1.0
VARIANTS = {"v_overlay": ("grounding", {"careful": 1.0, "careless": 0.0}),
            "v_latency": ("patience", {"careful": 0.5, "careless": 0.25}),
            "v_toast": ("verification", {"careful": 1.0, "careless": 1.0})}
PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")


def _verdict(score: float) -> Verdict:
    ok = score >= 1.0
    return Verdict(
        success=ok, score=score, raw_score=score, penalty=0.0,
        subgoals=[SubgoalResult(name="target in cart", passed=ok, checks=["create[0]"]),
                  SubgoalResult(name="no order placed", passed=True, checks=["invariant[0]"])],
        checks=[CheckResult(ref="create[0]", kind="create", desc="the target is in the cart", passed=ok,
                            weight=1.0, credit=score, detail="" if ok else "closest c1 fails: quantity=2")],
        negative_checks=[CheckResult(ref="invariant[0]", kind="invariant", desc="no order was placed", passed=True,
                                     severity="high", name="Agent did not place orders")],
        failures=[] if ok else ["create[0] the target is in the cart: closest c1 fails: quantity=2"],
        changes={"cart_items": {"created": 1, "updated": 0, "deleted": 0}},
        process=ProcessMetrics(
            terminal_success=ok, target_id="p025", exploration_success=True, execution_success=ok,
            informational_coverage=0.5, gui_steps=9, gui_steps_source="actions", semantic_steps=4,
            gui_per_semantic=2.25, steps_by_kind={"search": 1, "commit": 1},
            first_wrong_step=None if ok else WrongStep(seq=3, kind="commit", name="add_to_cart", reason="wrong qty"),
            recoveries=[FaultRecovery(seq=1, layer="client", type="overlay", fault_id="overlay#0", t_ms=812.0,
                                      recovered=ok, recover_ms=640.0 if ok else None)],
        ),
    )


def _episode(index: int, variant: str | None, seed: int, agent: str, **extra: Any) -> EpisodeResult:
    primitive, scores = VARIANTS[variant] if variant else (None, {a: 1.0 for a in AGENTS})
    score = scores[agent]
    fields: dict[str, Any] = dict(
        episode_id=f"{index:04d}-shop_add_to_cart-{variant or 'base'}-s{seed}-{agent}", task_id="shop_add_to_cart",
        variant_id=variant, target_primitive=primitive, seed=seed, site="shop", agent=agent,
        instruction="Add one Fieldhouse Foam Roller 45 cm to your shopping cart.", success=score >= 1.0,
        score=score, verdict=_verdict(score), firings=0 if variant is None else 2,
        outcome=AgentOutcome(status="done" if score >= 1.0 else "failed", steps_done=4, steps_total=5, attempts=6,
                             recoveries=1, error=None if score >= 1.0 else "step 4 (click Add to cart): timeout",
                             log=["step 0 goto /: ok (attempt 1)", "step 4 click Add to cart: timeout"]),
        timings=EpisodeTimings(open_ms=10, agent_ms=1500, close_ms=20, grade_ms=2, total_ms=1532),
    )
    fields.update(extra)
    return EpisodeResult(**fields)


@pytest.fixture
def run(tmp_path: Path) -> tuple[RunSummary, Path]:
    """Three seeds × (base + three variants) × two agents, plus a hostile episode and a harness error."""
    episodes: list[EpisodeResult] = []
    for seed in (1, 2, 3):
        for variant in (None, *VARIANTS):
            for agent in AGENTS:
                episodes.append(_episode(len(episodes), variant, seed, agent))
    episodes.append(_episode(len(episodes), None, 4, "careful"))
    hostile = _episode(len(episodes), "v_overlay", 4, "careful", instruction=HOSTILE, success=False, score=0.0,
                       outcome=AgentOutcome(status="failed", error=HOSTILE, log=[HOSTILE]))
    broken = _episode(len(episodes) + 1, "v_latency", 5, "careless", success=False, score=0.0, verdict=None,
                      instruction="", outcome=AgentOutcome(status="error"), error=f"RuntimeError: {HOSTILE}")
    episodes += [hostile, broken]
    run_dir = tmp_path / "runs" / "20260101-000000"
    for e in episodes:
        if e is broken:
            continue  # its folder never got written
        folder = run_dir / "episodes" / e.episode_id
        (folder / "screenshots").mkdir(parents=True)
        write_json_atomic(folder / "result.json", e)
        (folder / "trace.har").write_text("{}")
        (folder / "events.jsonl").write_text("")
        (folder / "screenshots" / "final.png").write_bytes(PNG)
        lines = [{"seq": 1, "t_ms": 812.0, "layer": "client", "type": "overlay", "fault_id": "overlay#0",
                  "request": {"method": "GET", "host": "shop.test", "path": "/product/p025"},
                  "detail": {"event": "fired", "label": HOSTILE if e is hostile else "Accept"}},
                 {"seq": 2, "t_ms": 900.5, "layer": "guard", "type": "refused", "fault_id": None,
                  "request": {"method": "GET", "host": "example.org", "path": "/"}, "detail": {"reason": "not a site"}}]
        (folder / "faults.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines) + "{not json\n")
    (run_dir / "episodes" / hostile.episode_id / "screenshots" / 'odd "name" <1>.png').write_bytes(PNG)
    summary = RunSummary(run_id="20260101-000000", started_at="2026-01-01T00:00:00+00:00",
                         finished_at="2026-01-01T00:04:10+00:00", planned=len(episodes) + 2, episodes=episodes,
                         aggregates=run_aggregates(episodes))
    return summary, run_dir


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []
        self.scripts = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.scripts += tag == "script"
        self.urls += [v or "" for k, v in attrs if k in ("href", "src", "action", "srcset", "poster", "data")]


def test_every_episode_has_a_row_with_its_details(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary, run_dir)
    assert page.count('<details class="ep') == len(summary.episodes)
    for e in summary.episodes:
        assert f'id="ep-{e.episode_id}"' in page
    assert "20260101-000000" in page and "4 min 10 s" in page
    assert "careful" in page and "careless" in page
    # a failed episode's details: failed check, subgoal, process metrics, ledger lines, files, screenshots
    assert "closest c1 fails: quantity=2" in page
    assert "✗ target in cart" in page
    assert "informational coverage" in page and "wrong qty" in page
    assert "/product/p025" in page and "not a site" in page
    assert "1 unreadable line skipped" in page
    assert 'loading="lazy"' in page
    assert "episodes/0000-shop_add_to_cart-base-s1-careful/trace.har" in page
    assert "episodes/0000-shop_add_to_cart-base-s1-careful/screenshots/final.png" in page


def test_matrix_has_every_primitive_row_and_cell(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary, run_dir)
    matrix = page[page.index('id="matrix"'):page.index('id="drops"')]
    for primitive in PRIMITIVE_ORDER:
        assert f'<th class="row">{primitive.replace("_", " ")}</th>' in matrix
    # careless on grounding: v_overlay on seeds 1-3, all failed; careful: 3 passes + the hostile failure
    assert "careless · grounding · shop: 0% of 3, mean score 0.00" in matrix
    assert "careful · grounding · shop: 75% of 4, mean score 0.75" in matrix
    assert "careful · base · shop: 100% of 4" in matrix
    assert "careful − careless" in matrix  # the difference panel: the worth of being careful
    assert "<b>+75</b><small>75% vs 0%</small>" in matrix


def test_cells_not_proven_specific_are_marked(run: tuple[RunSummary, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    summary, run_dir = run
    monkeypatch.setattr(html_report, "specific_cells", lambda: {("shop", "grounding")})
    matrix = (page := render_report(summary, run_dir))[page.index('id="matrix"'):page.index('id="drops"')]
    cells = re.findall(r'title="careful · (\w+) · shop: [^"]*"><b>([^<]*)(<sup class="unproven")?', matrix)
    marks = {primitive: bool(sup) for primitive, _, sup in cells}
    assert marks["grounding"] is False and marks["base"] is False  # proven; the base row measures no primitive
    assert any(marks[p] for p in marks if p not in ("grounding", "base"))
    assert "not yet proven specific" in matrix
    monkeypatch.setattr(html_report, "specific_cells", lambda: {("shop", p) for p in PRIMITIVE_ORDER})
    page = render_report(summary, run_dir)
    assert '<sup class="unproven"' not in page and "not yet proven specific" not in page


def test_drops_are_sorted_with_primitive_and_ci(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary, run_dir)
    drops = page[page.index('id="drops"'):page.index('id="attribution"')]
    hurt = drops[:drops.index('class="unhurt"')]
    order = re.findall(r'<a href="#episodes" data-q="([^"]+)">', hurt)
    assert order == ["v_overlay", "v_latency"]  # careless loses 1.0 on the overlay, 0.75 on latency
    assert "grounding" in hurt and "patience" in hurt
    assert "+1.00" in hurt and "+0.75" in hurt
    assert 'class="ci"' in hurt  # careful on v_overlay: drops 0, 0, 0, 1 over 4 pairs, a real interval
    assert "+0.25</b> [0.00, 0.75]" in hurt
    assert "v_toast" in drops[drops.index('class="unhurt"'):]


def test_hostile_strings_are_escaped(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary, run_dir)
    parser = _Links()
    parser.feed(page)
    assert parser.scripts == 1  # ours
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(" in page
    assert "onerror=alert(1)&gt;" in page
    assert "odd%20%22name%22%20%3C1%3E.png" in page


def test_no_external_resources(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary, run_dir)
    assert "http://" not in page and "https://" not in page
    assert "url(" not in page and "@import" not in page and "@font-face" not in page
    parser = _Links()
    parser.feed(page)
    assert parser.urls
    for url in parser.urls:
        assert not re.match(r"^[a-z][a-z0-9+.-]*:|^//|^/", url, re.I), url
        if not url.startswith("#"):
            assert (run_dir / unquote(url)).exists(), url


def test_infra_error_and_missing_folder(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary, run_dir)
    broken = summary.episodes[-1]
    assert not (run_dir / "episodes" / broken.episode_id).exists()
    row = page[page.index(f'id="ep-{broken.episode_id}"'):]
    row = row[:row.index("</details>")]
    assert "infra error" in row and "RuntimeError: &lt;script&gt;" in row
    assert "is missing" in row and "Not graded" in row
    assert "1 infra error" in page


def test_runs_without_aggregates_or_episodes(tmp_path: Path, run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    page = render_report(summary.model_copy(update={"aggregates": None}), run_dir)
    assert "careless · grounding · shop: 0% of 3" in page  # computed from the episodes
    empty = RunSummary(run_id="r", started_at="2026-01-01T00:00:00+00:00", planned=4, interrupted=True)
    page = render_report(empty, tmp_path / "nothing")
    assert "interrupted" in page and "No episode finished" in page and "0 of 4 planned" in page


def test_write_report_writes_into_the_run_folder(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    path = write_report(summary, run_dir)
    assert path == run_dir / "report.html"
    assert path.read_text(encoding="utf-8").startswith("<!doctype html>")
    assert not list(run_dir.glob("*.tmp"))


def test_cli_report_rerenders_from_run_json(run: tuple[RunSummary, Path], tmp_path: Path) -> None:
    summary, run_dir = run
    write_json_atomic(run_dir / "run.json", summary)
    out = subprocess.run([sys.executable, "-m", "harness.cli.main", "report", str(run_dir)], capture_output=True,
                         text=True, cwd=PROJECT_ROOT, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "report.html" in out.stdout
    page = (run_dir / "report.html").read_text(encoding="utf-8")
    assert page.count('<details class="ep') == len(summary.episodes)
    missing = subprocess.run([sys.executable, "-m", "harness.cli.main", "report", str(tmp_path / "nope")],
                             capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=60)
    assert missing.returncode == 2 and missing.stderr.startswith("webchaos: error: ") and "run.json" in missing.stderr


async def test_runner_writes_a_report_and_survives_a_report_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  caplog: pytest.LogCaptureFixture) -> None:
    from harness.run import runner

    dead = SimpleNamespace(oracle_url="http://127.0.0.1:9", control_url="http://127.0.0.1:9", secret="")
    summary, run_dir = await runner.run_matrix([], [], run_id="empty", runs_dir=tmp_path, stack=dead)  # type: ignore[arg-type]
    assert (run_dir / "report.html").is_file() and (run_dir / "run.json").is_file()

    def broken(*_: Any) -> Path:
        raise RuntimeError("template exploded")

    monkeypatch.setattr(runner, "write_report", broken)
    with caplog.at_level(logging.ERROR, logger="harness.run.runner"):
        summary, run_dir = await runner.run_matrix([], [], run_id="broken", runs_dir=tmp_path, stack=dead)  # type: ignore[arg-type]
    assert json.loads((run_dir / "run.json").read_text())["run_id"] == "broken"
    assert summary.finished_at is not None
    assert "template exploded" in caplog.text


def test_template_is_packaged() -> None:
    assert (html_report.TEMPLATES / "report.html.j2").is_file()
    text = (PROJECT_ROOT / "pyproject.toml").read_text()
    assert '"*.j2"' in text


def test_the_chaos_profile_section_shows_only_when_a_profile_ran(run: tuple[RunSummary, Path]) -> None:
    summary, run_dir = run
    assert 'id="robustness"' not in render_report(summary, run_dir)
    under = [_episode(100 + i, None, seed, agent, profile="flaky-network", score=0.5, success=False, firings=3)
             for i, (seed, agent) in enumerate((s, a) for s in (1, 2, 3) for a in AGENTS)]
    with_profile = summary.model_copy(update={"episodes": [*summary.episodes, *under],
                                              "aggregates": run_aggregates([*summary.episodes, *under])})
    page = render_report(with_profile, run_dir)
    assert 'id="robustness"' in page and 'href="#robustness"' in page
    rows = re.findall(r'<tr data-agent="([^"]+)" data-profile="([^"]+)">(.*?)</tr>', page, re.S)
    assert [(agent, profile) for agent, profile, _ in rows] == [(a, "flaky-network") for a in AGENTS]
    for _, _, cells in rows:  # base 1.0 on seeds 1–3, 0.5 under the profile: robustness 0.50, 9 firings
        text = " ".join(re.sub(r"<[^>]+>", " ", cells).split())
        assert text.endswith("3 100% score 1.00 0% score 0.50 0.50 +0.50 [0.50, 0.50] 9"), text

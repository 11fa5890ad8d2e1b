"""The built-in suites: chosen from the catalog and the evidence by a committed seed, committed as chosen, and
run as written (`webchaos run --suite`)."""

from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.catalog.suites import CORE_BUDGET, CORE_PER_CELL, build, core_problems, judgements, proven, write
from harness.cli.main import app
from harness.run.runner import plan_suite
from scenarios.faults import Primitive
from scenarios.suites import Suite, SuiteEntry, load_suite
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()
JUDGED = judgements(CATALOG)


def test_the_committed_suites_are_what_the_catalog_and_the_evidence_give() -> None:
    built = build(CATALOG, JUDGED)
    stale = [b.suite.ref for b in built.values() if b.changed]
    assert not stale, f"{stale}: run `webchaos catalog suites --write` and commit scenarios/suites/"


def test_core_fills_every_cell_with_proven_variants_within_its_budget() -> None:
    suite = load_suite("core")
    assert core_problems(suite, CATALOG, JUDGED) == []
    assert suite.episodes_per_agent <= CORE_BUDGET
    cells = Counter((CATALOG.tasks[e.task].site, CATALOG.variants[e.variant].target_primitive.value)
                    for e in suite.entries if e.variant)
    sites = {t.site for t in CATALOG.tasks.values()}
    assert {(s, p.value) for s in sites for p in Primitive} == set(cells)
    assert all(n == CORE_PER_CELL for n in cells.values())
    bases = {e.task for e in suite.entries if e.variant is None}
    assert bases == {e.task for e in suite.entries if e.variant}  # each variant's task runs bare too


def test_the_draw_is_the_same_every_time_and_a_broken_core_is_drawn_again_as_the_next_version(
        tmp_path: Path) -> None:
    first = build(CATALOG, JUDGED, folder=tmp_path)
    assert {b.suite.ref for b in first.values()} == {"smoke@1", "core@1", "full@1"}
    assert write(first, tmp_path) == ["smoke@1", "core@1", "full@1"]
    again = build(CATALOG, JUDGED, folder=tmp_path)
    assert not any(b.changed for b in again.values())
    one = next(e for e in load_suite("core", tmp_path).entries if e.variant)
    assert one.variant is not None
    unproven = {k: v for k, v in JUDGED.items() if k != one.variant}
    redrawn = build(CATALOG, unproven, folder=tmp_path)["core"]
    assert redrawn.changed and redrawn.suite.version == 2
    assert all(e.variant != one.variant for e in redrawn.suite.entries)


def test_a_core_that_no_longer_fills_a_cell_is_broken() -> None:
    """A variant whose primitive changes leaves its old cell short: the committed core no longer holds."""
    suite = load_suite("core")
    entry = next(e for e in suite.entries if e.variant)
    assert entry.variant is not None
    cell = (CATALOG.tasks[entry.task].site, CATALOG.variants[entry.variant].target_primitive.value)
    short = suite.model_copy(update={"entries": [
        e for e in suite.entries if e.variant is None or (CATALOG.tasks[e.task].site,
                                                          CATALOG.variants[e.variant].target_primitive.value) != cell]})
    assert [p for p in core_problems(short, CATALOG, JUDGED) if p.startswith(f"{cell[0]} × {cell[1]}: 0 variants")]


def test_only_proven_variants_are_drawn() -> None:
    ok = proven(CATALOG, JUDGED)
    for variant_id, task in ok.items():
        j = JUDGED[variant_id]
        assert j.fair and j.effective and not j.flaky and CATALOG.variants[variant_id].by_default
        assert task in CATALOG.variants[variant_id].tasks


def test_a_suite_plans_exactly_its_episodes_and_refuses_one_the_catalog_lacks() -> None:
    smoke = load_suite("smoke")
    specs = plan_suite(CATALOG, smoke)
    assert [(s.task.id, s.variant.id if s.variant else None, s.seed) for s in specs] == list(smoke.episodes())
    broken = Suite(name="x", version=3, purpose="p", seeds=[1], entries=[SuiteEntry(task="shop_add_to_cart",
                                                                                   variant="bank_session_expiry")])
    with pytest.raises(ValueError, match="suite x@3: the catalog has no episode shop_add_to_cart/bank_session_expiry"):
        plan_suite(CATALOG, broken)


@pytest.mark.parametrize(("extra", "named"), [(["-t", "shop_add_to_cart"], "--task"), (["--seeds", "1-3"], "--seeds"),
                                             (["--base-only"], "--base-only")])
def test_run_with_a_suite_refuses_options_that_would_change_it(extra: list[str], named: str) -> None:
    out = CliRunner().invoke(app, ["run", "--suite", "smoke", *extra])
    assert out.exit_code == 2
    assert f"--suite fixes the tasks, variants and seeds: leave out {named}\n" in out.output


def test_run_names_an_unknown_suite() -> None:
    out = CliRunner().invoke(app, ["run", "--suite", "nightly"])
    assert out.exit_code == 2 and "no such suite; built in: core, full, smoke" in out.output


def test_the_docs_name_each_suite_with_its_version_and_size() -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "suites.md").read_text()
    for name in ("smoke", "core", "full"):
        suite = load_suite(name)
        assert f"| `{suite.ref}` |" in text and text.split(f"| `{suite.ref}` |")[1].split("\n")[0].rstrip().endswith(
            f"| {suite.episodes_per_agent} |"), name


@pytest.mark.e2e
def test_a_suite_run_prints_its_score_card_and_stores_it_in_run_json(tmp_path: Path) -> None:
    import json
    import os
    import subprocess
    import sys

    from harness.config import PROJECT_ROOT

    mine = Suite(name="mine", version=4, purpose="a test", seeds=[1], entries=[
        SuiteEntry(task="shop_add_to_cart"), SuiteEntry(task="shop_add_to_cart", variant="shop_cart_503_then_success")])
    (tmp_path / "mine.yaml").write_text(mine.dump())
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "80"}
    out = subprocess.run([sys.executable, "-m", "harness.cli.main", "run", "--suite", str(tmp_path / "mine.yaml"),
                          "--run-id", "suite", "--runs-dir", str(tmp_path / "runs"), "--no-replay"],
                         cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    summary = json.loads((tmp_path / "runs" / "suite" / "run.json").read_text())
    assert summary["config"]["suite"] == str(tmp_path / "mine.yaml")
    assert [(e["task_id"], e["variant_id"], e["seed"]) for e in summary["episodes"]] == [
        ("shop_add_to_cart", None, 1), ("shop_add_to_cart", "shop_cart_503_then_success", 1)]
    card = summary["aggregates"]["score_card"]["reference"]
    assert set(card) == {"patience", "overall", "base"} and card["overall"]["n"] == 1
    assert "score card" in out.stdout and "robustness" in out.stdout
    card_lines = out.stdout.split("score card", 1)[1].split("results:", 1)[0].splitlines()
    assert len(card_lines) >= 7 and all(len(line) <= 80 for line in card_lines)

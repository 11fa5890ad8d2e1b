"""docs/tasks.md: the committed task table is what the catalog gives today, and it lists every task once with
its site's spread."""

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from harness.catalog import task_table
from harness.catalog.task_table import TASKS_DOC, render
from harness.cli.main import app
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()


def test_the_committed_task_table_is_current() -> None:
    assert TASKS_DOC.read_text() == render(CATALOG), "docs/tasks.md is stale: run `webchaos catalog tasks --write`"
    out = CliRunner().invoke(app, ["catalog", "tasks"])
    assert out.exit_code == 0 and "current" in out.output


def test_every_task_is_listed_once_and_each_sites_counts_add_up() -> None:
    text = render(CATALOG)
    listed = re.findall(r"^\| `([a-z0-9_]+)` \|", text, flags=re.M)
    assert sorted(listed) == sorted(CATALOG.tasks)
    for site in {t.site for t in CATALOG.tasks.values()}:
        row = re.search(rf"^\| {site} \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \|", text, flags=re.M)
        assert row is not None, site
        total, *kinds = (int(n) for n in row.groups())
        assert total == sum(kinds) == sum(1 for t in CATALOG.tasks.values() if t.site == site)


def test_every_task_has_a_variant_written_for_it() -> None:
    # Recipes state the traps every task of a shape shares; each task also gets one of its own (issues 30, 31).
    by_hand = {task for v in CATALOG.variants.values() if v.recipe is None for task in v.tasks}
    assert sorted(set(CATALOG.tasks) - by_hand) == []
    rows = re.findall(r"^\| `([a-z0-9_]+)` \|.* \| (\d+) \| (\d+) \|$", render(CATALOG), flags=re.M)
    assert len(rows) == len(CATALOG.tasks) and all(0 < int(hand) <= int(total) for _, total, hand in rows)


def test_a_stale_table_exits_1_and_write_makes_it_current(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stale = tmp_path / "tasks.md"
    stale.write_text("# Tasks\n")
    monkeypatch.setattr(task_table, "TASKS_DOC", stale)
    assert CliRunner().invoke(app, ["catalog", "tasks"]).exit_code == 1
    assert CliRunner().invoke(app, ["catalog", "tasks", "--write"]).exit_code == 0
    assert stale.read_text() == render(CATALOG)

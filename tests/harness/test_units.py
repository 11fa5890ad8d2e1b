import asyncio
import sys
from pathlib import Path

import pytest
import typer

from harness.agents import CommandAgent, ReferenceAgent, agent_from_spec
from harness.agents.base import EpisodeContext
from harness.cli.common import cli_seeds
from harness.run.runner import plan_matrix, tour
from scenarios.loader import load_catalog


def test_agent_specs() -> None:
    assert isinstance(agent_from_spec("reference"), ReferenceAgent)
    off = agent_from_spec("reference-no-recovery")
    assert isinstance(off, ReferenceAgent) and not off.recovery
    cmd = agent_from_spec("cmd:echo hi")
    assert isinstance(cmd, CommandAgent) and cmd.command == "echo hi"
    with pytest.raises(ValueError, match="unknown agent 'gpt'"):
        agent_from_spec("gpt")


def test_cli_seeds_reads_a_list_and_reports_a_bad_one_as_a_parameter_error() -> None:
    assert cli_seeds("2-5") == [2, 3, 4, 5]
    with pytest.raises(typer.BadParameter, match="seeds must look like"):
        cli_seeds("1..3")


def test_plan_matrix_pairs_tasks_with_applicable_variants() -> None:
    catalog = load_catalog()
    double = catalog.variants["shop_cart_double_submit"]
    catalog.variants[double.id] = double.model_copy(update={"status": "unfair", "reason": "for this test"})
    specs = plan_matrix(catalog, None, None, [1, 2])
    labels = {s.label for s in specs}
    assert "shop_buy_by_seller/shop_checkout_overlay/s2" in labels
    assert "shop_change_default_address/shop_cart_latency/s1" not in labels
    # per seed: every base task + one episode per (variant, task it applies to); variants marked unfair or
    # ineffective run only when asked for by id
    fair = [v for v in catalog.variants.values() if v.status == "ok"]
    assert any(v.status == "ineffective" for v in catalog.variants.values())
    assert len(fair) < len(catalog.variants)
    assert len(specs) == 2 * (len(catalog.tasks) + sum(len(v.tasks) for v in fair))
    assert "shop_add_to_cart/shop_cart_double_submit/s1" not in labels
    assert [s.label for s in plan_matrix(catalog, ["shop_add_to_cart"], ["shop_cart_double_submit"], [1],
                                         include_base=False)] == ["shop_add_to_cart/shop_cart_double_submit/s1"]
    assert [s.label for s in plan_matrix(catalog, ["shop_add_to_cart"], [], [1])] == ["shop_add_to_cart/base/s1"]
    assert all(s.variant for s in plan_matrix(catalog, None, None, [1], include_base=False))
    # a variant named without tasks runs on its own tasks, each beside its base: not every base in the catalog
    several = next(v for v in catalog.variants.values() if len(v.tasks) > 1)
    assert [(s.task.id, s.variant is not None) for s in plan_matrix(catalog, None, [several.id], [1])] == [
        pair for task_id in sorted(several.tasks) for pair in ((task_id, False), (task_id, True))]
    assert len(plan_matrix(catalog, None, [], [1])) == len(catalog.tasks)
    with pytest.raises(ValueError, match="unknown task 'nope'"):
        plan_matrix(catalog, ["nope"], None, [1])


def test_the_demo_tour_is_one_task_per_site_and_one_variant_per_primitive() -> None:
    catalog = load_catalog()
    tasks, variants = tour(catalog)
    assert tour(catalog) == (tasks, variants)
    sites = {t.site for t in catalog.tasks.values()}
    assert sorted(catalog.tasks[t].site for t in tasks) == sorted(sites)
    for site in sites:
        mine = [catalog.variants[v] for v in variants if catalog.tasks[catalog.variants[v].tasks[0]].site == site]
        primitives = [v.target_primitive for v in mine]
        assert len(primitives) == len(set(primitives)) >= 5, (site, primitives)
        assert all(any(t in tasks for t in v.tasks) for v in mine)
    # The tour's size follows the number of sites, not of variants: at most a base and 7 variants per site.
    assert len(plan_matrix(catalog, tasks, variants, [1])) <= 8 * len(sites)
    assert len(tour(catalog, tasks_per_site=2)[0]) == 2 * len(sites)


def test_the_tour_shows_each_primitive_by_the_variant_ranked_first() -> None:
    catalog = load_catalog()
    tasks, variants = tour(catalog)
    # a primitive a toured task offers through several variants: rank its last one first
    offered, primitive = next(
        (offered, v.target_primitive) for offered in ([v for v in catalog.variants_for(t) if v.by_default]
                                                      for t in tasks)
        for v in offered if sum(w.target_primitive == v.target_primitive for w in offered) > 1)
    last = [v.id for v in offered if v.target_primitive == primitive][-1]
    assert last not in variants
    _, ranked = tour(catalog, rank=lambda variant_id: 0 if variant_id == last else 1)
    assert last in ranked and len(ranked) == len(variants)
    assert [v for v in ranked if catalog.variants[v].target_primitive != primitive] == [
        v for v in variants if catalog.variants[v].target_primitive != primitive]


def _context(tmp_path: Path, budget: float = 10.0) -> EpisodeContext:
    task = load_catalog().tasks["shop_add_to_cart"]
    return EpisodeContext(
        episode_id="e1", task=task, variant=None, seed=1, instruction="do it", start_url="http://shop.test/",
        proxy_url="http://127.0.0.1:9", plan=task.plan, out_dir=tmp_path, browser=None, time_budget_s=budget,
    )


async def test_command_agent_gets_the_episode_in_its_environment(tmp_path: Path) -> None:
    script = "import os; print(os.environ['WEBCHAOS_PROXY'], os.environ['WEBCHAOS_START_URL'], " \
             "os.environ['WEBCHAOS_INSTRUCTION'])"
    agent = CommandAgent(f"{sys.executable} -c \"{script}\"")
    outcome = await agent.run(_context(tmp_path))
    assert outcome.status == "done"
    assert (tmp_path / "agent.log").read_text().split() == ["http://127.0.0.1:9", "http://shop.test/", "do", "it"]


async def test_command_agent_failure_and_timeout(tmp_path: Path) -> None:
    assert (await CommandAgent("exit 3").run(_context(tmp_path))).error == "command exited with status 3"
    started = asyncio.get_running_loop().time()
    outcome = await CommandAgent("sleep 30").run(_context(tmp_path, budget=0.3))
    assert outcome.status == "timeout"
    assert asyncio.get_running_loop().time() - started < 15  # ended by its budget, not by the 30 s command


def test_one_variant_per_primitive_makes_a_tour() -> None:
    catalog = load_catalog()
    tour = plan_matrix(catalog, None, None, [1], one_per_primitive=True)
    for task_id in catalog.tasks:
        primitives = [s.variant.target_primitive for s in tour if s.task.id == task_id and s.variant]
        # variants left out of default runs (marked unfair or ineffective) are not in a tour either
        expected = {v.target_primitive for v in catalog.variants_for(task_id) if v.by_default}
        assert len(primitives) == len(set(primitives)) == len(expected)
    assert len(tour) < len(plan_matrix(catalog, None, None, [1]))


def test_base_only_and_v_none_ask_for_no_variants() -> None:
    from harness.cli.main import wanted_variants

    assert wanted_variants(None, True) == [] and wanted_variants(["none"], False) == []
    assert wanted_variants(["shop_cart_latency"], False) == ["shop_cart_latency"]
    assert wanted_variants(None, False) is None


def test_the_closest_name_is_the_same_item_under_a_synonym_and_only_when_unambiguous() -> None:
    from harness.agents.recovery import closest_name

    wanted = "Fieldhouse Foam Roller 45 cm"
    listed = ["Fieldhouse Massage Roller 45 cm", "Fieldhouse Yoga Mat", "Cart (0)"]
    assert closest_name(wanted, listed) == "Fieldhouse Massage Roller 45 cm"
    assert closest_name(wanted, [*listed, "Fieldhouse Foam Roller 30 cm"]) is None  # as close: ambiguous
    assert closest_name(wanted, [wanted, "Fieldhouse Massage Roller 45 cm"]) is None  # it is listed as itself
    assert closest_name(wanted, ["Fieldhouse Yoga Mat", "Foam Roller"]) is None  # too little in common


def test_a_failing_command_says_why_in_one_line_on_stderr(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli.main import app

    missing = tmp_path / "nope"
    out = CliRunner().invoke(app, ["grade", str(missing)])
    assert out.exit_code == 2
    assert out.stderr == f"webchaos: error: {missing}: No such file or directory: {missing / 'episode.json'}\n"
    assert out.stdout == ""

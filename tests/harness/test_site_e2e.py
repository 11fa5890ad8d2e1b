"""Each site with tasks of its own end to end: its catalog's shape, and a few base tasks through the real stack
(sites server, mitmdump, headless Chromium) with the reference agent."""

from collections import Counter

import pytest
import pytest_asyncio

from harness.agents import ReferenceAgent
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult
from harness.run.runner import run_matrix
from harness.services.processes import Services
from scenarios.faults import Primitive
from scenarios.schema import Task, Variant
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()
# Per site, the base tasks run through the real stack.
E2E_TASKS = {
    "bank": ["bank_pay_lookalike_payee", "bank_add_payee_and_pay", "bank_buy_under_price_cap"],
    "mail": ["mail_reply_latest", "mail_delete_phishing", "mail_create_filter"],
    "forum": ["forum_upvote_namesake", "forum_answer_by_distro", "forum_flag_spam"],
    "travel": ["travel_book_namesake_hotel", "travel_book_no_resort_fee", "travel_cancel_one_trip"],
    "clinic": ["clinic_book_namesake", "clinic_flagged_result_message", "clinic_cancel_namesake"],
    "learn": ["learn_quiz_one_attempt", "learn_extended_reminder", "learn_grade_submission"],
}


def site_catalog(site: str) -> tuple[dict[str, Task], list[Variant]]:
    tasks = {tid: t for tid, t in CATALOG.tasks.items() if t.site == site}
    return tasks, [v for v in CATALOG.variants.values() if all(t in tasks for t in v.tasks)]


@pytest.mark.parametrize("site", sorted(E2E_TASKS))
def test_catalog_covers_every_primitive(site: str) -> None:
    site_tasks, site_variants = site_catalog(site)
    assert len(site_tasks) >= 8
    assert all(tid.startswith(f"{site}_") for tid in site_tasks)
    every = set(Primitive)
    # The base tasks between them exercise all seven primitives.
    assert {p for t in site_tasks.values() for p in t.primitives} == every
    # At least three variants target each primitive, and each variant targets exactly one.
    per_primitive = Counter(v.target_primitive for v in site_variants)
    assert set(per_primitive) == every, per_primitive
    assert min(per_primitive.values()) >= 3, per_primitive
    for variant in site_variants:
        assert (variant.recipe is not None or variant.id.startswith(f"{site}_")) and variant.title
        for tid in variant.tasks:
            assert len(set(site_tasks[tid].primitives) | {variant.target_primitive}) <= 2, (variant.id, tid)
    # Faults at every layer.
    assert {f["layer"] for v in site_variants for f in v.faults} == {"seed", "server", "network", "client"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def base_runs(stack: Services, tmp_path_factory: pytest.TempPathFactory) -> list[EpisodeResult]:
    """Every site's base tasks in one run (one browser pool, four at a time: an episode mostly waits on the
    page), asserted per site below."""
    specs = [EpisodeSpec(CATALOG.tasks[task], None, 1) for tasks in E2E_TASKS.values() for task in tasks]
    summary, _ = await run_matrix(specs, [ReferenceAgent(recovery=True)], runs_dir=tmp_path_factory.mktemp("runs"),
                                  stack=stack, concurrency=4, time_budget_s=60, record_replay=False)
    return summary.episodes


@pytest.mark.e2e
@pytest.mark.parametrize("site", sorted(E2E_TASKS))
def test_base_tasks_pass_with_the_reference_agent(base_runs: list[EpisodeResult], site: str) -> None:
    results = {r.task_id: r for r in base_runs if r.task_id in E2E_TASKS[site]}
    assert set(results) == set(E2E_TASKS[site])
    for task, result in results.items():
        assert result.outcome.status == "done", (task, result.outcome)
        assert result.success, (task, result.verdict)

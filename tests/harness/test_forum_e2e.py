"""Threadline end to end: its catalog's shape, and a few base tasks through the real stack
(sites server, mitmdump, headless Chromium) with the reference agent."""

from collections import Counter
from pathlib import Path

import pytest

from harness.agents import ReferenceAgent
from harness.episode import EpisodeSpec
from harness.runner import run_matrix
from harness.stack import Stack
from scenarios.faults import Primitive
from sites.registry import load_site_catalog

CATALOG = load_site_catalog()
FORUM_TASKS = {tid: t for tid, t in CATALOG.tasks.items() if t.site == "forum"}
FORUM_VARIANTS = [v for v in CATALOG.variants.values() if all(t in FORUM_TASKS for t in v.tasks)]
E2E_TASKS = ["forum_upvote_namesake", "forum_answer_by_distro", "forum_flag_spam"]


def test_forum_catalog_covers_every_primitive() -> None:
    assert len(FORUM_TASKS) >= 8
    assert all(tid.startswith("forum_") for tid in FORUM_TASKS)
    every = set(Primitive)
    assert {p for t in FORUM_TASKS.values() for p in t.primitives} == every
    per_primitive = Counter(v.target_primitive for v in FORUM_VARIANTS)
    assert set(per_primitive) == every, per_primitive
    assert min(per_primitive.values()) >= 3, per_primitive
    for variant in FORUM_VARIANTS:
        assert variant.id.startswith("forum_") and variant.title
        for tid in variant.tasks:
            assert len(set(FORUM_TASKS[tid].primitives) | {variant.target_primitive}) <= 2, (variant.id, tid)
    assert {f["layer"] for v in FORUM_VARIANTS for f in v.faults} == {"seed", "server", "network", "client"}


@pytest.mark.e2e
@pytest.mark.asyncio(loop_scope="module")
async def test_forum_base_tasks_pass_with_the_reference_agent(stack: Stack, tmp_path: Path) -> None:
    specs = [EpisodeSpec(FORUM_TASKS[task], None, 1) for task in E2E_TASKS]
    summary, _ = await run_matrix(specs, [ReferenceAgent(recovery=True)], runs_dir=tmp_path, stack=stack,
                                  concurrency=2, time_budget_s=60)
    results = {r.task_id: r for r in summary.episodes}
    assert set(results) == set(E2E_TASKS)
    for task, result in results.items():
        assert result.outcome.status == "done", (task, result.outcome)
        assert result.success, (task, result.verdict)

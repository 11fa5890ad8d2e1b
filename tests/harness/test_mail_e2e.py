"""Lark Mail end to end: its catalog's shape, and a few base tasks through the real stack
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
MAIL_TASKS = {tid: t for tid, t in CATALOG.tasks.items() if t.site == "mail"}
MAIL_VARIANTS = [v for v in CATALOG.variants.values() if all(t in MAIL_TASKS for t in v.tasks)]
E2E_TASKS = ["mail_reply_latest", "mail_delete_phishing", "mail_create_filter"]


def test_mail_catalog_covers_every_primitive() -> None:
    assert len(MAIL_TASKS) >= 8
    assert all(tid.startswith("mail_") for tid in MAIL_TASKS)
    every = set(Primitive)
    # The base tasks between them exercise all seven primitives.
    assert {p for t in MAIL_TASKS.values() for p in t.primitives} == every
    # At least three variants target each primitive, and each variant targets exactly one.
    per_primitive = Counter(v.target_primitive for v in MAIL_VARIANTS)
    assert set(per_primitive) == every, per_primitive
    assert min(per_primitive.values()) >= 3, per_primitive
    for variant in MAIL_VARIANTS:
        assert variant.id.startswith("mail_") and variant.title
        for tid in variant.tasks:
            assert len(set(MAIL_TASKS[tid].primitives) | {variant.target_primitive}) <= 2, (variant.id, tid)
    # Faults at every layer.
    assert {f["layer"] for v in MAIL_VARIANTS for f in v.faults} == {"seed", "server", "network", "client"}


@pytest.mark.e2e
@pytest.mark.asyncio(loop_scope="module")
async def test_mail_base_tasks_pass_with_the_reference_agent(stack: Stack, tmp_path: Path) -> None:
    specs = [EpisodeSpec(MAIL_TASKS[task], None, 1) for task in E2E_TASKS]
    summary, _ = await run_matrix(specs, [ReferenceAgent(recovery=True)], runs_dir=tmp_path, stack=stack,
                                  concurrency=2, time_budget_s=60)
    results = {r.task_id: r for r in summary.episodes}
    assert set(results) == set(E2E_TASKS)
    for task, result in results.items():
        assert result.outcome.status == "done", (task, result.outcome)
        assert result.success, (task, result.verdict)

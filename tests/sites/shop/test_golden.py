"""Shop moved onto the site kit with its behaviour unchanged: every task × variant × seed 1–3,
under one fixed scripted session, gives the same statuses, state bytes, events and ledger as
recorded before the move (golden_shop.json, written by `python -m tests.sites.shop.golden`)."""

import json

import pytest

from sites.server import build
from tests.sites.shop.golden import GOLDEN, SEEDS, cases, key, record_one

RECORDED = json.loads(GOLDEN.read_text())


def test_golden_covers_every_shop_task_and_variant() -> None:
    assert sorted(RECORDED) == sorted(key(t, v, s) for t, v in cases() for s in SEEDS)


@pytest.mark.parametrize(("task_id", "variant_id"), cases(), ids=lambda x: x or "base")
async def test_same_bytes_as_before_the_move(task_id: str, variant_id: str | None) -> None:
    apps = build()  # one sites server for the seeds in turn (building one took a third of each episode's time)
    for seed in SEEDS:
        now = await record_one(task_id, variant_id, seed, apps)
        assert now == RECORDED[key(task_id, variant_id, seed)], f"{task_id}/{variant_id}/{seed}"

"""Shop moved onto the site kit with its behaviour unchanged: every task × variant × seed 1–3,
under one fixed scripted session, gives the same statuses, state bytes, events and ledger as
recorded before the move (golden_shop.json, written by `python -m tests.sites.shop.golden`)."""

import json

import pytest

from tests.sites.shop.golden import GOLDEN, SEEDS, SITE_LAYERS, _catalog, cases, key, record_one
from tests.sites.worlds import sites_server

RECORDED = json.loads(GOLDEN.read_text())


def _acts_on_the_site(variant_id: str | None) -> bool:
    """A base, or a variant with a fault the sites server applies (seed or server layer); the others are
    their base as far as the site is concerned (the scripted session meets no proxy)."""
    return variant_id is None or any(f.get("layer") in SITE_LAYERS for f in _catalog().variants[variant_id].faults)


def test_golden_covers_every_shop_task_and_variant() -> None:
    assert sorted(RECORDED) == sorted(key(t, v, s) for t, v in cases() for s in SEEDS)


def test_a_variant_without_site_faults_was_recorded_as_its_base() -> None:
    """Why the run below replays only bases and variants that act on the site."""
    skipped = [(t, v) for t, v in cases() if not _acts_on_the_site(v)]
    assert skipped
    for task_id, variant_id in skipped:
        for seed in SEEDS:
            assert RECORDED[key(task_id, variant_id, seed)] == RECORDED[key(task_id, None, seed)], variant_id


@pytest.mark.parametrize(("task_id", "variant_id"), [c for c in cases() if _acts_on_the_site(c[1])],
                         ids=lambda x: x or "base")
async def test_same_bytes_as_before_the_move(task_id: str, variant_id: str | None) -> None:
    for seed in SEEDS:
        now = await record_one(task_id, variant_id, seed, sites_server())
        assert now == RECORDED[key(task_id, variant_id, seed)], f"{task_id}/{variant_id}/{seed}"

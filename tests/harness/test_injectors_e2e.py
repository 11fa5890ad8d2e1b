"""End to end: seed- and server-layer faults against the reference agent, with and without recovery.

One real set of services (sites server + mitmdump) and headless Chromium for the whole module.
"""

import json
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from harness.agents import ReferenceAgent
from harness.episodes.manager import EpisodeSpec
from harness.run.results import EpisodeResult
from harness.run.runner import run_matrix
from harness.services.processes import Services
from scenarios.schema import Task, Variant
from tests.catalog import builtin_catalog

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
CATALOG = builtin_catalog()

# A task that names the seller but, unlike shop_buy_by_seller, clicks the first same-named
# listing and checks the seller on its page: hard negatives listed first bite it.
ADD_BY_SELLER = Task.model_validate({
    "id": "shop_add_by_seller_probe", "site": "shop", "title": "Add the listing sold by a given seller",
    "instruction": "Add one {target.name} sold by {target.seller} to your cart.",
    "primitives": ["grounding"],
    "plan": [
        {"do": "goto", "url": "/"},
        {"do": "fill", "role": "searchbox", "name": "Search products", "value": "{target.name}"},
        {"do": "press", "role": "searchbox", "name": "Search products", "key": "Enter",
         "expect": {"text": "Results for"}},
        {"do": "click", "role": "link", "name": "{target.name}", "expect": {"text": "{target.seller}"}},
        # As the catalog's add-to-cart steps: a click whose answer came late (a loaded machine) may have added
        # already, so the cart is checked, and set back to one, rather than the write repeated blind.
        {"do": "click", "role": "button", "name": "Add to cart", "expect": {"text": "Added to cart"},
         "effect": {"visit": "/cart",
                    "expect": {"role": "spinbutton", "name": "Quantity for {target.name}", "value": "1"},
                    "complete": [
                        {"do": "fill", "role": "spinbutton", "name": "Quantity for {target.name}", "value": "1"},
                        {"do": "press", "role": "spinbutton", "name": "Quantity for {target.name}",
                         "key": "Tab"}]}},
    ],
    "canonical_diff": {
        "create": [{"collection": "cart_items", "desc": "the target is in the cart",
                    "properties": {"product_id": {"eq": "{target.id}"}, "quantity": {"eq": 1}}}],
        "invariant": [{"collection": "orders", "desc": "no order was placed"}],
    },
})
ONE_HARD_NEGATIVE = Variant.model_validate({
    "id": "probe_hard_negative_first", "title": "One identical listing from another seller, listed first",
    "tasks": [ADD_BY_SELLER.id], "target_primitive": "exploration",
    "faults": [{"type": "hard_negatives", "layer": "seed", "params": {"count": 1, "before_target": True}}],
})


# Every (task, variant, seed) the module needs; all run once, together, both agents each.
SPECS: list[tuple[Task | str, Variant | str, int]] = [
    ("shop_add_to_cart", "shop_cart_write_fails_after_commit", 1),
    ("shop_add_to_cart", "shop_session_expiry", 1),
    (ADD_BY_SELLER, ONE_HARD_NEGATIVE, 2),
    ("shop_buy_by_seller", "shop_checkout_price_change", 1),
    ("shop_add_to_cart", "shop_target_on_page_two", 1),
    ("shop_add_to_cart", "shop_out_of_stock_primary", 1),
    ("shop_change_default_address", "shop_address_rejected_once", 1),
]
Runs = dict[tuple[str, str, int], tuple[Path, EpisodeResult, EpisodeResult]]


def _spec(task: Task | str, variant: Variant | str, seed: int) -> EpisodeSpec:
    return EpisodeSpec(CATALOG.tasks[task] if isinstance(task, str) else task,
                       CATALOG.variants[variant] if isinstance(variant, str) else variant, seed)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runs(stack: Services, tmp_path_factory: pytest.TempPathFactory) -> Runs:
    runs_dir = tmp_path_factory.mktemp("runs")
    specs = [_spec(*entry) for entry in SPECS]
    summary, _ = await run_matrix(specs, [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)],
                                  runs_dir=runs_dir, stack=stack, concurrency=4, time_budget_s=90, record_replay=False)
    out: Runs = {}
    for spec in specs:
        assert spec.variant is not None
        mine = {r.agent: r for r in summary.episodes
                if (r.task_id, r.variant_id, r.seed) == (spec.task.id, spec.variant.id, spec.seed)}
        out[(spec.task.id, spec.variant.id, spec.seed)] = (runs_dir, mine["reference-no-recovery"], mine["reference"])
    return out


def both(runs: Runs, task: Task | str, variant: Variant | str, seed: int = 1
         ) -> tuple[Path, EpisodeResult, EpisodeResult]:
    """(runs folder, without recovery, with recovery) on one task, variant and seed."""
    spec = _spec(task, variant, seed)
    assert spec.variant is not None
    return runs[(spec.task.id, spec.variant.id, seed)]


def folder(runs_dir: Path, result: EpisodeResult) -> Path:
    (found,) = runs_dir.glob(f"*/episodes/{result.episode_id}")
    return found


def site_lines(runs_dir: Path, result: EpisodeResult) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in (folder(runs_dir, result) / "faults.jsonl").read_text().splitlines()]
    assert [line["seq"] for line in lines] == list(range(1, len(lines) + 1))
    return [line for line in lines if line["layer"] in ("seed", "server")]


def final_state(runs_dir: Path, result: EpisodeResult) -> dict[str, Any]:
    return dict(json.loads((folder(runs_dir, result) / "state_final.json").read_text()))


async def test_write_fails_after_commit(runs: Runs) -> None:
    where, off, on = both(runs, "shop_add_to_cart", "shop_cart_write_fails_after_commit")
    # Without recovery the agent gives up on the 500 although the write was kept.
    assert off.outcome.status == "failed" and "Added to cart" in (off.outcome.error or "")
    assert [i["quantity"] for i in final_state(where, off)["cart_items"]] == [1]
    # With recovery it checks the cart before repeating the write: no duplicate.
    assert on.success, (on.outcome, on.verdict)
    assert [i["quantity"] for i in final_state(where, on)["cart_items"]] == [1]
    for result in (off, on):
        assert [(e["type"], e["detail"]["committed"]) for e in site_lines(where, result)] == [
            ("write_fails_after_commit", True)]


async def test_session_expiry(runs: Runs) -> None:
    where, off, on = both(runs, "shop_add_to_cart", "shop_session_expiry")
    assert not off.success and off.outcome.status == "failed"
    assert [e["type"] for e in site_lines(where, off)] == ["session_expiry"]
    assert on.success, (on.outcome, on.verdict)
    assert on.outcome.recoveries >= 1
    events = [(e["type"], e["detail"].get("event")) for e in site_lines(where, on)]
    assert events == [("session_expiry", "expired"), ("session_expiry", "signed_in")]
    names = [json.loads(line)["name"] for line in (folder(where, on) / "events.jsonl").read_text().splitlines()]
    assert "sign_in" in names


async def test_hard_negatives(runs: Runs) -> None:
    where, off, on = both(runs, ADD_BY_SELLER, ONE_HARD_NEGATIVE, seed=2)
    assert not off.success and off.outcome.status == "failed"
    assert on.success, (on.outcome, on.verdict)
    assert [e["type"] for e in site_lines(where, on)] == ["hard_negatives"]


async def test_price_change_at_checkout(runs: Runs) -> None:
    where, off, on = both(runs, "shop_buy_by_seller", "shop_checkout_price_change")
    assert not off.success and off.outcome.status == "failed"
    initial = json.loads((folder(where, off) / "state_initial.json").read_text())
    assert final_state(where, off)["orders"] == initial["orders"]   # refused: nothing ordered
    assert on.success, (on.outcome, on.verdict)
    (line,) = site_lines(where, on)
    assert line["type"] == "price_change_at_checkout"
    assert final_state(where, on)["orders"][-1]["subtotal_cents"] == line["detail"]["new_cents"]


async def test_push_past_first_page_bites_without_recovery(runs: Runs) -> None:
    where, off, _ = both(runs, "shop_add_to_cart", "shop_target_on_page_two")
    assert not off.success and off.outcome.status == "failed" and "no visible link" in (off.outcome.error or "")
    assert [e["type"] for e in site_lines(where, off)] == ["push_past_first_page"]


async def test_push_past_first_page_recovered(runs: Runs) -> None:
    _, _, on = both(runs, "shop_add_to_cart", "shop_target_on_page_two")
    assert on.success, (on.outcome, on.verdict)


async def test_out_of_stock_primary_bites_without_recovery(runs: Runs) -> None:
    where, off, _ = both(runs, "shop_add_to_cart", "shop_out_of_stock_primary")
    assert not off.success and off.outcome.status == "failed" and "Add to cart" in (off.outcome.error or "")
    assert [e["type"] for e in site_lines(where, off)] == ["out_of_stock_primary"]
    assert final_state(where, off)["cart_items"] == []


async def test_out_of_stock_primary_recovered(runs: Runs) -> None:
    _, _, on = both(runs, "shop_add_to_cart", "shop_out_of_stock_primary")
    assert on.success, (on.outcome, on.verdict)


async def test_validation_reject_once_bites_without_recovery(runs: Runs) -> None:
    where, off, _ = both(runs, "shop_change_default_address", "shop_address_rejected_once")
    assert not off.success and off.outcome.status == "failed"
    assert [e["type"] for e in site_lines(where, off)] == ["validation_reject_once"]
    assert len(final_state(where, off)["addresses"]) == 2


async def test_validation_reject_once_recovered(runs: Runs) -> None:
    _, _, on = both(runs, "shop_change_default_address", "shop_address_rejected_once")
    assert on.success, (on.outcome, on.verdict)

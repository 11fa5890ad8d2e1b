"""dark_pattern and its server half extra_charge in real headless Chromium, through the real stack: each mode
draws its offer and fires; a taken offer rides on the commit's write (HAR) and becomes an `extras` entity (state);
the reference agent without recovery falls for it and fails, the reference agent declines it and passes."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from harness.agents import ReferenceAgent
from harness.episodes.manager import EpisodeSpec
from harness.services.processes import Services
from scenarios.schema import Variant
from tests.harness.episodes import Ran, run_to_the_fault
from tests.harness.test_client_faults import CATALOG, Env, Probe, browsers_and_clients, probe

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
ADD = {"role": "button", "name": "Add to cart"}
SHOTS = Path("/tmp/webchaos-dark-shots")  # to look at what the offers look like; not asserted


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(stack: Services) -> AsyncIterator[Env]:
    async with browsers_and_clients(stack) as opened:
        yield opened


def dark(mode: str, match: dict[str, Any] | None = None, path: str = "/product/*") -> list[dict[str, Any]]:
    return [{"id": "dp", "type": "dark_pattern", "layer": "client", "params": {"mode": mode},
             "match": {"host": "shop.test", "path": path, **(match if match is not None else ADD)}},
            {"id": "ec", "type": "extra_charge", "layer": "server",
             "match": {"host": "shop.test", "path": "/api/cart"}}]


def server_lines(p: Probe) -> list[dict[str, Any]]:
    return [x["detail"] for x in p.ledger() if x["type"] == "extra_charge"]


async def shot(p: Probe, name: str) -> None:
    SHOTS.mkdir(exist_ok=True)
    await p.page.screenshot(path=str(SHOTS / f"{name}.png"))


async def test_preselected_addon_is_ticked_and_a_commit_left_so_records_the_extra(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.wait_event("dp", "fired")
        box = p.page.get_by_role("checkbox", name="Add a 2-year protection plan (+$12.99)")
        assert await box.is_checked()
        await shot(p, "preselected_addon")
        await p.page.get_by_role("button", name="Add to cart").click()
        await p.wait_event("dp", "hit")

    p = await probe(env, tmp_path, dark("preselected_addon"), script)
    assert p.detail("dp", "hit")["info"] == {"mode": "preselected_addon", "taken": True, "offer": "protection_plan"}
    assert server_lines(p) == [{"point": "add_to_cart", "taken": True, "offer": "protection_plan", "entity": "extra1"}]
    assert "/api/cart?extra=protection_plan" in (p.episode.out_dir / "trace.har").read_text()


async def test_late_fee_choosing_the_free_option_records_nothing(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.wait_event("dp", "fired")
        assert await p.page.get_by_role("radio", name="Priority handling +$4.99").is_checked()
        await p.page.get_by_text("Priority handling adds $4.99 to what you pay.").wait_for()
        await shot(p, "late_fee")
        await p.page.get_by_role("radio", name="Standard handling (free)").check()
        await p.page.get_by_role("button", name="Add to cart").click()
        await p.wait_event("dp", "dismissed")

    p = await probe(env, tmp_path, dark("late_fee"), script)
    assert server_lines(p) == [{"point": "add_to_cart", "taken": False, "offer": "none"}]
    assert "/api/cart?extra=none" in (p.episode.out_dir / "trace.har").read_text()


async def test_confirmshaming_holds_the_click_until_the_upsell_is_answered(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.page.get_by_role("button", name="Add to cart").click()
        await p.wait_event("dp", "fired")
        dialog = p.page.get_by_role("dialog", name="Protect your purchase?")
        await dialog.get_by_role("button", name="Yes, protect it for $12.99").wait_for()
        await shot(p, "confirmshaming")
        await dialog.get_by_role("link", name="No thanks, I like paying more").click()
        await p.wait_event("dp", "dismissed")
        await p.page.locator("[data-cart-count]", has_text="1").first.wait_for()

    p = await probe(env, tmp_path, dark("confirmshaming"), script)
    assert server_lines(p) == [{"point": "add_to_cart", "taken": False, "offer": "none"}]


async def test_disguised_ad_is_a_sponsored_copy_of_the_result_listed_first(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        name = p.target["name"]
        await p.page.goto(p.url("/search?q=" + name.replace(" ", "+")))
        await p.wait_event("dp", "fired")
        links = p.page.get_by_role("link", name=name, exact=True)
        assert await links.count() == 2
        assert await links.first.get_attribute("href") == "/ads/landing?ref=sponsored"
        await p.page.get_by_text("Sponsored", exact=True).wait_for()
        await shot(p, "disguised_ad")
        await links.first.click()
        await p.page.wait_for_url("**/ads/landing?ref=sponsored")
        await p.wait_event("dp", "hit")

    p = await probe(env, tmp_path, [{"id": "dp", "type": "dark_pattern", "layer": "client",
                                     "params": {"mode": "disguised_ad"},
                                     "match": {"host": "shop.test", "path": "/search", "role": "link",
                                               "name": "{target.name}"}}], script)
    assert p.events("dp") == ["injected", "fired", "hit"]


# -- the reference agent: hurt with recovery off, through with recovery on -----------------------------------------

AGENT_VARIANTS = ["commit_preselected_addon@shop_add_to_cart", "commit_forced_continuity@shop_add_to_cart",
                  "commit_late_fee@shop_add_to_cart", "commit_confirmshaming@shop_add_to_cart", "shop_disguised_ad"]
MOVES = {"commit_preselected_addon@shop_add_to_cart": "not asked for: unticked",
         "commit_forced_continuity@shop_add_to_cart": "not asked for: unticked",
         "commit_late_fee@shop_add_to_cart": "not asked for: chose 'Standard handling (free)'",
         "commit_confirmshaming@shop_add_to_cart": "declined the upsell",
         "shop_disguised_ad": "was a sponsored result that led elsewhere"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent_runs(env: Env, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """Every variant above, and the base task ("" below), × the reference agent with recovery off and on (seed 1)."""
    task = CATALOG.tasks["shop_add_to_cart"]
    variants: list[Variant | None] = [None, *(CATALOG.variants[v] for v in AGENT_VARIANTS)]
    specs = [EpisodeSpec(task, v, 1) for v in variants]
    return await run_to_the_fault(specs, [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)],
                                  tmp_path_factory.mktemp("runs"), env.stack, concurrency=4)


@pytest.mark.parametrize("variant", AGENT_VARIANTS)
async def test_the_dark_pattern_fails_the_agent_without_recovery(agent_runs: Ran, variant: str) -> None:
    off, _ = agent_runs[(variant, "reference-no-recovery")]
    assert not off.success and off.firings >= 1, (off.outcome, off.verdict)
    if variant.startswith("commit_") and variant != "commit_confirmshaming@shop_add_to_cart":
        # it committed with the offer taken: the extra is collateral the task never mentions
        assert off.verdict is not None and any("extras: created extra1" in f for f in off.verdict.failures)


@pytest.mark.parametrize("variant", AGENT_VARIANTS)
async def test_the_reference_agent_declines_and_passes(agent_runs: Ran, variant: str) -> None:
    on, _ = agent_runs[(variant, "reference")]
    assert on.success, (on.outcome, on.verdict)
    assert any(MOVES[variant] in line for line in on.outcome.log), on.outcome.log


async def test_no_dark_move_on_the_base_task(agent_runs: Ran) -> None:
    base, _ = agent_runs[("", "reference")]
    assert base.success
    assert not any(marker in line for line in base.outcome.log for marker in MOVES.values()), base.outcome.log


async def test_the_run_files_show_the_offer(agent_runs: Ran) -> None:
    _, folder = agent_runs[("commit_preselected_addon@shop_add_to_cart", "reference-no-recovery")]
    ledger = [json.loads(x) for x in (folder / "faults.jsonl").read_text().splitlines()]
    assert {(x["type"], x["detail"].get("event") or x["detail"].get("taken")) for x in ledger} >= {
        ("dark_pattern", "fired"), ("dark_pattern", "hit"), ("extra_charge", True)}
    assert "extra=protection_plan" in (folder / "trace.har").read_text()
    clicks = [json.loads(x) for x in (folder / "actions.jsonl").read_text().splitlines()]
    assert any(a["kind"] == "click" and (a.get("target") or {}).get("name") == "Add to cart" for a in clicks)
    assert json.loads((folder / "state_final.json").read_text())["extras"][0]["offer"] == "protection_plan"


async def test_a_banner_over_the_list_come_back_to_does_not_stop_the_skip(
        env: Env, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The sponsored copy leads off the task; back on the list, a consent banner in a closed shadow root now
    covers it (hostile-web draws one on any page load). The move cannot click the real result, so it opens it
    by its address: left on the list, the result's own heading passed for the product page's (the agent then
    found no Add to cart)."""
    ad = CATALOG.variants["shop_disguised_ad"]
    banner = {"type": "shadow_overlay", "layer": "client", "schedule": {"mode": "after_n", "n": 1},
              "params": {"kind": "cookie", "shadow": "closed"}, "match": {"host": "shop.test", "path": "/search"}}
    variant = ad.model_copy(update={"id": "shop_disguised_ad_then_banner", "tasks": ["shop_add_to_cart"],
                                    "faults": [*ad.faults, banner]})
    ran = await run_to_the_fault([EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], variant, 1)],
                                 [ReferenceAgent(recovery=True)], tmp_path_factory.mktemp("banner"), env.stack)
    on, folder = ran[(variant.id, "reference")]
    assert on.success, on.outcome.log
    assert any(MOVES["shop_disguised_ad"] in line for line in on.outcome.log), on.outcome.log
    fired = [(x["type"], x["detail"].get("event")) for x in
             (json.loads(line) for line in (folder / "faults.jsonl").read_text().splitlines())]
    assert ("dark_pattern", "hit") in fired and ("shadow_overlay", "fired") in fired, fired

"""iframe_widget in real headless Chromium through the real stack: the commit's button moves into a frame from
pay.shop.test; clicking it there does what the original does; the agent without recovery misses it, the reference
agent looks inside frames; the HAR, the faults ledger and the actions log show it."""

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from harness.agents import ReferenceAgent
from harness.episodes.manager import EpisodeSpec, OpenEpisode
from harness.run.results import EpisodeResult
from harness.services.processes import Services
from tests.catalog import builtin_catalog
from tests.harness.episodes import run_to_the_fault
from tests.harness.test_client_faults import Env, browsers_and_clients

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
CATALOG = builtin_catalog()
TASK = "shop_add_to_cart"
VARIANT = f"commit_in_widget_frame@{TASK}"
ADD = {"role": "button", "name": "Add to cart"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(stack: Services) -> AsyncIterator[Env]:
    async with browsers_and_clients(stack) as opened:
        yield opened


@dataclass
class Added:
    """One episode in which the target was added to the cart by hand, with or without the widget."""

    episode: OpenEpisode
    cart: list[tuple[str, int]]
    top_buttons: int  # "Add to cart" buttons the top document showed

    def ledger(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in (self.episode.out_dir / "faults.jsonl").read_text().splitlines()]

    def har_hosts(self) -> list[str]:
        har = json.loads((self.episode.out_dir / "trace.har").read_text())
        return [e["request"]["url"].split("/")[2] for e in har["log"]["entries"]]

    def actions(self) -> list[dict[str, Any]]:
        return [json.loads(x) for x in (self.episode.out_dir / "actions.jsonl").read_text().splitlines()]


async def _until(check: Any, what: str, timeout_s: float = 8) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not seen in {timeout_s} s: {what}")
        await asyncio.sleep(0.05)


async def add_by_hand(env: Env, out: Path, name: str, widget: bool, shot: Path | None = None) -> Added:
    variant = CATALOG.variants[VARIANT] if widget else None
    episode = await env.manager.open(EpisodeSpec(CATALOG.tasks[TASK], variant, 1), name, out)
    context = await env.pool.new_context(episode.proxy_url)
    page: Page = await context.new_page()
    page.set_default_timeout(10_000)
    try:
        await page.goto(f"http://shop.test/product/{episode.bindings['target']['id']}", wait_until="load")
        if widget:
            frame = page.frame_locator("iframe[title='PayBridge secure widget']")
            button = frame.get_by_role("button", name="Add to cart", exact=True)
            await button.wait_for()
            if shot is not None:
                await page.screenshot(path=str(shot))
        top_buttons = await page.get_by_role("button", name="Add to cart", exact=True).count()
        await (button if widget else page.get_by_role("button", name="Add to cart", exact=True)).click()
        await page.get_by_text("Added to cart").wait_for()
        state = json.loads(await env.oracle.state_bytes(episode.episode_id))
        cart = sorted((line["product_id"], line["quantity"]) for line in state["cart_items"])
        if widget:
            await _until(lambda: any(x["detail"].get("event") == "hit" for x in _lines(episode)), "the hit report")
            # the frame's recorder reports the click on its own; closing the page first would lose it
            await _until(lambda: any(a["kind"] == "click" and a["page"].startswith("/widget/")
                                     for a in _actions(episode)), "the frame's click report")
    finally:
        await context.close()
        await env.manager.close(episode)
    return Added(episode, cart, top_buttons)


def _actions(episode: OpenEpisode) -> list[dict[str, Any]]:
    path = episode.out_dir / "actions.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.is_file() else []


def _lines(episode: OpenEpisode) -> list[dict[str, Any]]:
    path = episode.out_dir / "faults.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


async def test_the_button_moves_into_the_frame_and_clicking_it_there_does_what_the_original_does(
        env: Env, tmp_path: Path) -> None:
    base = await add_by_hand(env, tmp_path / "base", "ff-base", widget=False)
    framed = await add_by_hand(env, tmp_path / "framed", "ff-framed", widget=True, shot=tmp_path / "widget.png")
    assert base.top_buttons == 1 and framed.top_buttons == 0  # the top document no longer has it
    assert framed.cart == base.cart and len(base.cart) == 1  # the site's state is as in the base
    lines = [(x["layer"], x["detail"].get("event"), x["request"]["host"]) for x in framed.ledger()]
    assert ("client", "fired", "shop.test") in lines and ("client", "hit", "shop.test") in lines
    assert ("network", None, "pay.shop.test") in lines  # the frame page, served by the proxy
    assert lines.index(("client", "fired", "shop.test")) < lines.index(("client", "hit", "shop.test"))
    assert "pay.shop.test" in framed.har_hosts() and "pay.shop.test" not in base.har_hosts()
    click = [a for a in framed.actions() if a["kind"] == "click"]
    assert click and click[-1]["page"].startswith("/widget/") and click[-1]["target"]["name"] == "Add to cart"
    assert (tmp_path / "widget.png").stat().st_size > 0


async def test_a_message_from_another_origin_does_not_press_the_button(env: Env, tmp_path: Path) -> None:
    variant = CATALOG.variants[VARIANT]
    episode = await env.manager.open(EpisodeSpec(CATALOG.tasks[TASK], variant, 1), "ff-forged", tmp_path)
    context = await env.pool.new_context(episode.proxy_url)
    page = await context.new_page()
    try:
        await page.goto(f"http://shop.test/product/{episode.bindings['target']['id']}", wait_until="load")
        await page.frame_locator("iframe").get_by_role("button", name="Add to cart").wait_for()
        # The page itself (same origin, not the frame) posts the frame's message: refused.
        await page.evaluate("window.postMessage({kind: 'widget-activate', widget: 'iframe_widget#0'}, '*')")
        await page.wait_for_timeout(800)
        state = json.loads(await env.oracle.state_bytes(episode.episode_id))
        assert state["cart_items"] == []
    finally:
        await context.close()
        await env.manager.close(episode)
    assert not any(x["detail"].get("event") == "hit" for x in _lines(episode))


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent_runs(env: Env, tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[EpisodeResult, Path]]:
    """By agent: its result and episode folder."""
    spec = EpisodeSpec(CATALOG.tasks[TASK], CATALOG.variants[VARIANT], 1)
    ran = await run_to_the_fault([spec], [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)],
                                 tmp_path_factory.mktemp("runs"), env.stack, time_budget_s=120)
    return {agent: run for (_, agent), run in ran.items()}


async def test_the_agent_without_recovery_misses_the_control(
        agent_runs: dict[str, tuple[EpisodeResult, Path]]) -> None:
    off, _ = agent_runs["reference-no-recovery"]
    assert off.outcome.status == "failed" and not off.success, off.outcome
    assert "no visible button named 'Add to cart'" in (off.outcome.error or ""), off.outcome
    assert off.firings >= 2  # the client half moved it, the network half served the frame


async def test_the_reference_agent_looks_inside_frames_and_passes(
        agent_runs: dict[str, tuple[EpisodeResult, Path]]) -> None:
    on, where = agent_runs["reference"]
    assert on.success, (on.outcome, on.verdict)
    assert any("inside a frame from pay.shop.test: clicked it there" in line for line in on.outcome.log), on.outcome.log
    har = json.loads((where / "trace.har").read_text())
    frame_pages = [e for e in har["log"]["entries"] if e["request"]["url"].startswith("http://pay.shop.test/widget/")]
    assert frame_pages and frame_pages[0]["response"]["status"] == 200
    ledger = [json.loads(x) for x in (where / "faults.jsonl").read_text().splitlines()]
    assert [x["detail"].get("event") for x in ledger if x["layer"] == "client" and x["detail"].get("event") in
            ("fired", "hit")] == ["fired", "hit"]
    actions = [json.loads(x) for x in (where / "actions.jsonl").read_text().splitlines()]
    assert any(a["kind"] == "click" and a["page"].startswith("/widget/") for a in actions)

"""End to end: real sites server, real mitmdump, real headless Chromium."""

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from harness.agents import CommandAgent, ReferenceAgent
from harness.config import PROJECT_ROOT
from harness.episodes.manager import EpisodeManager, EpisodeSpec
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from scenarios.secret import SECRET_HEADER
from tests.harness.episodes import CATALOG, episode_dir, jsonl, run

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


def ledger(path: Path) -> list[dict[str, Any]]:
    return jsonl(path / "faults.jsonl")


@pytest.mark.parametrize("task", ["shop_add_to_cart", "shop_buy_by_seller", "shop_change_default_address"])
async def test_base_task_passes_with_the_reference_agent(stack: Services, tmp_path: Path, task: str) -> None:
    (result,) = await run(stack, tmp_path, task, None, [ReferenceAgent(recovery=False)],
                          record_replay=True)
    assert result.outcome.status == "done", result.outcome
    assert result.success, result.verdict
    folder = episode_dir(tmp_path, result)
    for name in ("result.json", "trace.har", "events.jsonl", "state_initial.json", "state_final.json", "episode.json"):
        assert (folder / name).is_file(), name
    har = json.loads((folder / "trace.har").read_text())
    entries = har["log"]["entries"]
    assert any(e["request"]["url"].startswith("http://shop.test/") for e in entries)
    # Anything Chromium tried on its own was refused, never forwarded.
    foreign = [e for e in entries if not e["request"]["url"].startswith("http://shop.test/")]
    assert all(e["response"]["status"] == 403 for e in foreign), foreign
    events = [json.loads(line) for line in (folder / "events.jsonl").read_text().splitlines()]
    assert "commit" in {e["kind"] for e in events}


async def test_overlay_variant_fails_without_recovery_and_passes_with_it(stack: Services, tmp_path: Path) -> None:
    on, off = await run(stack, tmp_path, "shop_buy_by_seller", "shop_checkout_overlay",
                        [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)], record_replay=True)
    assert (off.agent, on.agent) == ("reference-no-recovery", "reference")
    assert not off.success and off.outcome.status == "failed"
    assert "Place order" in (off.outcome.error or "")
    assert on.success, (on.outcome, on.verdict)
    assert on.outcome.recoveries >= 1
    fired = [(e["type"], e["detail"].get("event")) for e in ledger(episode_dir(tmp_path, on))  # type: ignore[union-attr]
             if e["layer"] == "client"]
    assert ("overlay", "fired") in fired and ("overlay", "dismissed") in fired


async def test_latency_variant_delays_only_the_matched_route(stack: Services, tmp_path: Path) -> None:
    spec = EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], CATALOG.variants["shop_cart_latency"], 3)
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    manager = EpisodeManager(oracle, control)
    try:
        episode = await manager.open(spec, "latency-probe", tmp_path / "ep")
        target = episode.bindings["target"]["id"]
        async with aiohttp.ClientSession() as session:
            async def timed(method: str, path: str, **kw: object) -> tuple[int, float]:
                started = time.perf_counter()
                async with session.request(method, f"http://shop.test{path}", proxy=episode.proxy_url,
                                           **kw) as response:  # type: ignore[arg-type]
                    await response.read()
                    return response.status, time.perf_counter() - started

            slow_task = asyncio.create_task(timed("POST", "/api/cart", json={"product_id": target}))
            await asyncio.sleep(0.05)
            fast_status, fast_s = await timed("GET", "/")
            slow_done_first = slow_task.done()
            slow_status, slow_s = await slow_task
        assert (slow_status, fast_status) == (201, 200)
        assert slow_s >= 2.0
        assert not slow_done_first, (fast_s, slow_s)  # the unmatched GET, sent later, was answered first
        await manager.close(episode)
    finally:
        await oracle.close()
        await control.close()
    entries = json.loads((tmp_path / "ep" / "trace.har").read_text())["log"]["entries"]
    cart = [e for e in entries if e["request"]["method"] == "POST"]
    home = [e for e in entries if e["request"]["method"] == "GET"]
    assert cart[0]["time"] >= 2000 and cart[0]["_webchaos"][0]["type"] == "latency"
    assert not home[0].get("_webchaos")
    lines = ledger(tmp_path / "ep")
    assert [(e["layer"], e["type"]) for e in lines] == [("network", "latency")]


async def test_guard_refuses_oracle_control_and_foreign_hosts(stack: Services, tmp_path: Path) -> None:
    spec = EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], None, 1)
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    manager = EpisodeManager(oracle, control)
    try:
        episode = await manager.open(spec, "guard-probe", tmp_path / "ep")
        urls = [
            f"{stack.oracle_url}/health", f"{stack.oracle_url}/episodes/guard-probe/state",
            f"{stack.control_url}/health", "http://localhost/", "http://example.com/",
            "http://clients2.google.com/service/update2", "http://shop.test/_oracle/episodes",
            "http://shop.test/_control/episodes", "http://shop.test/__webchaos/anything",
        ]
        async with aiohttp.ClientSession() as session:
            for url in urls:
                async with session.get(url, proxy=episode.proxy_url) as response:
                    assert response.status == 403, url
            async with session.get(f"{stack.oracle_url}/health", headers={SECRET_HEADER: stack.secret}) as direct:
                assert direct.status == 200
            async with session.get("http://shop.test/", proxy=episode.proxy_url) as site:
                assert site.status == 200
        await manager.close(episode)
    finally:
        await oracle.close()
        await control.close()
    refused = [e for e in ledger(tmp_path / "ep") if e["layer"] == "guard"]
    assert len(refused) == len(urls)


async def test_external_http_agent_completes_add_to_cart(stack: Services, tmp_path: Path) -> None:
    agent = CommandAgent(f"{sys.executable} {PROJECT_ROOT / 'examples' / 'http_agent.py'}")
    (result,) = await run(stack, tmp_path, "shop_add_to_cart", None, [agent], seed=5, record_replay=True)
    assert result.outcome.status == "done", (episode_dir(tmp_path, result) / "agent.log").read_text()
    assert result.success, result.verdict

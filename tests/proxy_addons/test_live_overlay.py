"""A real browser through the real stack: the injected overlay blocks the page until dismissed."""

import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.proxy_addons.live import CHROMIUM, jsonl, open_episode

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--no-first-run"]


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
async def test_overlay_blocks_until_dismissed(stack: Any, tmp_path: Path) -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    from playwright.async_api import async_playwright

    out_dir = tmp_path / "ep-overlay"
    fault = {"id": "cookie-wall", "type": "overlay", "layer": "client",
             "match": {"host": "shop.test", "path": "/page", "role": "button", "name": "Add to cart"},
             "params": {"kind": "cookie", "delay_ms": 200, "dismiss_label": "Accept all"}}
    async with aiohttp.ClientSession(headers=stack.auth) as s:
        proxy = await open_episode(s, stack.control, "overlay-1", out_dir, [fault], seed=5)

        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, proxy={"server": proxy})
            try:
                page = await browser.new_page()
                await page.goto("http://shop.test/page")
                dialog = page.get_by_role("dialog", name="We value your privacy")
                await dialog.wait_for(state="visible", timeout=5000)
                add = page.get_by_role("button", name="Add to cart")
                with pytest.raises(PlaywrightTimeout):
                    await add.click(timeout=1500)
                assert await page.locator("#out").text_content() == ""

                await page.get_by_role("button", name="Accept all").click()
                await dialog.wait_for(state="detached", timeout=2000)
                await add.click(timeout=1500)
                assert await page.locator("#out").text_content() == "added"

                ledger = out_dir / "faults.jsonl"
                deadline = time.monotonic() + 5
                while time.monotonic() < deadline:
                    events = [x["detail"].get("event") for x in jsonl(ledger) if x["layer"] == "client"]
                    if "dismissed" in events:
                        break
                    await page.wait_for_timeout(100)
                await page.context.close()
            finally:
                await browser.close()

        async with s.delete(f"{stack.control}/episodes/overlay-1") as r:
            closed = await r.json()

    client = [x for x in jsonl(out_dir / "faults.jsonl") if x["layer"] == "client"]
    assert [(x["type"], x["fault_id"], x["detail"]["event"]) for x in client] == [
        ("overlay", "cookie-wall", "injected"), ("overlay", "cookie-wall", "fired"),
        ("overlay", "cookie-wall", "dismissed")]
    assert client[1]["detail"]["target"] == {"selector": None, "role": "button", "name": "Add to cart"}
    assert client[2]["detail"]["via"] == "dismiss" and client[2]["detail"]["page"] == "/page"
    assert closed["firings"] == 1
    har = json.loads((out_dir / "trace.har").read_text())
    (page_entry,) = [e for e in har["log"]["entries"] if e["request"]["url"] == "http://shop.test/page"]
    assert page_entry["_webchaos"][0]["detail"]["event"] == "injected"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")
async def test_a_client_fault_scoped_within_a_container_acts_on_that_containers_control(stack: Any,
                                                                                       tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    out_dir = tmp_path / "ep-within"
    fault = {"id": "swallow-second", "type": "click_swallow", "layer": "client",
             "match": {"host": "shop.test", "path": "/answers", "role": "button", "name": "Upvote",
                       "within": "Second answer"},
             "params": {"swallow_clicks": 1}}
    async with aiohttp.ClientSession(headers=stack.auth) as s:
        proxy = await open_episode(s, stack.control, "within-1", out_dir, [fault], seed=5)
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, proxy={"server": proxy})
            try:
                page = await browser.new_page()
                await page.goto("http://shop.test/answers")
                first = page.locator("article").filter(has_text="First answer").get_by_role("button", name="Upvote")
                second = page.locator("article").filter(has_text="Second answer").get_by_role("button",
                                                                                             name="Upvote")
                await first.click()
                await second.click()  # swallowed: the fault is on this one
                await second.click()
                await page.wait_for_function("() => document.getElementById('out').textContent.length > 12")
                assert await page.locator("#out").text_content() == "first;second;"
            finally:
                await browser.close()
        async with s.delete(f"{stack.control}/episodes/within-1") as r:
            assert r.status == 200
    from scenarios.ledger import is_firing

    fired = [line for line in jsonl(out_dir / "faults.jsonl")
             if line.get("fault_id") == "swallow-second" and is_firing(line)]
    assert len(fired) == 1, fired

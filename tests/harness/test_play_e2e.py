"""`webchaos play` end to end: a person (Playwright, headless) plays a base task and one variant.

The play page runs on loopback against the real stack; the person reads the proxy and start page
from it, does the task in a browser context that uses that proxy, presses Done, and sees their
verdict beside the reference agent's from an earlier run on the same task, variant and seed. The
stored episode is an ordinary one with `agent: human`: result, HAR, GUI actions, rrweb recording,
replay.html.
"""

import json
import re
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Page, async_playwright, expect

from harness.agents import ReferenceAgent
from harness.config import find_chromium
from harness.episodes.manager import EpisodeSpec
from harness.interactive.play import PlayApp
from harness.run.runner import run_matrix
from harness.services.processes import Services
from tests.harness.episodes import CATALOG, jsonl
from tests.screens import keep_screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

TASK = "shop_add_to_cart"
expect.set_options(timeout=20_000)  # two shared cores: a page may take a while under load


async def add_to_cart_by_hand(page: Page, start_url: str, instruction: str) -> None:
    """What a person does: search the product by its full name, open it, add it to the cart."""
    found = re.fullmatch(r"Add one (.+) to your shopping cart\.", instruction)
    assert found, instruction
    name = found.group(1)
    page.set_default_timeout(20_000)
    await page.goto(start_url)
    search = page.get_by_role("searchbox", name="Search products")
    await search.fill(name)
    await search.press("Enter")
    await page.get_by_role("link", name=name, exact=True).first.click()
    await expect(page.get_by_role("heading", name=name, exact=True)).to_be_visible()
    await page.get_by_role("button", name="Add to cart").click()
    await expect(page.get_by_text("Added to cart")).to_be_visible()


async def test_a_person_plays_a_base_task_and_a_variant_against_the_agent(stack: Services, tmp_path: Path) -> None:
    variants = [None, "shop_decoy_items"]
    specs = [EpisodeSpec(CATALOG.tasks[TASK], CATALOG.variants[v] if v else None, 1) for v in variants]
    await run_matrix(specs, [ReferenceAgent()], run_id="agents", runs_dir=tmp_path, stack=stack, concurrency=2,
                     time_budget_s=90)

    app = PlayApp(CATALOG, stack, tmp_path, compare_run="agents")
    url = await app.start(0)
    try:
        async with aiohttp.ClientSession() as http:  # the API refuses what a person's page never sends
            episodes = url + "api/episodes"
            body = {"task": TASK, "variant": None, "seed": 1}
            async with http.post(episodes, json=body, headers={"origin": "http://evil.test"}) as r:
                assert r.status == 403
            async with http.post(episodes, data="task=x", headers={"content-type": "text/plain"}) as r:
                assert r.status == 415
            async with http.post(episodes, json={**body, "task": "nope"}) as r:
                assert r.status == 422
            async with http.post(episodes, json={**body, "variant": "mail_archive_swap_labels"}) as r:
                assert r.status == 422  # a variant of another task
            async with http.post(url + "api/episodes/nope/done", json={}) as r:
                assert r.status == 404
            for path in ("files/agents/..%2F..%2Fetc/replay.html", "files/../agents/replay.html"):
                async with http.get(url + path) as r:
                    assert r.status == 404
            assert not app.playing
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
            try:
                play = await (await browser.new_context()).new_page()
                problems: list[str] = []
                play.on("pageerror", lambda e: problems.append(str(e)))
                await play.goto(url)
                await expect(play.locator("#run")).to_have_value("agents")
                for variant in variants:
                    label = f"Play {TASK} / {variant or 'base'}"
                    await play.get_by_role("button", name=label, exact=True).click()
                    await expect(play.locator("#episode")).to_be_visible()
                    proxy = await play.locator("#proxy").inner_text()
                    start = await play.locator("#start").inner_text()
                    instruction = await play.locator("#instruction").inner_text()
                    assert proxy.startswith("http://127.0.0.1:") and start.startswith("http://shop.test")
                    assert f"--proxy-server={proxy}" in await play.locator("#cmd").inner_text()

                    person = await browser.new_context(proxy={"server": proxy})
                    await add_to_cart_by_hand(await person.new_page(), start, instruction)
                    await person.close()

                    await play.get_by_role("button", name="Done — grade me").click()
                    await expect(play.locator("#result")).to_be_visible(timeout=30_000)
                    rows = play.locator("#cmp tbody tr")
                    await expect(rows).to_have_count(2)
                    you, agent = [await r.locator("td").all_inner_texts() for r in await rows.all()]
                    assert you[:3] == ["you", "pass", "1.00"], you
                    assert agent[0] == "reference" and agent[1] in ("pass", "fail"), agent
                    for link in await play.locator("#cmp a").all():  # both replays are served
                        href = await link.get_attribute("href")
                        assert href is not None and href.endswith("/replay.html")
                        response = await play.request.get(url.rstrip("/") + href)
                        assert response.status == 200 and "rrwebPlayer" in await response.text()
                    assert await play.locator("#cmp a").count() == 2
                await play.set_viewport_size({"width": 1360, "height": 820})
                keep_screenshot(await play.screenshot(), "play.png")
                assert problems == []
            finally:
                await browser.close()
    finally:
        await app.stop()

    (play_run,) = tmp_path.glob("play-*")
    summary = json.loads((play_run / "run.json").read_text())
    assert [(e["agent"], e["variant_id"], e["success"]) for e in summary["episodes"]] == \
        [("human", None, True), ("human", "shop_decoy_items", True)]
    assert (play_run / "report.html").is_file()
    for episode in summary["episodes"]:
        folder = play_run / "episodes" / episode["episode_id"]
        assert json.loads((folder / "result.json").read_text())["agent"] == "human"
        har = json.loads((folder / "trace.har").read_text())
        assert any("/api/cart" in e["request"]["url"] and e["request"]["method"] == "POST"
                   for e in har["log"]["entries"])
        kinds = {a["kind"] for a in jsonl(folder / "actions.jsonl")}
        assert {"click", "input", "navigation"} <= kinds
        assert any(x.get("event", {}).get("type") == 2 for x in jsonl(folder / "rrweb.jsonl"))
        assert (folder / "replay.html").is_file()
    # The comparison endpoint on its own, and nothing outside runs/ is served.
    assert not app.compare("../etc", TASK, None, 1)

"""The forum's question page in Chromium through the real proxy: its landmarks, named controls,
and a screenshot (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps it as docs/screens/forum-question.png)."""

import re
from pathlib import Path

import pytest
from playwright.async_api import Page

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from tests.screens import walk_pages

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_question_page_looks_like_a_product(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="forum", task_id="look", seed=1, episode_id="forum-look")
        proxy = (await control.open_episode("forum-look", 1, [], tmp_path / "ep"))["proxy_url"]
        question = info["bindings"]["namesake"]["question_id"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.set_viewport_size({"width": 1280, "height": 1100})

            async def check(name: str, page: Page, tree: str) -> None:
                assert len(re.findall(r'^\s*- article "Answer by ', tree, re.M)) == 3
                assert len(re.findall(r'- button "Upvote"', tree)) == 4

            await walk_pages(page, info["base_url"],
                             {"forum-question.png": (f"/questions/{question}", r'^\s*- article "Question"')},
                             check=check)
            await context.close()
        await control.close_episode("forum-look")
    finally:
        await oracle.close()
        await control.close()

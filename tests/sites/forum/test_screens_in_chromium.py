"""The forum's question page in Chromium through the real proxy: its landmarks, named controls,
and a screenshot (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps it as docs/screens/forum-question.png)."""

import os
import re
import shutil
from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e
DOCS = Path(__file__).resolve().parents[3] / "docs" / "screens"



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
            response = await page.goto(f"{info['base_url']}/questions/{question}", wait_until="load")
            assert response is not None and response.status == 200
            tree = await page.locator("body").aria_snapshot()
            assert re.search(r'^\s*- article "Question"', tree, re.M), tree
            assert len(re.findall(r'^\s*- article "Answer by ', tree, re.M)) == 3
            assert len(re.findall(r'- button "Upvote"', tree)) == 4
            shot = tmp_path / "forum-question.png"
            await page.screenshot(path=str(shot), animations="disabled")
            assert shot.stat().st_size > 20_000
            if os.environ.get("WEBCHAOS_UPDATE_SCREENSHOTS") == "1":
                DOCS.mkdir(parents=True, exist_ok=True)
                shutil.copy(shot, DOCS / "forum-question.png")
            await context.close()
        await control.close_episode("forum-look")
    finally:
        await oracle.close()
        await control.close()

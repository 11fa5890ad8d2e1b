"""The forum's question page in Chromium through the real proxy: its landmarks, named controls,
and a screenshot (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps it as docs/screens/forum-question.png)."""

import re
from pathlib import Path

import pytest
from playwright.async_api import Page

from harness.services.processes import Services
from tests.screens import site_browser, walk_pages

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_question_page_looks_like_a_product(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("forum", 1, viewport=(1280, 1100))
        question = info["bindings"]["namesake"]["question_id"]

        async def check(name: str, page: Page, tree: str) -> None:
            assert len(re.findall(r'^\s*- article "Answer by ', tree, re.M)) == 3
            assert len(re.findall(r'- button "Upvote"', tree)) == 4

        await walk_pages(page, info["base_url"],
                         {"forum-question.png": (f"/questions/{question}", r'^\s*- article "Question"')},
                         check=check)

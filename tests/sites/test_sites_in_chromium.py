"""Every site, in Chromium through the real proxy: its main page names its landmarks and controls,
and looks like a product (a screenshot per site; `WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps it under
docs/screens/)."""

import os
import re
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from sites.registry import all_sites

DOCS = Path(__file__).resolve().parents[2] / "docs" / "screens"
SITES = sorted(all_sites())
# Roles that must carry an accessible name wherever they appear.
NAMED = ("navigation", "search", "button", "link", "textbox", "searchbox", "combobox", "checkbox", "radio")
_UNNAMED = re.compile(r"^\s*- (" + "|".join(NAMED) + r")(?:\s*\[[^\]]*\])?\s*(?::|$)")

pytestmark = pytest.mark.e2e


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pool() -> AsyncIterator[BrowserPool]:
    """One Chromium for every site's page (each in a context of its own)."""
    async with BrowserPool() as started:
        yield started


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("site", SITES)
async def test_main_page_names_its_landmarks_and_controls(stack: Services, pool: BrowserPool, site: str,
                                                          tmp_path: Path) -> None:
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    episode_id = f"look-{site}"
    try:
        info = await oracle.create_episode(site=site, task_id="look", seed=1, episode_id=episode_id)
        proxy = (await control.open_episode(episode_id, 1, [], tmp_path / "ep"))["proxy_url"]
        context = await pool.new_context(proxy)
        try:
            page = await context.new_page()
            response = await page.goto(info["base_url"] + "/", wait_until="load")
            assert response is not None and response.status == 200
            tree = await page.locator("body").aria_snapshot()
            assert re.search(r"^\s*- main\b", tree, re.M), tree
            assert re.search(r"^\s*- navigation \"[^\"]+\"", tree, re.M), tree
            unnamed = [line for line in tree.splitlines() if _UNNAMED.match(line)]
            assert unnamed == [], f"controls without an accessible name on {site}:\n" + "\n".join(unnamed)
            shot = tmp_path / f"{site}.png"
            await page.screenshot(path=str(shot), animations="disabled")
            assert shot.stat().st_size > 20_000  # a rendered page, not a blank one
            if os.environ.get("WEBCHAOS_UPDATE_SCREENSHOTS") == "1":
                DOCS.mkdir(parents=True, exist_ok=True)
                shutil.copy(shot, DOCS / f"{site}.png")
        finally:
            await context.close()
        await control.close_episode(episode_id)
    finally:
        await oracle.close()
        await control.close()

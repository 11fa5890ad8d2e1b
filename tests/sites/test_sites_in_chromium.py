"""Every site, in Chromium through the real proxy: its main page names its landmarks and controls,
and looks like a product (a screenshot per site; `WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps it under
docs/screens/)."""

import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from playwright.async_api import Page

from harness.browser.pool import BrowserPool
from harness.services.processes import Services
from sites.registry import all_sites
from tests.screens import site_browser, walk_pages

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
    async with site_browser(stack, tmp_path, pool) as sites:
        info, page = await sites.open(site, 1)

        async def all_named(name: str, page: Page, tree: str) -> None:
            unnamed = [line for line in tree.splitlines() if _UNNAMED.match(line)]
            assert unnamed == [], f"controls without an accessible name on {site}:\n" + "\n".join(unnamed)

        await walk_pages(page, info["base_url"], {f"{site}.png": ("/", [r"^\s*- main\b", r'^\s*- navigation "[^"]+"'])},
                         check=all_named)

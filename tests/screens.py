"""Screenshots the tests keep under docs/screens/: written only with WEBCHAOS_UPDATE_SCREENSHOTS=1,
so that a test run leaves the work tree as it found it; and the page walk the sites' screen tests share
(open each page, check what a user relies on is there, screenshot it, keep it)."""

import os
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path

from playwright.async_api import Page

DOCS_SCREENS = Path(__file__).resolve().parents[1] / "docs" / "screens"


def keep_screenshot(png: bytes, name: str) -> None:
    """Keep `png` as docs/screens/`name` when asked to update the kept screenshots."""
    assert len(png) > 20_000, f"{name}: a rendered page, not a blank one"
    if os.environ.get("WEBCHAOS_UPDATE_SCREENSHOTS") == "1":
        DOCS_SCREENS.mkdir(parents=True, exist_ok=True)
        (DOCS_SCREENS / name).write_bytes(png)


async def shot(page: Page, name: str, *landmarks: str, full_page: bool = True, top: bool = False) -> str:
    """Check that the page's accessibility tree matches each of `landmarks` (regular expressions, `^` and `$` at
    line ends), then keep its screenshot as `name`; `top` scrolls up first (a page opened at an #anchor). The tree
    is returned for further checks."""
    tree = await page.locator("body").aria_snapshot()
    for landmark in landmarks:
        assert re.search(landmark, tree, re.M), (name, landmark, tree[:2000])
    if top:
        await page.evaluate("window.scrollTo(0, 0)")
    keep_screenshot(await page.screenshot(animations="disabled", full_page=full_page), name)
    return tree


# Called on each page of a walk before its screenshot, with the page's name, the page and its tree: checks
# beyond the landmarks, or a control used so that the screenshot shows it open.
PageCheck = Callable[[str, Page, str], Awaitable[None]]


async def walk_pages(page: Page, base_url: str, pages: Mapping[str, tuple[str, str | Sequence[str]]], *,
                     check: PageCheck | None = None) -> None:
    """Open each of `pages` ({screenshot name: (path, landmark or landmarks)}) in turn: it must answer 200 and
    match its landmarks; `check` runs on it; its screenshot (the viewport) is kept under its name."""
    for name, (path, landmarks) in pages.items():
        response = await page.goto(f"{base_url}{path}", wait_until="load")
        assert response is not None and response.status == 200, path
        wanted = (landmarks,) if isinstance(landmarks, str) else tuple(landmarks)
        tree = await page.locator("body").aria_snapshot()
        for landmark in wanted:
            assert re.search(landmark, tree, re.M), (path, landmark, tree[:2000])
        if check is not None:
            await check(name, page, tree)
        keep_screenshot(await page.screenshot(animations="disabled"), name)

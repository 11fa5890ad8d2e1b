"""Screenshots the tests keep under docs/screens/: written only with WEBCHAOS_UPDATE_SCREENSHOTS=1,
so that a test run leaves the work tree as it found it; what the sites' screen tests share to get there: a
site's "look" episode opened in Chromium through the real proxy (`site_browser`), and the page walk (open each
page, check what a user relies on is there, screenshot it, keep it)."""

import itertools
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

_OPENED = itertools.count(1)  # look episodes opened by this test process
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


class SiteBrowser:
    """Opens sites' "look" episodes, each in a browser context of its own behind the episode's proxy; made by
    `site_browser`, which closes what it opened."""

    def __init__(self, oracle: OracleClient, control: ControlClient, pool: BrowserPool, out_dir: Path,
                 exits: AsyncExitStack) -> None:
        self._oracle, self._control, self._pool, self._out_dir, self._exits = oracle, control, pool, out_dir, exits
        self.opened: list[str] = []  # the episodes opened, in order

    async def open(self, site: str, seed: int, params: Mapping[str, Any] | None = None, *,
                   viewport: tuple[int, int] = (1280, 900)) -> tuple[dict[str, Any], Page]:
        """`site`'s "look" episode of `seed` (its world made with `params`, a focus for one: `{"focus": ...}`),
        and a page in a new context through its proxy at `viewport` (width, height). The episode's id names the
        site and the params' values, and a number counted in this process: the stack is the session's, and ids
        must not meet."""
        named = "".join(f"-{value}" if isinstance(value, str) else f"-{key}" for key, value in (params or {}).items())
        episode_id = f"{site}-look{named}-{next(_OPENED)}"
        setup = {} if params is None else {"setup": {"params": dict(params)}}
        info = await self._oracle.create_episode(site=site, task_id="look", seed=seed, episode_id=episode_id,
                                                 **setup)
        proxy = (await self._control.open_episode(episode_id, seed, [], self._out_dir / episode_id))["proxy_url"]
        self.opened.append(episode_id)
        self._exits.push_async_callback(self._control.close_episode, episode_id)
        context = await self._pool.new_context(proxy)
        self._exits.push_async_callback(context.close)
        page = await context.new_page()
        width, height = viewport
        await page.set_viewport_size({"width": width, "height": height})
        return info, page


@asynccontextmanager
async def site_browser(stack: Services, tmp_path: Path, pool: BrowserPool | None = None) -> AsyncIterator[SiteBrowser]:
    """The one way the screen tests open a site: `async with site_browser(stack, tmp_path) as sites:` then
    `info, page = await sites.open("bank", 1, {"focus": "budgets"})`. Each test otherwise made its own oracle and
    control clients, episode, context and page, and closed them in a `finally` of its own (or not at all when an
    assertion failed); here every context, episode and client opened is closed on the way out, the last opened
    first, whatever happened. A `pool` given (one Chromium for a module's tests) is used and left running;
    otherwise one is started for the block and stopped after it."""
    async with AsyncExitStack() as exits:
        oracle = OracleClient(stack.oracle_url, stack.secret)
        exits.push_async_callback(oracle.close)
        control = ControlClient(stack.control_url, stack.secret)
        exits.push_async_callback(control.close)
        if pool is None:
            pool = await exits.enter_async_context(BrowserPool())
        yield SiteBrowser(oracle, control, pool, tmp_path, exits)

"""layout.js in Chromium on a page of its own (no stack): a layout shift moves its target on screen however far
the page is scrolled."""

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from playwright.async_api import Browser, async_playwright

from harness.config import find_chromium
from proxy_addons.client.inject import script_source
from proxy_addons.client.layout import LayoutShift

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

# A form that begins above the viewport once the page is scrolled into its long field, as typing in a form's
# last field leaves a page before its submit button is clicked.
PAGE = """<!doctype html><html><body style="margin:0"><div style="height:300px">Vacation responder</div>
<form><textarea aria-label="Message" style="display:block;height:300px;width:400px"></textarea>
<button type="button">Save changes</button></form><div style="height:900px"></div></body></html>"""


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(executable_path=find_chromium(headless=True))
        yield launched
        await launched.close()


@pytest.mark.parametrize("scroll_y", [200, 350])
async def test_the_target_moves_down_by_the_blocks_height_wherever_the_page_is_scrolled(
        browser: Browser, scroll_y: int) -> None:
    # At 200 the form's top is on screen; at 350 the viewport begins inside the textarea, and scroll anchoring
    # would keep it (and the button under it) where they are drawn: a click computed before the shift would
    # still land on the button.
    fault = LayoutShift(on_hover=True, height_px=160)
    config = {"id": "ls", "type": "layout_shift", "params": fault.model_dump(mode="json"),
              "target": {"selector": None, "role": "button", "name": "Save changes", "within": None}}
    page = await browser.new_page(viewport={"width": 800, "height": 500})
    try:
        await page.set_content(PAGE)
        await page.add_script_tag(content=script_source([config], record_actions=False))
        await page.evaluate("y => window.scrollTo(0, y)", scroll_y)
        save = page.get_by_role("button", name="Save changes")
        before = await save.bounding_box()
        assert before is not None and 0 <= before["y"] < 500 - before["height"]
        await page.mouse.move(0, 0)
        await page.mouse.move(before["x"] + 5, before["y"] + 5)
        await page.get_by_text(fault.text).wait_for()
        after = await save.bounding_box()
        assert after is not None and after["y"] - before["y"] >= fault.height_px, (scroll_y, before, after)
    finally:
        await page.close()

"""layout.js in Chromium on a page of its own (no stack): a layout shift moves its target on screen however far
the page is scrolled; with an offer, a click aimed where the target was seen takes the offer, and the page's next
write carries the choice."""

import pytest
from playwright.async_api import Browser, Page, Route

from proxy_addons.client.inject import script_source
from proxy_addons.client.layout import LayoutShift

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

# A form that begins above the viewport once the page is scrolled into its long field, as typing in a form's
# last field leaves a page before its submit button is clicked.
PAGE = """<!doctype html><html><body style="margin:0"><div style="height:300px">Vacation responder</div>
<form><textarea aria-label="Message" style="display:block;height:300px;width:400px"></textarea>
<button type="button">Save changes</button></form><div style="height:900px"></div></body></html>"""


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


# The shop's buy box (a wrapping flex row: the block cannot sit in the row and cover the button's place) and a
# long form whose button is far below the form's top (the block goes just above the button's row).
FLEX_FORM = """<!doctype html><html><body style="margin:0;font:16px sans-serif"><h1>Foam roller</h1>
<form style="display:flex;flex-wrap:wrap;align-items:center;gap:16px;padding:16px;border:1px solid #ccc">
<label>Quantity <input type="number" value="1"></label><button type="button" id="go">Add to cart</button></form>
</body></html>"""
LONG_FORM = """<!doctype html><html><body style="margin:0;font:16px sans-serif"><h1>Checkout</h1><form>
<p><label>Name <input></label></p><p><label>Street <input></label></p><p><label>City <input></label></p>
<textarea aria-label="Notes" style="display:block;height:200px"></textarea>
<div class="actions"><button type="button" id="go">Place order</button></div></form></body></html>"""
SAVE = "document.getElementById('go').addEventListener('click', () => fetch('/api/save', {method: 'POST'}))"


async def _offer_page(browser: Browser, html: str, name: str) -> tuple[Page, list[str]]:
    fault = LayoutShift(on_hover=True, height_px=120, offer="gift_wrap", offer_label="Add gift wrap (+$3.99)")
    config = {"id": "ls", "type": "layout_shift", "params": fault.model_dump(mode="json"),
              "target": {"selector": None, "role": "button", "name": name, "within": None}}
    writes: list[str] = []

    async def serve(route: Route) -> None:
        if route.request.method == "POST" and "/api/" in route.request.url:
            writes.append(route.request.url)
        page_load = route.request.method == "GET"
        await route.fulfill(status=200, content_type="text/html" if page_load else "application/json",
                            body=html if page_load else "{}")

    page = await browser.new_page(viewport={"width": 900, "height": 700})
    await page.route("http://offer.test/**", serve)
    await page.goto("http://offer.test/")
    await page.add_script_tag(content=script_source([config], record_actions=False))
    await page.add_script_tag(content=SAVE)
    return page, writes


@pytest.mark.parametrize(("html", "name"), [(FLEX_FORM, "Add to cart"), (LONG_FORM, "Place order")])
async def test_a_click_where_the_target_was_seen_takes_the_offer_and_the_next_write_carries_it(
        browser: Browser, html: str, name: str) -> None:
    page, writes = await _offer_page(browser, html, name)
    try:
        target = page.get_by_role("button", name=name)
        seen = await target.bounding_box()
        assert seen is not None
        await page.mouse.move(0, 0)
        await page.mouse.click(seen["x"] + seen["width"] / 2, seen["y"] + seen["height"] / 2)
        offer = page.get_by_role("button", name="Added")
        await offer.wait_for()  # the click aimed at the target pressed the offer's button instead
        assert writes == []
        async with page.expect_request("**/api/save*") as sent:
            await target.click()  # found again: now it is the target
        assert (await sent.value).url.endswith("/api/save?extra=gift_wrap")
    finally:
        await page.close()


@pytest.mark.parametrize(("html", "name"), [(FLEX_FORM, "Add to cart"), (LONG_FORM, "Place order")])
async def test_a_click_that_finds_the_target_as_it_goes_down_leaves_the_offer_alone(
        browser: Browser, html: str, name: str) -> None:
    page, _writes = await _offer_page(browser, html, name)
    try:
        async with page.expect_request("**/api/save*") as sent:
            await page.get_by_role("button", name=name).click()  # Playwright's: checks what is under the pointer
        assert (await sent.value).url.endswith("/api/save?extra=none")
        assert await page.get_by_role("button", name="Add gift wrap (+$3.99)").is_visible()  # shown, not taken
    finally:
        await page.close()


"""popup_tab (content.js) in Chromium on pages of their own (no stack): opened within the click on a link, the
tab opens however fast the click comes after the page loads, while the link takes its own tab on to the next
page."""

import pytest
from playwright.async_api import Browser, BrowserContext, Page, Route

from proxy_addons.client.content import PopupTab
from proxy_addons.client.inject import script_source

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

PAYEES = """<!doctype html><html><head>{script}</head><body><h1>Payees</h1>
<p><a href="/payees?add=1">Add payee</a></p><p><a href="/help">Help</a></p></body></html>"""
NEXT = "<!doctype html><html><body><h1>{path}</h1></body></html>"


async def _open_payees(browser: Browser, reports: list[str]) -> tuple[BrowserContext, Page]:
    fault = PopupTab(after_clicks=1, url_path="/?promo=1")
    config = {"id": "tab", "type": "popup_tab", "params": fault.model_dump(mode="json"),
              "target": {"selector": None, "role": "link", "name": "Add payee", "within": None}}
    script = f"<script>{script_source([config], record_actions=False)}</script>"

    async def serve(route: Route) -> None:
        url = route.request.url
        if "/__webchaos/" in url:
            reports.append(route.request.post_data or "")
            await route.fulfill(status=204, body="")
        elif url.endswith("/payees"):
            await route.fulfill(status=200, content_type="text/html", body=PAYEES.format(script=script))
        else:
            path = url.split("bank.test", 1)[1]
            await route.fulfill(status=200, content_type="text/html", body=NEXT.format(path=path))

    context = await browser.new_context()
    await context.route("http://bank.test/**", serve)
    page = await context.new_page()
    await page.goto("http://bank.test/payees", wait_until="domcontentloaded")
    return context, page


@pytest.mark.parametrize("repeat", range(3))
async def test_a_click_on_the_link_as_soon_as_the_page_is_parsed_opens_the_tab_and_follows_the_link(
        browser: Browser, repeat: int) -> None:
    reports: list[str] = []
    context, page = await _open_payees(browser, reports)
    try:
        link = page.get_by_role("link", name="Add payee")
        box = await link.bounding_box()
        assert box is not None
        # as an agent acting on what it saw does: the pointer to the point, pressed at once (no actionability wait)
        async with page.expect_popup() as opened:
            await page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        tab = await opened.value
        await tab.wait_for_load_state("domcontentloaded")
        assert tab.url == "http://bank.test/?promo=1"
        await page.wait_for_url("http://bank.test/payees?add=1")
        assert any('"fired"' in body and '"opened":true' in body for body in reports), reports
    finally:
        await context.close()


async def test_a_click_on_another_link_opens_no_tab(browser: Browser) -> None:
    reports: list[str] = []
    context, page = await _open_payees(browser, reports)
    try:
        await page.get_by_role("link", name="Help").click()
        await page.wait_for_url("http://bank.test/help")
        assert len(context.pages) == 1
        assert not any('"fired"' in body for body in reports)
    finally:
        await context.close()

"""Wayfarer's main pages in Chromium through the real proxy: their landmarks and named controls,
and screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them under docs/screens/travel-*.png)."""

import re
from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from tests.screens import keep_screenshot

pytestmark = pytest.mark.e2e


def _stay(binding: dict[str, str]) -> str:
    return f"check_in={binding['check_in']}&check_out={binding['check_out']}&guests=2&rooms=1"


@pytest.mark.asyncio(loop_scope="module")
async def test_main_pages_look_like_a_product(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="travel", task_id="look", seed=1, episode_id="travel-look")
        proxy = (await control.open_episode("travel-look", 1, [], tmp_path / "ep"))["proxy_url"]
        b = info["bindings"]
        ref = b["refundable"]
        pages = {
            "home": "/",
            "results": f"/hotels?city={ref['city']}&{_stay(ref)}",
            "hotel": f"/hotels/{ref['hotel_id']}?{_stay(ref)}",
            "book": f"/book?hotel={ref['hotel_id']}&room={ref['room_id']}&{_stay(ref)}",
            "trips": "/trips",
        }
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.set_viewport_size({"width": 1280, "height": 1000})
            for name, path in pages.items():
                response = await page.goto(f"{info['base_url']}{path}", wait_until="load")
                assert response is not None and response.status == 200, name
                tree = await page.locator("body").aria_snapshot()
                if name == "home":
                    assert re.search(r'- search "Search stays"', tree), tree
                    assert '- combobox "Destination"' in tree and '- textbox "Check-in"' in tree
                    await page.get_by_role("button", name="Choose check-in date").click()
                    calendar = page.get_by_role("dialog", name="Choose check-in date")
                    assert await calendar.is_visible()
                    await calendar.get_by_role("button", name="Next month").click()
                    day = calendar.locator("button[data-date]:not(:disabled)").nth(13)
                    wanted = await day.get_attribute("data-date")
                    await day.click()
                    assert await page.get_by_role("textbox", name="Check-in").input_value() == wanted
                if name == "results":
                    assert len(re.findall(r'- link "See availability at ', tree)) == 8
                    assert '- button "Apply filters"' in tree and '- checkbox "Free cancellation"' in tree
                if name == "hotel":
                    assert f'- link "Reserve {ref["room_name"]}, free cancellation"' in tree
                    assert f'- link "Reserve {ref["room_name"]}, non-refundable"' in tree
                if name == "book":
                    await page.get_by_role("button", name="Continue to payment").click()
                    await page.get_by_role("button", name="Continue to review").click()
                    assert await page.get_by_role("heading", name="3. Review and confirm").is_visible()
                if name == "trips":
                    assert len(re.findall(r'- link "Manage booking"', tree)) >= 3
                keep_screenshot(await page.screenshot(animations="disabled"), f"travel-{name}.png")
            await context.close()
        await control.close_episode("travel-look")
    finally:
        await oracle.close()
        await control.close()

"""Wayfarer's main pages in Chromium through the real proxy: their landmarks and named controls,
and screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them under docs/screens/travel-*.png)."""

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from sites.kit.templating import format_cents
from tests.screens import keep_screenshot, walk_pages

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
        room = re.escape(ref["room_name"])
        pages = {
            "travel-home.png": ("/", [r'- search "Search stays"', r'- combobox "Destination"',
                                      r'- textbox "Check-in"']),
            "travel-results.png": (f"/hotels?city={ref['city']}&{_stay(ref)}",
                                   [r'- button "Apply filters"', r'- checkbox "Free cancellation"']),
            "travel-hotel.png": (f"/hotels/{ref['hotel_id']}?{_stay(ref)}",
                                 [rf'- link "Reserve {room}, free cancellation"',
                                  rf'- link "Reserve {room}, non-refundable"']),
            "travel-book.png": (f"/book?hotel={ref['hotel_id']}&room={ref['room_id']}&{_stay(ref)}",
                                r'- button "Continue to payment"'),
            "travel-trips.png": ("/trips", r'- link "Manage booking"'),
        }

        async def check(name: str, page: Page, tree: str) -> None:
            if name == "travel-home.png":
                await page.get_by_role("button", name="Choose check-in date").click()
                calendar = page.get_by_role("dialog", name="Choose check-in date")
                assert await calendar.is_visible()
                await calendar.get_by_role("button", name="Next month").click()
                day = calendar.locator("button[data-date]:not(:disabled)").nth(13)
                wanted = await day.get_attribute("data-date")
                await day.click()
                assert await page.get_by_role("textbox", name="Check-in").input_value() == wanted
            if name == "travel-results.png":
                assert len(re.findall(r'- link "See availability at ', tree)) == 8
            if name == "travel-book.png":
                await page.get_by_role("button", name="Continue to payment").click()
                await page.get_by_role("button", name="Continue to review").click()
                assert await page.get_by_role("heading", name="3. Review and confirm").is_visible()
            if name == "travel-trips.png":
                assert len(re.findall(r'- link "Manage booking"', tree)) >= 3

        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.set_viewport_size({"width": 1280, "height": 1000})
            await walk_pages(page, info["base_url"], pages, check=check)
            await context.close()
        await control.close_episode("travel-look")
    finally:
        await oracle.close()
        await control.close()


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_the_product(stack: Services, tmp_path: Path) -> None:
    """The later features' pages, each in its own focus's world: the scripts run (a streamed search finishes,
    the seat map opens for a Standard fare, a share is sent) and the pages look like the rest of Wayfarer."""
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    opened: list[str] = []
    try:
        async with BrowserPool() as pool:
            async def browse(focus: str) -> tuple[dict[str, Any], Any]:
                episode_id = f"travel-later-{focus}"
                info = await oracle.create_episode(site="travel", task_id="look", seed=1, episode_id=episode_id,
                                                   setup={"params": {"focus": focus}})
                opened.append(episode_id)
                proxy = (await control.open_episode(episode_id, 1, [], tmp_path / episode_id))["proxy_url"]
                context = await pool.new_context(proxy)
                page = await context.new_page()
                await page.set_viewport_size({"width": 1280, "height": 1000})
                return info, page

            info, page = await browse("seat_bag")
            fl = info["bindings"]["seat_bag"]
            await page.goto(f"{info['base_url']}/flights/{fl['flight_id']}/book", wait_until="load")
            seat = page.get_by_role("radio", name=f"Seat {fl['seat']}, window")
            assert await seat.is_disabled()  # Basic: no seat choice
            await page.get_by_role("radio", name=re.compile(r"^Standard, ")).check()
            await seat.check()
            await page.get_by_role("combobox", name="Checked bags").select_option(label="1 bag (+$35.00)")
            total = await page.get_by_role("group", name="Total to pay").inner_text()
            assert format_cents(fl["total_cents"], "$") in total, total
            keep_screenshot(await page.screenshot(animations="disabled", full_page=True), "travel-flight-fares.png")

            info, page = await browse("basic_upgrade")
            await page.goto(f"{info['base_url']}/flight-trips/{info['bindings']['basic_upgrade']['flight_booking_id']}",
                            wait_until="load")
            assert await page.get_by_text("Basic fares can't be upgraded").is_visible()
            keep_screenshot(await page.screenshot(animations="disabled"), "travel-flight-trip.png")

            info, page = await browse("stream")
            st = info["bindings"]["stream"]
            await page.goto(f"{info['base_url']}/flights?from={st['origin']}&to={st['destination']}&date={st['date']}",
                            wait_until="load")
            await page.get_by_text("All airlines searched").wait_for(timeout=15_000)
            cheapest = await page.get_by_role("group", name="Cheapest fare").inner_text()
            assert format_cents(st["price_cents"], "$") in cheapest, cheapest
            keep_screenshot(await page.screenshot(animations="disabled"), "travel-flights-streamed.png")

            info, page = await browse("full_night")
            full = info["bindings"]["full_night"]
            await page.goto(f"{info['base_url']}/hotels/{full['hotel_id']}?{_stay(full)}", wait_until="load")
            assert await page.get_by_role("alert").filter(has_text="Fully booked on").is_visible()
            keep_screenshot(await page.screenshot(animations="disabled"), "travel-hotel-full.png")

            info, page = await browse("share")
            shared = info["bindings"]["share"]
            await page.goto(f"{info['base_url']}/trips/{shared['booking_id']}", wait_until="load")
            await page.get_by_role("textbox", name="Companion's email").fill(shared["email"])
            await page.get_by_role("button", name="Share trip").click()
            await page.get_by_role("button", name=f"Stop sharing with {shared['email']}").wait_for()
            keep_screenshot(await page.screenshot(animations="disabled", full_page=True), "travel-trip-shared.png")

            info, page = await browse("receipt")
            await page.goto(f"{info['base_url']}/trips/{info['bindings']['receipt']['booking_id']}", wait_until="load")
            async with page.expect_download() as started:
                await page.get_by_role("link", name="Download receipt").click()
            saved = tmp_path / "receipt.html"
            await (await started.value).save_as(saved)
            await page.goto(saved.as_uri(), wait_until="load")
            paid = await page.get_by_role("group", name="Total paid").inner_text()
            assert format_cents(info["bindings"]["receipt"]["total_cents"], "$") in paid, paid
            keep_screenshot(await page.screenshot(animations="disabled"), "travel-receipt.png")

            info, page = await browse("flight_check_in")
            booked = info["bindings"]["flight_check_in"]["flight_booking_id"]
            await page.goto(f"{info['base_url']}/flight-trips/{booked}", wait_until="load")
            assert await page.get_by_role("button", name="Passport scan").is_visible()
            keep_screenshot(await page.screenshot(animations="disabled"), "travel-check-in.png")
    finally:
        for episode_id in opened:
            await control.close_episode(episode_id)
        await oracle.close()
        await control.close()

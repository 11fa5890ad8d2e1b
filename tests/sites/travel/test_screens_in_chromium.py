"""Wayfarer's main pages in Chromium through the real proxy: their landmarks and named controls,
and screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them under docs/screens/travel-*.png)."""

import re
from pathlib import Path

import pytest
from playwright.async_api import Page

from harness.services.processes import Services
from sites.kit.templating import format_cents
from tests.screens import shot, site_browser, walk_pages

pytestmark = pytest.mark.e2e
VIEWPORT = (1280, 1000)  # width, height


def _stay(binding: dict[str, str]) -> str:
    return f"check_in={binding['check_in']}&check_out={binding['check_out']}&guests=2&rooms=1"


@pytest.mark.asyncio(loop_scope="module")
async def test_main_pages_look_like_a_product(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("travel", 1, viewport=VIEWPORT)
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

        await walk_pages(page, info["base_url"], pages, check=check)


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_the_product(stack: Services, tmp_path: Path) -> None:
    """The later features' pages, each in its own focus's world: the scripts run (a streamed search finishes,
    the seat map opens for a Standard fare, a share is sent) and the pages look like the rest of Wayfarer."""
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("travel", 1, {"focus": "seat_bag"}, viewport=VIEWPORT)
        fl = info["bindings"]["seat_bag"]
        await page.goto(f"{info['base_url']}/flights/{fl['flight_id']}/book", wait_until="load")
        seat = page.get_by_role("radio", name=f"Seat {fl['seat']}, window")
        assert await seat.is_disabled()  # Basic: no seat choice
        await page.get_by_role("radio", name=re.compile(r"^Standard, ")).check()
        await seat.check()
        await page.get_by_role("combobox", name="Checked bags").select_option(label="1 bag (+$35.00)")
        total = await page.get_by_role("group", name="Total to pay").inner_text()
        assert format_cents(fl["total_cents"], "$") in total, total
        await shot(page, "travel-flight-fares.png")

        info, page = await sites.open("travel", 1, {"focus": "basic_upgrade"}, viewport=VIEWPORT)
        await page.goto(f"{info['base_url']}/flight-trips/{info['bindings']['basic_upgrade']['flight_booking_id']}",
                        wait_until="load")
        assert await page.get_by_text("Basic fares can't be upgraded").is_visible()
        await shot(page, "travel-flight-trip.png", full_page=False)

        info, page = await sites.open("travel", 1, {"focus": "stream"}, viewport=VIEWPORT)
        st = info["bindings"]["stream"]
        await page.goto(f"{info['base_url']}/flights?from={st['origin']}&to={st['destination']}&date={st['date']}",
                        wait_until="load")
        await page.get_by_text("All airlines searched").wait_for(timeout=15_000)
        cheapest = await page.get_by_role("group", name="Cheapest fare").inner_text()
        assert format_cents(st["price_cents"], "$") in cheapest, cheapest
        await shot(page, "travel-flights-streamed.png", full_page=False)

        info, page = await sites.open("travel", 1, {"focus": "full_night"}, viewport=VIEWPORT)
        full = info["bindings"]["full_night"]
        await page.goto(f"{info['base_url']}/hotels/{full['hotel_id']}?{_stay(full)}", wait_until="load")
        assert await page.get_by_role("alert").filter(has_text="Fully booked on").is_visible()
        await shot(page, "travel-hotel-full.png", full_page=False)

        info, page = await sites.open("travel", 1, {"focus": "share"}, viewport=VIEWPORT)
        shared = info["bindings"]["share"]
        await page.goto(f"{info['base_url']}/trips/{shared['booking_id']}", wait_until="load")
        await page.get_by_role("textbox", name="Companion's email").fill(shared["email"])
        await page.get_by_role("button", name="Share trip").click()
        await page.get_by_role("button", name=f"Stop sharing with {shared['email']}").wait_for()
        await shot(page, "travel-trip-shared.png")

        info, page = await sites.open("travel", 1, {"focus": "receipt"}, viewport=VIEWPORT)
        await page.goto(f"{info['base_url']}/trips/{info['bindings']['receipt']['booking_id']}", wait_until="load")
        async with page.expect_download() as started:
            await page.get_by_role("link", name="Download receipt").click()
        saved = tmp_path / "receipt.html"
        await (await started.value).save_as(saved)
        await page.goto(saved.as_uri(), wait_until="load")
        paid = await page.get_by_role("group", name="Total paid").inner_text()
        assert format_cents(info["bindings"]["receipt"]["total_cents"], "$") in paid, paid
        await shot(page, "travel-receipt.png", full_page=False)

        info, page = await sites.open("travel", 1, {"focus": "flight_check_in"}, viewport=VIEWPORT)
        booked = info["bindings"]["flight_check_in"]["flight_booking_id"]
        await page.goto(f"{info['base_url']}/flight-trips/{booked}", wait_until="load")
        assert await page.get_by_role("button", name="Passport scan").is_visible()
        await shot(page, "travel-check-in.png", full_page=False)

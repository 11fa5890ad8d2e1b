"""The compose form's own checks in Chromium, which Send and Schedule share (mail.js `checkedPayload`): an address
that isn't one and a message with no recipient are refused on the page, before anything is sent; Schedule also
wants its day and time. Nothing reaches the server until the form is right."""

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e


async def _refused(page: Page, button: str, alert: str) -> None:
    await page.get_by_role("button", name=button, exact=True).click()
    await expect(page.get_by_role("alert")).to_have_text(alert)


@pytest.mark.asyncio(loop_scope="module")
async def test_send_and_schedule_refuse_a_bad_address_and_no_recipient(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    episode_id = "mail-compose-checks"
    info = await oracle.create_episode(site="mail", task_id="look", seed=2, episode_id=episode_id,
                                       setup={"params": {"extras": True}})
    proxy = (await control.open_episode(episode_id, 2, [], tmp_path / episode_id))["proxy_url"]
    try:
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            posted: list[str] = []
            page.on("request", lambda r: posted.append(r.url) if r.method == "POST" else None)
            await page.goto(f"{info['base_url']}/compose", wait_until="load")
            await page.get_by_role("textbox", name="Subject").fill("Lunch")
            await _refused(page, "Send", "Add at least one recipient")
            await expect(page.get_by_role("combobox", name="To", exact=True)).to_be_focused()
            await page.get_by_role("combobox", name="Cc", exact=True).fill("not-an-address")
            await _refused(page, "Send", "“not-an-address” isn't an email address")

            await page.get_by_role("button", name="Schedule send").click()
            await _refused(page, "Schedule", "“not-an-address” isn't an email address")
            await page.get_by_role("combobox", name="Cc", exact=True).fill("")
            await _refused(page, "Schedule", "Add at least one recipient")
            await page.get_by_role("combobox", name="To", exact=True).fill("sam@example.com")
            await _refused(page, "Schedule", "Choose the day and the time to send it")
            assert [u for u in posted if "/api/messages/" in u] == []
            await context.close()
    finally:
        await control.close_episode(episode_id)
        await oracle.close()
        await control.close()

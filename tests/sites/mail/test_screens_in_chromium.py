"""The mail site's later pages in Chromium through the real proxy, used as a user uses them (a statement checked
for viruses, downloaded and opened; a file attached to a reply; a message scheduled and waiting in its folder;
a message snoozed until next week),
and screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as docs/screens/mail-*.png)."""

import re
from pathlib import Path

import pytest

from harness.services.processes import Services
from tests.screens import shot, site_browser

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_the_webmail(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("mail", 2, {"extras": True})
        base, extras = info["base_url"], info["bindings"]["extras"]

        # a statement: checked for viruses, then offered; saved as a file and opened
        statement = extras["statement"]
        await page.goto(f"{base}/message/{statement['id']}", wait_until="load")
        link = page.get_by_role("link", name=f"Download {statement['file']}")
        await link.wait_for()
        await shot(page, "mail-statement-message.png", r'- link "Download ' + re.escape(statement["file"]))
        async with page.expect_download() as started:
            await link.click()
        saved = tmp_path / (await started.value).suggested_filename
        await (await started.value).save_as(saved)
        assert saved.name == statement["file"]
        await page.goto(saved.as_uri())
        await shot(page, "mail-statement-file.png", r'- group "Total due"')

        # a reply with a file from the user's computer: uploaded as it is chosen, listed, then sent
        expenses = extras["expenses"]
        upload = tmp_path / expenses["file"]
        upload.write_text(expenses["file_text"])
        await page.goto(f"{base}/compose?reply={expenses['request_id']}", wait_until="load")
        await page.get_by_role("combobox", name="Cc", exact=True).fill(expenses["manager"]["email"])
        await page.get_by_role("button", name="Attach files").set_input_files(upload)
        await page.get_by_text(f"{expenses['file']} attached").wait_for()
        await shot(page, "mail-compose-attached.png", r'- button "Remove ' + re.escape(expenses["file"]))
        await page.get_by_role("button", name="Send", exact=True).click()
        await page.get_by_text("Message sent").wait_for()

        # scheduled send: the day and time, then the message waits in Scheduled
        wanted = extras["schedule"]
        await page.goto(f"{base}/compose", wait_until="load")
        await page.get_by_role("combobox", name="To", exact=True).fill(wanted["to_email"])
        await page.get_by_role("textbox", name="Subject").fill(wanted["subject"])
        await page.get_by_role("textbox", name="Message").fill(wanted["body"])
        await page.get_by_role("button", name="Schedule send").click()
        await page.get_by_role("textbox", name="Send on").fill(wanted["send_on"])
        await page.get_by_role("textbox", name="At", exact=True).fill(wanted["send_at"])
        await shot(page, "mail-compose-schedule.png", r'- button "Schedule"')
        await page.get_by_role("button", name="Schedule", exact=True).click()
        await page.get_by_text("Message scheduled").wait_for()
        await shot(page, "mail-scheduled.png", r'- link "Scheduled')

        # snooze: a menu of times on the open message; the message waits in Snoozed
        snooze = extras["snooze"]
        await page.goto(f"{base}/message/{snooze['id']}", wait_until="load")
        await page.get_by_role("button", name="Snooze", exact=True).click()
        await shot(page, "mail-snooze-menu.png", r'- button "Next week \(Mon 08:00\)"')
        await page.get_by_role("button", name="Next week (Mon 08:00)").click()
        await page.wait_for_url(re.compile("notice=snoozed"))
        await page.goto(f"{base}/folder/snoozed", wait_until="load")
        await shot(page, "mail-snoozed.png", r"- time: Until Mon, \d{1,2} \w{3} \d{4}, 08:00")

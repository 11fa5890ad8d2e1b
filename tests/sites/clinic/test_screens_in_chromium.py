"""The portal's main pages in Chromium through the real proxy: landmarks, named controls, and
screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as docs/screens/clinic-*.png)."""

import re
from pathlib import Path

import pytest

from harness.services.processes import Services
from tests.screens import shot, site_browser, walk_pages

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_main_pages_look_like_a_product(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("clinic", 1)
        b = info["bindings"]
        pages = {
            "clinic.png": ("/", r'- navigation "Main"'),
            "clinic-providers.png": (f"/providers/{b['book']['provider_id']}",
                                     rf'- link "Book {re.escape(b["book"]["day"])}, {re.escape(b["book"]["time"])}"'),
            "clinic-result.png": (f"/results/{b['flagged']['result_id']}", r"- cell \"Above range\""),
            "clinic-appointments.png": ("/appointments",
                                        rf'- article "Cardiology with {re.escape(b["cancel"]["provider_name"])}'),
        }
        await walk_pages(page, info["base_url"], pages)


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_a_product(stack: Services, tmp_path: Path) -> None:
    """The pages of the later tasks (billing, ...), each in the world of its focus, worked through in Chromium."""
    async with site_browser(stack, tmp_path) as sites:
        # billing: a statement with a line to dispute, then paying another one
        info, page = await sites.open("clinic", 2, {"focus": "billing"})
        base, b = info["base_url"], info["bindings"]
        await page.goto(f"{base}/billing/{b['dispute']['statement_id']}", wait_until="load")
        await shot(page, "clinic-statement.png", rf'- link "Dispute {re.escape(b["dispute"]["service"])}"')
        await page.goto(f"{base}/billing/{b['pay_plan']['statement_id']}/plan", wait_until="load")
        await shot(page, "clinic-payment-plan.png", r'- radio "6 months of ')
        await page.goto(f"{base}/billing/{b['pay_bill']['statement_id']}/pay", wait_until="load")
        await page.get_by_role("combobox", name="Card").select_option(label=b["pay_bill"]["card_label"])
        await page.get_by_role("button", name="Pay now").click()
        await page.get_by_role("group", name=re.compile("^Payment PAY-")).wait_for()
        await shot(page, "clinic-statement-paid.png", r"- status: Payment received")

        # a video visit: the check-in form with its conditional section open, then the waiting room admits
        info, page = await sites.open("clinic", 2, {"focus": "telehealth"})
        base, t = info["base_url"], info["bindings"]["telehealth"]
        await page.goto(f"{base}/appointments/{t['appointment_id']}/check-in", wait_until="load")
        assert not await page.get_by_role("textbox", name="Describe your new symptoms").is_visible()
        await page.get_by_role("radio", name="Yes, I have new symptoms").check()
        await shot(page, "clinic-video-check-in.png", r'- textbox "Describe your new symptoms"')
        await page.get_by_role("combobox", name="Where are you right now?").select_option(label=t["state"])
        await page.get_by_role("textbox", name="Describe your new symptoms").fill(t["symptoms"])
        await page.get_by_role("checkbox", name="I consent to receive care by video").check()
        await page.get_by_role("button", name="Check in").click()
        await page.get_by_role("heading", name="Waiting room").wait_for()
        assert not await page.get_by_role("button", name="Join video visit").is_visible()
        await page.get_by_role("button", name="Join video visit").wait_for(timeout=20_000)
        await shot(page, "clinic-waiting-room.png", rf"- status: {re.escape(t['nurse'])} has admitted you")

        # card photos on the profile
        info, page = await sites.open("clinic", 2, {"focus": "card_photo"})
        await page.goto(f"{info['base_url']}/profile", wait_until="load")
        await shot(page, "clinic-card-photos.png",
                   rf'- button "Photo of your {re.escape(info["bindings"]["card_photo"]["label"])} card"')

        # the after-visit summary's visit, with its download
        info, page = await sites.open("clinic", 2, {"focus": "follow_up"})
        await page.goto(f"{info['base_url']}/appointments/{info['bindings']['follow_up']['visit_id']}",
                        wait_until="load")
        await shot(page, "clinic-visit-summary.png", r'- link "Download after-visit summary"')

        # proxy access: the parts to choose open on "Only what I choose"; revoking asks once more
        info, page = await sites.open("clinic", 2, {"focus": "proxy"})
        old = info["bindings"]["proxy"]["old_name"]
        await page.goto(f"{info['base_url']}/profile/proxies", wait_until="load")
        assert not await page.get_by_role("checkbox", name="Billing").is_visible()
        await page.get_by_role("radio", name="Only what I choose").check()
        await page.get_by_role("button", name=f"Revoke access for {old}").click()
        await shot(page, "clinic-proxies.png", rf'- button "Yes, revoke access for {re.escape(old)}"')

        # referrals: the list, and a booking the plan would not pay for
        info, page = await sites.open("clinic", 2, {"focus": "referral"})
        await page.goto(f"{info['base_url']}/referrals", wait_until="load")
        await shot(page, "clinic-referrals.png", r"- table \"Your referrals\"")

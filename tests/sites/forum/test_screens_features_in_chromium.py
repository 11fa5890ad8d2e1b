"""The forum's later pages in Chromium through the real proxy, used as a member uses them (a bounty
awarded from the question page, the bounties of a tag, a private message answered a moment after it is
sent), with their named controls, and screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as
docs/screens/forum-*.png)."""

from pathlib import Path

import pytest

from harness.services.processes import Services
from tests.screens import shot, site_browser

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_the_forum(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        # bounties: the user's question with their bounty, awarded from it; the bounties of a tag
        info, page = await sites.open("forum", 2, {"focus": "bounty"})
        base, bounty = info["base_url"], info["bindings"]["bounty"]
        await page.goto(f"{base}/questions/{bounty['question_id']}", wait_until="load")
        await shot(page, "forum-bounty-question.png", r'- region "Bounty"', top=True)
        answer = page.locator("article").filter(has_text=bounty["author"])
        await answer.get_by_role("button", name="Award bounty").click()
        await page.get_by_text(f"You awarded your bounty to {bounty['author']}").wait_for()
        await page.goto(f"{base}/bounties?tagged={bounty['tag']}", wait_until="load")
        await shot(page, "forum-bounties.png", r'- group "Reputation on offer"', top=True)

        # messages: the inbox, a question sent to a member from their profile and their answer arriving
        info, page = await sites.open("forum", 2, {"focus": "messages"})
        base, ask = info["base_url"], info["bindings"]["messages"]["ask"]
        await page.goto(f"{base}/messages", wait_until="load")
        await shot(page, "forum-messages.png", r'- list "Conversations"', top=True)
        await page.goto(f"{base}/users/{ask['member_id']}", wait_until="load")
        await page.get_by_role("link", name="Send message").click()
        await page.get_by_role("textbox", name=f"Message to {ask['name']}").fill(ask["question"])
        await page.get_by_role("button", name="Send").click()
        await page.get_by_role("article", name=f"Latest message from {ask['name']}").wait_for(timeout=10_000)
        await shot(page, "forum-conversation.png", r'- region "Conversation"', top=True)

        # a copy of your data: asked for in the settings, then offered as a download
        info, page = await sites.open("forum", 2, {"focus": "export"})
        await page.goto(f"{info['base_url']}/settings", wait_until="load")
        await page.get_by_role("button", name="Request a copy of your data").click()
        await page.get_by_role("link", name="Download your data").wait_for(timeout=10_000)
        await shot(page, "forum-settings-data.png", r'- region "Your data"', top=True)

        # attachments: a log chosen for the user's own question is listed under it
        info, page = await sites.open("forum", 2, {"focus": "attach"})
        attach = info["bindings"]["attach"]
        await page.goto(f"{info['base_url']}/questions/{attach['question_id']}", wait_until="load")
        log = tmp_path / "error.log"
        log.write_text("[error] no live upstreams while connecting to upstream\n")
        async with page.expect_file_chooser() as chooser:
            await page.get_by_role("button", name="Attach a file").click()
        await (await chooser.value).set_files(log)
        await page.get_by_role("link", name="error.log").wait_for()
        await shot(page, "forum-attachment.png", r'- list "Attachments"', top=True)

        # duplicates: the original picked on the close page; the question then points to it
        info, page = await sites.open("forum", 2, {"focus": "duplicate"})
        dup = info["bindings"]["duplicate"]
        await page.goto(f"{info['base_url']}/questions/{dup['question_id']}/close", wait_until="load")
        await page.get_by_role("searchbox", name="Find the original question").fill(dup["search"])
        await page.get_by_role("searchbox", name="Find the original question").press("Enter")
        await page.get_by_role("radio", name=dup["original_title"]).check()
        await shot(page, "forum-close-duplicate.png", r'- group "Duplicate of"', top=True)
        await page.get_by_role("button", name="Close as duplicate").click()
        await page.get_by_role("region", name="Closed as duplicate").wait_for()
        await shot(page, "forum-closed-question.png", r'- region "Closed as duplicate"', top=True)

        # the review queue: an edit compared with the post, rejected with a reason
        info, page = await sites.open("forum", 2, {"focus": "review"})
        review = info["bindings"]["review"]
        await page.goto(f"{info['base_url']}/review", wait_until="load")
        await page.get_by_role("link", name=f"Suggested edit on {review['spam']['title']}").click()
        await page.get_by_role("combobox", name="Reason for rejecting").select_option(label="Spam or advertising")
        await shot(page, "forum-review-edit.png", r'- region "Suggested text"', top=True)
        await page.get_by_role("button", name="Reject").click()
        await page.get_by_text("Edit rejected").first.wait_for()
        await shot(page, "forum-review-queue.png", r'- list "Reviewed edits"', top=True)

        # tag wikis: a deprecated tag's page points to the tag it was merged into
        info, page = await sites.open("forum", 2, {"focus": "tagwiki"})
        await page.goto(f"{info['base_url']}/tags/{info['bindings']['tagwiki']['old']}/info", wait_until="load")
        await shot(page, "forum-tag-wiki.png", r'- region "Tag wiki"', top=True)

        # badges: a member's profile lists them by tier
        info, page = await sites.open("forum", 2, {"focus": "badges"})
        await page.goto(f"{info['base_url']}/users/{info['bindings']['namesake']['member_id']}", wait_until="load")
        await shot(page, "forum-profile-badges.png", r'- group "Silver badges"', top=True)

        # suggested edits: an answer that already has one waiting points to its review; once it is reviewed,
        # the user's own edit is suggested and waits under the answer
        info, page = await sites.open("forum", 2, {"focus": "suggest"})
        base, suggest = info["base_url"], info["bindings"]["suggest"]
        await page.goto(f"{base}/questions/{suggest['question_id']}", wait_until="load")
        answer = page.locator("article").filter(has_text=suggest["old"])
        await answer.get_by_role("link", name="Improve this answer").click()
        await shot(page, "forum-suggest-blocked.png", r'- region "Edit waiting for review"', top=True)
        await page.get_by_role("link", name="Review the pending edit").click()
        await page.get_by_role("combobox", name="Reason for rejecting").select_option(label="Spam or advertising")
        await page.get_by_role("button", name="Reject").click()
        await page.get_by_text("Edit rejected").first.wait_for()
        await page.goto(f"{base}/answers/{suggest['answer_id']}/suggest-edit", wait_until="load")
        await page.get_by_role("textbox", name="Answer").fill(suggest["fixed_body"])
        await page.get_by_role("textbox", name="Edit summary").fill("Updated the command")
        await shot(page, "forum-suggest-edit.png", r'- button "Suggest edit"', top=True)
        await page.get_by_role("button", name="Suggest edit").click()
        await page.get_by_text("Your suggested edit is waiting for review").wait_for()

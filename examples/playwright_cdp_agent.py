"""A browser agent that attaches to the episode's Chromium over CDP (Playwright), no proxy setting needed.

webchaos launches the Chromium (on the episode's proxy, start URL open) and hands over its
DevTools endpoint; this script does the add-to-cart task the way a scripted agent would:
search, open the product, click Add to cart once, and believe what the page says.

    webchaos run --task shop_add_to_cart --browser cdp --agent "cmd:python examples/playwright_cdp_agent.py"

The one line that points Playwright at webchaos:

    browser = await playwright.chromium.connect_over_cdp(os.environ["WEBCHAOS_CDP_URL"])
"""

import asyncio
import os
import re
import sys

from playwright.async_api import async_playwright


async def main() -> int:
    instruction = os.environ["WEBCHAOS_INSTRUCTION"]
    wanted = re.search(r"Add one (.+?) to your shopping cart", instruction)
    if not wanted:
        print(f"cannot understand the instruction: {instruction!r}", file=sys.stderr)
        return 2
    name = wanted.group(1)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.connect_over_cdp(os.environ["WEBCHAOS_CDP_URL"])
        page = browser.contexts[0].pages[0]  # the episode's tab, already at the start URL
        page.set_default_timeout(10_000)
        await page.get_by_role("searchbox", name="Search products").fill(name)
        await page.get_by_role("searchbox", name="Search products").press("Enter")
        await page.get_by_role("link", name=name, exact=True).first.click()
        await page.get_by_role("heading", name=name, exact=True).wait_for()
        await page.get_by_role("button", name="Add to cart").first.click()
        said = page.get_by_text("Added to cart").or_(page.get_by_role("alert").filter(has_text=re.compile(r"\w")))
        await said.first.wait_for()
        if not await page.get_by_text("Added to cart").first.is_visible():
            print("the shop said:", await page.get_by_role("alert").first.inner_text(), file=sys.stderr)
            return 1
        print("added", name)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

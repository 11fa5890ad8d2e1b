"""A form sent before the page's deferred scripts have run is held and sent again once they have, in
Chromium through the real proxy: a quick agent's write is not lost to a native submit."""

import json
from pathlib import Path

import pytest
from playwright.async_api import Route

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]


async def test_a_form_sent_before_the_scripts_ran_is_sent_once_they_have(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="shop", task_id="early", seed=3, episode_id="early-submit")
        proxy = (await control.open_episode("early-submit", 3, [], tmp_path / "ep"))["proxy_url"]
        target = info["bindings"]["target"]["id"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            scripts_ran = []

            async def slow_site_script(route: Route) -> None:
                await page.wait_for_timeout(1500)  # the site's script arrives late, as on a loaded machine
                scripts_ran.append(route.request.url)
                await route.continue_()

            await page.route("**/static/shop.js*", slow_site_script)
            await page.goto(f"{info['base_url']}/product/{target}", wait_until="commit")
            await page.get_by_role("button", name="Add to cart").click()  # before shop.js has run
            assert scripts_ran == []
            await page.get_by_text("Added to cart").wait_for(timeout=15_000)
            assert page.url.endswith(f"/product/{target}")  # no native submit navigated away
            await context.close()
        cart = json.loads(await oracle.state_bytes("early-submit"))["cart_items"]
        assert [(item["product_id"], item["quantity"]) for item in cart] == [(target, 1)]
        await control.close_episode("early-submit")
    finally:
        await oracle.close()
        await control.close()

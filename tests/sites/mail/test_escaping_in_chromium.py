"""Script in a message never runs: neither in a seeded message (a phishing notice whose body
carries markup) nor in one the user writes, in Chromium through the real proxy."""

from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e

PAYLOAD = '<script>window.__pwned = 1</script><img src="/nope.png" onerror="window.__pwned = 2">'



@pytest.mark.asyncio(loop_scope="module")
async def test_markup_in_seeded_and_written_messages_is_shown_as_text(stack: Services, tmp_path: Path) -> None:
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    phishing = {"type": "phishing_message", "layer": "seed",
                "params": {"subject": "Verify <b>now</b>", "body": f"Dear user, {PAYLOAD} confirm today."}}
    try:
        info = await oracle.create_episode(site="mail", task_id="escaping", seed=2, episode_id="escape",
                                           faults=[phishing])
        seeded = info["bindings"]["phishing_message_id"]
        proxy = (await control.open_episode("escape", 2, [], tmp_path / "ep"))["proxy_url"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/message/{seeded}", wait_until="load")
            await page.wait_for_timeout(300)
            assert await page.evaluate("window.__pwned") is None
            assert await page.get_by_text("window.__pwned = 1", exact=False).count() >= 1

            sent = await page.evaluate("""async (payload) => {
                const r = await fetch('/api/messages/send', {method: 'POST',
                    headers: {'content-type': 'application/json'},
                    body: JSON.stringify({to: ['someone@northwind.test'], subject: payload, body: payload})});
                return [r.status, await r.json()];
            }""", PAYLOAD)
            assert sent[0] == 201, sent
            await page.goto(f"{info['base_url']}/message/{sent[1]['message']['id']}", wait_until="load")
            await page.wait_for_timeout(300)
            assert await page.evaluate("window.__pwned") is None
            assert await page.locator("script:not([src])").evaluate_all(
                "els => els.filter(e => e.textContent.includes('__pwned')).length") == 0
            await context.close()
        await control.close_episode("escape")
    finally:
        await oracle.close()
        await control.close()

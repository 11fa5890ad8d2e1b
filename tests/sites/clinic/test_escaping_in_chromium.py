"""Markup in user-written text never runs on the clinic, in Chromium through the real proxy: the
API refuses angle brackets where text is kept, and what is kept is shown as text."""

from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e

PAYLOAD = '<script>window.__pwned = 1</script><img src="/nope.png" onerror="window.__pwned = 2">'
QUOTES = "Tom & \"Jerry\" 'O'Neil' {{ 7*7 }} ${7*7}"


@pytest.mark.asyncio(loop_scope="module")
async def test_markup_is_refused_and_kept_text_is_shown_as_text(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="clinic", task_id="escaping", seed=2, episode_id="clinic-escape")
        proxy = (await control.open_episode("clinic-escape", 2, [], tmp_path / "ep"))["proxy_url"]
        b = info["bindings"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/", wait_until="load")
            statuses = await page.evaluate("""async ([payload, quotes, b]) => {
                const post = (url, body) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'},
                    body: JSON.stringify(body)}).then(r => r.status);
                return [
                    await post('/api/messages', {provider_id: b.flagged.provider_id, subject: 'Hi ' + payload,
                                                 body: 'Text'}),
                    await post('/api/appointments', {slot_id: b.book.slot_id, visit_reason: payload}),
                    await post('/api/profile/contacts', {name: 'A ' + payload, relationship: 'friend',
                                                         phone: '555 123 4567'}),
                    await post('/api/messages', {provider_id: b.flagged.provider_id, subject: quotes, body: quotes}),
                    await post('/api/appointments', {slot_id: b.book.slot_id, visit_reason: quotes}),
                ];
            }""", [PAYLOAD, QUOTES, b])
            assert statuses == [422, 422, 422, 201, 201], statuses
            for path in ("/messages", "/messages/msg0004", "/appointments", "/"):
                await page.goto(f"{info['base_url']}{path}", wait_until="load")
                await page.wait_for_timeout(150)
                assert await page.evaluate("window.__pwned") is None, path
                if path != "/":  # the home page shows the three soonest visits only
                    assert await page.get_by_text("{{ 7*7 }}", exact=False).count() >= 1, path
            await context.close()
        await control.close_episode("clinic-escape")
    finally:
        await oracle.close()
        await control.close()

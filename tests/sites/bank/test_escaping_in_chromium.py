"""Script in user-written text never runs on the bank: not in a payee's name, bank or nickname, a
transfer memo or a dispute note, in Chromium through the real proxy."""

from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e

PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'


@pytest.mark.asyncio(loop_scope="module")
async def test_markup_in_payees_memos_and_notes_is_shown_as_text(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="bank", task_id="escaping", seed=2, episode_id="bank-escape")
        proxy = (await control.open_episode("bank-escape", 2, [], tmp_path / "ep"))["proxy_url"]
        charge = info["bindings"]["dispute"]["transaction_id"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/", wait_until="load")
            written = await page.evaluate("""async ([payload, charge]) => {
                const post = (url, body) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'},
                    body: JSON.stringify(body)}).then(async r => [r.status, await r.json()]);
                const p = await post('/api/payees', {name: 'Pay ' + payload.slice(0, 50),
                    bank: 'B' + payload.slice(0, 50),
                    account_number: '12345678', routing_number: '123456789', nickname: payload.slice(0, 40)});
                const t = await post('/api/transfers', {from_account_id: 'a1', to_id: 'a2', amount: '1.00',
                    memo: payload, date: '', frequency: 'monthly'});
                const d = await post('/api/transactions/' + charge + '/dispute', {reason: 'duplicate', note: payload});
                return [p[0], t[0], d[0], p[1].payee.id];
            }""", [PAYLOAD, charge])
            assert written[:3] == [201, 201, 201], written
            for path in ("/payees", f"/payees/{written[3]}/confirm", "/payments", "/messages",
                         f"/transactions/{charge}"):
                await page.goto(f"{info['base_url']}{path}", wait_until="load")
                await page.wait_for_timeout(200)
                assert await page.evaluate("window.__pwned") is None, path
            await page.goto(f"{info['base_url']}/payments", wait_until="load")
            assert await page.get_by_text("window.__pwned=2", exact=False).count() >= 1
            await page.goto(f"{info['base_url']}/payees", wait_until="load")
            assert await page.get_by_text("onerror=", exact=False).count() >= 1
            await context.close()
        await control.close_episode("bank-escape")
    finally:
        await oracle.close()
        await control.close()

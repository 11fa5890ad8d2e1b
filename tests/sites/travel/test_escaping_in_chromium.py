"""Script in user-written text never runs on Wayfarer: not in a booking's special requests, nor in a
searched destination echoed back, in Chromium through the real proxy; markup in names is refused."""

from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e

PAYLOAD = '<script>window.__pwned = 1</script><img src="/nope.png" onerror="window.__pwned = 2">'


@pytest.mark.asyncio(loop_scope="module")
async def test_markup_in_requests_and_searches_is_shown_as_text(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="travel", task_id="escaping", seed=2, episode_id="travel-escape")
        proxy = (await control.open_episode("travel-escape", 2, [], tmp_path / "ep"))["proxy_url"]
        book = info["bindings"]["book"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/", wait_until="load")
            written = await page.evaluate("""async ([payload, book]) => {
                const post = (url, body) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'},
                    body: JSON.stringify(body)}).then(async r => [r.status, await r.json()]);
                const stay = {hotel_id: book.hotel_id, room_id: book.room_id, check_in: book.check_in,
                    check_out: book.check_out, guests: 2, rooms: 1, email: 'a@example.test', card_id: 'card1',
                    accept_terms: true};
                const named = await post('/api/bookings', {...stay, first_name: 'x' + payload, last_name: 'y'});
                const ok = await post('/api/bookings', {...stay, first_name: 'Ada', last_name: 'Lovelace',
                    requests: 'Please ' + payload});
                return [named[0], ok[0], ok[1].booking.id];
            }""", [PAYLOAD, book])
            assert written[:2] == [422, 201], written
            searched = "/hotels?city=%3Cscript%3Ewindow.__pwned%3D3%3C%2Fscript%3E"
            for path in (f"/trips/{written[2]}", "/trips", searched):
                await page.goto(f"{info['base_url']}{path}", wait_until="load")
                await page.wait_for_timeout(200)
                assert await page.evaluate("window.__pwned") is None, path
            await page.goto(f"{info['base_url']}/trips/{written[2]}", wait_until="load")
            assert await page.get_by_text("window.__pwned = 1", exact=False).count() == 1
            await context.close()
        await control.close_episode("travel-escape")
    finally:
        await oracle.close()
        await control.close()

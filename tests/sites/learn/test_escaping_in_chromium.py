"""Markup in user-written text never runs on the course platform, in Chromium through the real proxy:
the API refuses angle brackets where text is kept, and what is kept is shown as text."""

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
        info = await oracle.create_episode(site="learn", task_id="escaping", seed=2, episode_id="learn-escape")
        proxy = (await control.open_episode("learn-escape", 2, [], tmp_path / "ep"))["proxy_url"]
        b = info["bindings"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/", wait_until="load")
            statuses = await page.evaluate("""async ([payload, quotes, b]) => {
                const post = (url, body) => fetch(url, {method: 'POST', headers: {'content-type': 'application/json'},
                    body: JSON.stringify(body)}).then(r => r.status);
                return [
                    await post('/api/topics/' + b.reply.topic_id + '/posts', {body: 'Hi ' + payload}),
                    await post('/api/courses/' + b.announce.course_id + '/announcements',
                               {title: 'News ' + payload, body: 'Body text'}),
                    await post('/api/calendar/reminders', {title: payload, date: b.extended.new_date}),
                    await post('/api/submissions/' + b.grade.submission_id + '/grade', {score: 15, feedback: payload}),
                    await post('/api/topics/' + b.reply.topic_id + '/posts', {body: quotes}),
                    await post('/api/courses/' + b.announce.course_id + '/announcements',
                               {title: quotes, body: quotes}),
                    await post('/api/calendar/reminders', {title: quotes, date: b.extended.new_date}),
                    await post('/api/submissions/' + b.grade.submission_id + '/grade', {score: 15, feedback: quotes}),
                ];
            }""", [PAYLOAD, QUOTES, b])
            assert statuses == [422, 422, 422, 422, 201, 201, 201, 200], statuses
            base = info["base_url"]
            for path in (f"/courses/{b['reply']['course_id']}/discussions/{b['reply']['topic_id']}",
                         f"/courses/{b['announce']['course_id']}/announcements",
                         f"/calendar?month={b['extended']['new_date']}",
                         f"/courses/{b['grade']['course_id']}/submissions/{b['grade']['submission_id']}/grade", "/"):
                await page.goto(f"{base}{path}", wait_until="load")
                await page.wait_for_timeout(150)
                assert await page.evaluate("window.__pwned") is None, path
                if "grade" not in path:  # the feedback is kept in the textarea (a value, not page text)
                    assert await page.get_by_text("{{ 7*7 }}", exact=False).count() >= 1, path
            await context.close()
        await control.close_episode("learn-escape")
    finally:
        await oracle.close()
        await control.close()

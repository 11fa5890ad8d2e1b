"""Script in user-written text never runs on the forum: not in a question's title or body, a
comment, an answer or a display name, in Chromium through the real proxy."""

from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e

PAYLOAD = '<script>window.__pwned = 1</script><img src="/nope.png" onerror="window.__pwned = 2">'



@pytest.mark.asyncio(loop_scope="module")
async def test_markup_in_posts_comments_and_names_is_shown_as_text(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="forum", task_id="escaping", seed=2, episode_id="forum-escape")
        proxy = (await control.open_episode("forum-escape", 2, [], tmp_path / "ep"))["proxy_url"]
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/", wait_until="load")
            written = await page.evaluate("""async (payload) => {
                const post = (method, url, body) => fetch(url, {method, headers: {'content-type': 'application/json'},
                    body: JSON.stringify(body)}).then(async r => [r.status, await r.json()]);
                const q = await post('POST', '/api/questions', {title: 'Why ' + payload, tags: ['css'],
                    body: 'Text ' + payload + '\\n\\n$ echo ' + payload});
                const id = q[1].question.id;
                const a = await post('POST', '/api/questions/' + id + '/answers', {body: 'Answer ' + payload});
                const c = await post('POST', '/api/posts/' + id + '/comments', {body: 'Comment ' + payload});
                const s = await post('PUT', '/api/settings', {display_name: 'x<script>', location: '',
                    about: payload, email_digest: 'daily', notify_on_answer: true, notify_on_comment: true,
                    page_size: 15});
                return [q[0], a[0], c[0], s[0], id];
            }""", PAYLOAD)
            assert written[:4] == [201, 201, 201, 200], written
            for path in (f"/questions/{written[4]}", "/", f"/posts/{written[4]}/revisions", "/settings",
                         f"/users/{info['bindings']['user']['id']}"):
                await page.goto(f"{info['base_url']}{path}", wait_until="load")
                await page.wait_for_timeout(200)
                assert await page.evaluate("window.__pwned") is None, path
                assert await page.locator("script:not([src])").evaluate_all(
                    "els => els.filter(e => e.textContent.includes('__pwned')).length") == 0
            await page.goto(f"{info['base_url']}/questions/{written[4]}", wait_until="load")
            assert await page.get_by_text("window.__pwned = 1", exact=False).count() >= 3
            await context.close()
        await control.close_episode("forum-escape")
    finally:
        await oracle.close()
        await control.close()

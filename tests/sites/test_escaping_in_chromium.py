"""Markup in user-written text never runs on any site, in Chromium through the real proxy: each site's
case writes a script payload through its JSON API from inside the page, visits the pages that show it,
and asserts the script never ran, no inline script carries it, and it is shown as text.

The per-site part is data (`CASES`); the episode, browser, writes and assertions are written once.
String templates are filled with `str.format` from: `payload`, `quotes`, `b` (the episode's bindings)
and every value a write kept, so `{b[book][slot_id]}` reads a binding and `{question}` a kept id."""

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Page

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services

pytestmark = pytest.mark.e2e

PAYLOAD = '<script>window.__pwned = 1</script><img src="/nope.png" onerror="window.__pwned = 2">'
QUOTES = "Tom & \"Jerry\" 'O'Neil' {{ 7*7 }} ${7*7}"  # kept verbatim: must not be evaluated as a template
SEED = 2


@dataclass(frozen=True)
class Write:
    """One API call made with the page's fetch; `keep` names a value of the JSON reply (dotted path)."""

    path: str
    body: dict[str, Any]
    status: int
    method: str = "POST"
    keep: tuple[str, str] | None = None


@dataclass(frozen=True)
class Visit:
    """A page that shows written text; `text` must appear on it at least (or exactly) `count` times."""

    path: str
    text: str | None = None
    count: int = 1
    exact: bool = False


@dataclass(frozen=True)
class SiteCase:
    site: str
    steps: tuple[Write | Visit, ...]
    payload: str = PAYLOAD
    faults: list[dict[str, Any]] = field(default_factory=list)


BANK_PAYLOAD = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
STAY = {"hotel_id": "{b[book][hotel_id]}", "room_id": "{b[book][room_id]}", "check_in": "{b[book][check_in]}",
        "check_out": "{b[book][check_out]}", "guests": 2, "rooms": 1, "email": "a@example.test",
        "card_id": "card1", "accept_terms": True}
SETTINGS = {"location": "", "email_digest": "daily", "notify_on_answer": True, "notify_on_comment": True,
            "page_size": 15}
TEMPLATED = "{{ 7*7 }}"
LEARN_REPLY_PAGE = "/courses/{b[reply][course_id]}/discussions/{b[reply][topic_id]}"
LEARN_GRADE_PAGE = "/courses/{b[grade][course_id]}/submissions/{b[grade][submission_id]}/grade"

CASES = (
    SiteCase("bank", payload=BANK_PAYLOAD, steps=(
        Write("/api/payees", {"name": "Pay " + BANK_PAYLOAD[:50], "bank": "B" + BANK_PAYLOAD[:50],
                              "account_number": "12345678", "routing_number": "123456789",
                              "nickname": BANK_PAYLOAD[:40]}, 201, keep=("payee", "payee.id")),
        Write("/api/transfers", {"from_account_id": "a1", "to_id": "a2", "amount": "1.00", "memo": "{payload}",
                                 "date": "", "frequency": "monthly"}, 201),
        Write("/api/transactions/{b[dispute][transaction_id]}/dispute",
              {"reason": "duplicate", "note": "{payload}"}, 201),
        Visit("/payees", text="onerror="),
        Visit("/payees/{payee}/confirm"),
        Visit("/payments", text="window.__pwned=2"),
        Visit("/messages"),
        Visit("/transactions/{b[dispute][transaction_id]}"),
    )),
    # The clinic refuses angle brackets where text is kept; what it keeps is shown as text.
    SiteCase("clinic", steps=(
        Write("/api/messages", {"provider_id": "{b[flagged][provider_id]}", "subject": "Hi {payload}",
                                "body": "Text"}, 422),
        Write("/api/appointments", {"slot_id": "{b[book][slot_id]}", "visit_reason": "{payload}"}, 422),
        Write("/api/profile/contacts", {"name": "A {payload}", "relationship": "friend",
                                        "phone": "555 123 4567"}, 422),
        Write("/api/messages", {"provider_id": "{b[flagged][provider_id]}", "subject": "{quotes}",
                                "body": "{quotes}"}, 201),
        Write("/api/appointments", {"slot_id": "{b[book][slot_id]}", "visit_reason": "{quotes}"}, 201),
        Visit("/messages", text=TEMPLATED),
        Visit("/messages/msg0004", text=TEMPLATED),
        Visit("/appointments", text=TEMPLATED),
        Visit("/"),  # the home page shows the three soonest visits only
    )),
    SiteCase("forum", steps=(
        Write("/api/questions", {"title": "Why {payload}", "tags": ["css"],
                                 "body": "Text {payload}\n\n$ echo {payload}"}, 201,
              keep=("question", "question.id")),
        Write("/api/questions/{question}/answers", {"body": "Answer {payload}"}, 201),
        Write("/api/posts/{question}/comments", {"body": "Comment {payload}"}, 201),
        Write("/api/settings", {"display_name": "x<script>", "about": "{payload}", **SETTINGS}, 200,
              method="PUT"),
        Visit("/questions/{question}", text="window.__pwned = 1", count=3),
        Visit("/"),
        Visit("/posts/{question}/revisions"),
        Visit("/settings"),
        Visit("/users/{b[user][id]}"),
    )),
    # The course platform refuses angle brackets where text is kept; what it keeps is shown as text.
    SiteCase("learn", steps=(
        Write("/api/topics/{b[reply][topic_id]}/posts", {"body": "Hi {payload}"}, 422),
        Write("/api/courses/{b[announce][course_id]}/announcements",
              {"title": "News {payload}", "body": "Body text"}, 422),
        Write("/api/calendar/reminders", {"title": "{payload}", "date": "{b[extended][new_date]}"}, 422),
        Write("/api/submissions/{b[grade][submission_id]}/grade", {"score": 15, "feedback": "{payload}"}, 422),
        Write("/api/topics/{b[reply][topic_id]}/posts", {"body": "{quotes}"}, 201),
        Write("/api/courses/{b[announce][course_id]}/announcements", {"title": "{quotes}", "body": "{quotes}"}, 201),
        Write("/api/calendar/reminders", {"title": "{quotes}", "date": "{b[extended][new_date]}"}, 201),
        Write("/api/submissions/{b[grade][submission_id]}/grade", {"score": 15, "feedback": "{quotes}"}, 200),
        Visit(LEARN_REPLY_PAGE, text=TEMPLATED),
        Visit("/courses/{b[announce][course_id]}/announcements", text=TEMPLATED),
        Visit("/calendar?month={b[extended][new_date]}", text=TEMPLATED),
        Visit(LEARN_GRADE_PAGE),  # the feedback is kept in the textarea (a value, not page text)
        Visit("/", text=TEMPLATED),
    )),
    # A seeded phishing notice carries markup in its body, and the user writes a message with it too.
    SiteCase("mail", faults=[{"type": "phishing_message", "layer": "seed",
                              "params": {"subject": "Verify <b>now</b>",
                                         "body": f"Dear user, {PAYLOAD} confirm today."}}], steps=(
        Visit("/message/{b[phishing_message_id]}", text="window.__pwned = 1"),
        Write("/api/messages/send", {"to": ["someone@northwind.test"], "subject": "{payload}",
                                     "body": "{payload}"}, 201, keep=("sent", "message.id")),
        Visit("/message/{sent}"),
    )),
    # Markup in a guest's name is refused; special requests and a searched city are shown as text.
    SiteCase("travel", steps=(
        Write("/api/bookings", {**STAY, "first_name": "x{payload}", "last_name": "y"}, 422),
        Write("/api/bookings", {**STAY, "first_name": "Ada", "last_name": "Lovelace",
                                "requests": "Please {payload}"}, 201, keep=("booking", "booking.id")),
        Visit("/trips/{booking}", text="window.__pwned = 1", exact=True),
        Visit("/trips"),
        Visit("/hotels?city=%3Cscript%3Ewindow.__pwned%3D3%3C%2Fscript%3E"),
    )),
)


def fill(template: Any, names: dict[str, Any]) -> Any:
    """The template with every string in it formatted from `names` (dicts and lists walked)."""
    if isinstance(template, str):
        return template.format(**names)
    if isinstance(template, dict):
        return {key: fill(value, names) for key, value in template.items()}
    if isinstance(template, list):
        return [fill(value, names) for value in template]
    return template


def dig(reply: Any, dotted: str) -> Any:
    for key in dotted.split("."):
        reply = reply[key]
    return reply


FETCH = """async ([method, url, body]) => {
    const r = await fetch(url, {method, headers: {'content-type': 'application/json'}, body: JSON.stringify(body)});
    const text = await r.text();
    try { return [r.status, JSON.parse(text)]; } catch { return [r.status, text]; }
}"""
# A broken image is `complete` once its error task (which runs onerror) has run.
IMAGES_SETTLED = "() => Array.from(document.images).every(image => image.complete)"
INLINE_SCRIPTS_WITH_PAYLOAD = "els => els.filter(e => e.textContent.includes('__pwned')).length"


async def visit(page: Page, url: str, step: Visit) -> None:
    await page.goto(url, wait_until="load")
    await page.wait_for_function(IMAGES_SETTLED)
    assert await page.evaluate("window.__pwned") is None, url
    assert await page.locator("script:not([src])").evaluate_all(INLINE_SCRIPTS_WITH_PAYLOAD) == 0, url
    if step.text is not None:
        shown = await page.get_by_text(step.text, exact=False).count()
        assert shown == step.count if step.exact else shown >= step.count, (url, step.text, shown)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browsers() -> AsyncIterator[BrowserPool]:
    async with BrowserPool() as pool:
        yield pool


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("case", CASES, ids=[case.site for case in CASES])
async def test_markup_in_written_text_is_shown_as_text(
        case: SiteCase, stack: Services, browsers: BrowserPool, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    episode = f"{case.site}-escape"
    try:
        info = await oracle.create_episode(site=case.site, task_id="escaping", seed=SEED, episode_id=episode,
                                           faults=case.faults)
        proxy = (await control.open_episode(episode, SEED, [], tmp_path / "ep"))["proxy_url"]
        names: dict[str, Any] = {"payload": case.payload, "quotes": QUOTES, "b": info["bindings"]}
        context = await browsers.new_context(proxy)
        try:
            page = await context.new_page()
            await page.goto(f"{info['base_url']}/", wait_until="load")  # fetch needs a page on the site
            for step in case.steps:
                if isinstance(step, Visit):
                    await visit(page, info["base_url"] + fill(step.path, names), step)
                    continue
                path = fill(step.path, names)
                status, reply = await page.evaluate(FETCH, [step.method, path, fill(step.body, names)])
                assert status == step.status, (step.method, path, status, reply)
                if step.keep is not None:
                    names[step.keep[0]] = dig(reply, step.keep[1])
        finally:
            await context.close()
        await control.close_episode(episode)
    finally:
        await oracle.close()
        await control.close()

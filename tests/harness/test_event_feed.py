"""`ep.events()` and `ep.wait_for()` by push: long polls at the oracle and the proxy's control API that the
event itself answers. Real stack, real HTTP; browserless: an aiohttp agent on the episode's proxy, and GUI
actions posted to the proxy's recorder endpoint as the injected script posts them."""

import asyncio
import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio

import webchaos
from scenarios.feed import MAX_READERS, MAX_WAIT_S
from scenarios.secret import SECRET_HEADER

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
# A guard on awaits that push answers at once and a timer would answer only after MAX_WAIT_S: it never
# measures speed, it only keeps a broken wake-up from passing (or hanging the suite).
GUARD_S = MAX_WAIT_S / 3


@pytest_asyncio.fixture(loop_scope="module")
async def session() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as made:
        yield made


class Agent:
    """A scripted HTTP agent on the episode's proxy that also reports GUI actions, like the injected recorder."""

    def __init__(self, ep: webchaos.Episode, session: aiohttp.ClientSession) -> None:
        self.ep, self.session = ep, session

    async def get(self, path: str) -> None:
        async with self.session.get(f"http://shop.test{path}", proxy=self.ep.proxy_url) as response:
            await response.read()

    async def click(self, name: str) -> None:
        action = {"kind": "click", "t": time.time() * 1000, "page": "/", "target": {"role": "button", "name": name}}
        async with self.session.post("http://shop.test/__webchaos/actions", proxy=self.ep.proxy_url,
                                     json={"actions": [action]}) as response:
            assert response.status == 204, await response.text()


class Readers:
    """How many long polls wait right now, at the oracle (events) and at the proxy (actions)."""

    def __init__(self, stack: webchaos.Stack, session: aiohttp.ClientSession) -> None:
        self.services, self.session = stack.services, session

    async def now(self, episode_id: str) -> tuple[int, int]:
        headers = {SECRET_HEADER: self.services.secret}
        async with self.session.get(f"{self.services.oracle_url}/episodes/{episode_id}", headers=headers) as r:
            site = int((await r.json())["readers"]) if r.status == 200 else 0
        async with self.session.get(f"{self.services.control_url}/health", headers=headers) as r:
            gui = int((await r.json())["readers"].get(episode_id, 0))
        return site, gui

    async def until(self, episode_id: str, wanted: tuple[int, int]) -> None:
        async with asyncio.timeout(GUARD_S):  # the test's own check polls; the readers it watches do not
            while True:
                if await self.now(episode_id) == wanted:
                    return
                await asyncio.sleep(0.02)


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_events_come_in_order_without_gaps_or_repeats_while_the_episode_runs(
        api_stack: webchaos.Stack, session: aiohttp.ClientSession) -> None:
    got: list[dict[str, Any]] = []
    arrived = asyncio.Condition()

    async def read(ep: webchaos.Episode) -> None:
        async for event in ep.events():
            async with arrived:
                got.append(event)
                arrived.notify_all()

    async def until_got(count: int) -> None:
        async with asyncio.timeout(GUARD_S), arrived:
            await arrived.wait_for(lambda: len(got) >= count)

    async with api_stack.episode("shop_add_to_cart", seed=2, cdp=False) as ep:
        agent, readers = Agent(ep, session), Readers(api_stack, session)
        reader = asyncio.ensure_future(read(ep))
        product = ep._live.opened.bindings["target"]["id"]
        steps = [agent.get("/"), agent.click("Search"), agent.get(f"/product/{product}"), agent.click("Add to cart"),
                 agent.click("Cart"), agent.get("/cart"), agent.get("/")]
        for count, step in enumerate(steps, start=1):
            # The reader waits at both ends, holding one request each: no polling.
            await readers.until(ep.id, (1, 1))
            await step
            await until_got(count)  # each event reaches the reader while the episode is open
        await ep.grade()
    await asyncio.wait_for(reader, GUARD_S)  # the episode closed: the stream ends by itself
    site = [{k: v for k, v in e.items() if k != "source"} for e in got if e["source"] == "site"]
    gui = [e["seq"] for e in got if e["source"] == "gui"]
    assert site == jsonl(ep.out_dir / "events.jsonl") and [e["seq"] for e in site] == list(range(len(site)))
    assert gui == [a["seq"] for a in jsonl(ep.out_dir / "actions.jsonl")] == [1, 2, 3]
    assert [e["name"] for e in got if e["source"] == "gui"] == ["Search", "Add to cart", "Cart"]


async def test_a_waiting_long_poll_is_answered_by_the_event(api_stack: webchaos.Stack,
                                                           session: aiohttp.ClientSession) -> None:
    headers = {SECRET_HEADER: api_stack.services.secret}
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep:
        agent, readers = Agent(ep, session), Readers(api_stack, session)
        await agent.get("/")

        async def long_poll(url: str) -> tuple[int, Any]:
            async with session.get(url, headers=headers, params={"since": 1, "wait_s": MAX_WAIT_S}) as r:
                return r.status, await r.json()

        events = asyncio.ensure_future(long_poll(f"{api_stack.services.oracle_url}/episodes/{ep.id}/events"))
        actions = asyncio.ensure_future(long_poll(f"{api_stack.services.control_url}/episodes/{ep.id}/actions"))
        await readers.until(ep.id, (1, 1))  # both requests are parked
        await agent.get("/cart")
        status, answer = await asyncio.wait_for(events, GUARD_S)
        assert status == 200 and [(e["seq"], e["name"]) for e in answer] == [(1, "view_cart")]
        assert not actions.done()  # a site event wakes only its own feed
        await agent.click("Checkout")
        await agent.click("Place order")
        status, answer = await asyncio.wait_for(actions, GUARD_S)
        # since=1: the first action woke it but is not what it asked for; the second answers it
        assert status == 200 and [a["target"]["name"] for a in answer] == ["Place order"]
        assert await readers.now(ep.id) == (0, 0)


async def test_readers_on_a_closing_or_closed_episode_end_cleanly(api_stack: webchaos.Stack,
                                                                 session: aiohttp.ClientSession) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=3, cdp=False) as ep:
        agent, readers = Agent(ep, session), Readers(api_stack, session)
        await agent.get("/")
        await agent.click("Search")
        early = [event async for event in _until_closed(ep, readers, ep.grade())]
    assert sorted((e["source"], e["name"]) for e in early) == [("gui", "Search"), ("site", "view_home")]
    late = [event async for event in ep.events()]  # read after the close: the whole stream again
    for source in ("site", "gui"):
        assert [e for e in late if e["source"] == source] == [e for e in early if e["source"] == source]
    from_files = [event async for event in webchaos.Episode(ep._live).events()]  # a reader new after the close
    for source in ("site", "gui"):
        assert [e for e in from_files if e["source"] == source] == [e for e in early if e["source"] == source]
    home = next(e for e in early if e["source"] == "site")
    assert await ep.wait_for(kind="navigate", name="view_home", timeout_s=GUARD_S) == home
    with pytest.raises(webchaos.WebchaosError, match="closed before"):
        await ep.wait_for(kind="commit", timeout_s=GUARD_S)
    headers = {SECRET_HEADER: api_stack.services.secret}
    for url in (f"{api_stack.services.oracle_url}/episodes/{ep.id}/events",
                f"{api_stack.services.control_url}/episodes/{ep.id}/actions"):
        async with session.get(url, headers=headers, params={"wait_s": 5}) as r:
            assert r.status in (404, 410), (url, r.status)


async def _until_closed(ep: webchaos.Episode, readers: Readers, close: Any) -> AsyncIterator[dict[str, Any]]:
    """Read the stream; close the episode once the reader is parked with everything read."""
    closing: asyncio.Future[Any] | None = None
    async for event in ep.events():
        yield event
        if event["source"] == "gui" and closing is None:
            await readers.until(ep.id, (1, 1))
            closing = asyncio.ensure_future(close)
    assert closing is not None
    await closing


async def test_the_long_polls_keep_the_control_planes_rules(api_stack: webchaos.Stack,
                                                            session: aiohttp.ClientSession) -> None:
    services = api_stack.services
    async with api_stack.episode("shop_add_to_cart", seed=1, cdp=False) as ep:
        urls = (f"{services.oracle_url}/episodes/{ep.id}/events", f"{services.control_url}/episodes/{ep.id}/actions")
        for url in urls:
            for headers in ({}, {SECRET_HEADER: "not-the-secret"}):
                async with session.get(url, headers=headers, params={"wait_s": MAX_WAIT_S}) as r:
                    assert r.status == 401, url
            for wait_s in (str(MAX_WAIT_S + 1), "-1", "soon", "nan"):
                async with session.get(url, headers={SECRET_HEADER: services.secret},
                                       params={"wait_s": wait_s}) as r:
                    assert r.status == 422, (url, wait_s)
                    assert "wait_s" in await r.text()
        # At most MAX_READERS wait per episode; one more is refused, and the close releases them all.
        headers = {SECRET_HEADER: services.secret}

        async def park(url: str) -> int:
            async with session.get(url, headers=headers, params={"since": 5, "wait_s": MAX_WAIT_S}) as r:
                await r.read()
                return r.status

        parked = [asyncio.ensure_future(park(url)) for url in urls for _ in range(MAX_READERS)]
        readers = Readers(api_stack, session)
        await readers.until(ep.id, (MAX_READERS, MAX_READERS))
        for url in urls:
            async with session.get(url, headers=headers, params={"since": 5, "wait_s": MAX_WAIT_S}) as r:
                assert r.status == 429 and "at most" in await r.text()
        await ep.grade()
    statuses = await asyncio.wait_for(asyncio.gather(*parked), GUARD_S)
    assert set(statuses) <= {404, 410} and statuses


async def test_readers_that_come_and_go_share_one_long_poll_at_each_end(api_stack: webchaos.Stack,
                                                                        session: aiohttp.ClientSession) -> None:
    async with api_stack.episode("shop_add_to_cart", seed=4, cdp=False) as ep:
        agent, readers = Agent(ep, session), Readers(api_stack, session)
        # More wait_for calls than an episode may have waiting readers: each one stops reading when it has
        # its event, and none leaves a request of its own parked at either end.
        for count in range(1, MAX_READERS + 3):
            await agent.get("/")
            home = await ep.wait_for(kind="navigate", name="view_home", count=count, timeout_s=GUARD_S)
            assert home["seq"] == count - 1
        await readers.until(ep.id, (1, 1))
        both = [ep.events(), ep.events()]
        firsts = [await anext(stream) for stream in both]
        assert firsts[0] == firsts[1] and firsts[0]["seq"] == 0
        await readers.until(ep.id, (1, 1))

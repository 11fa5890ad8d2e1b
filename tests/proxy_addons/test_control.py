"""Closing an episode waits for the writes at the site until their answers have gone to the client."""

import asyncio
from pathlib import Path

from mitmproxy import http
from mitmproxy.test import tflow, tutils

from proxy_addons.control import settle_writes, writes_in_flight
from proxy_addons.episodes import ProxyEpisode
from proxy_addons.ledger import marks
from tests.proxy_addons.conftest import Chain


def write(episode: ProxyEpisode, method: str = "POST", forwarded: bool = True) -> http.HTTPFlow:
    flow = tflow.tflow(req=tutils.treq(method=method.encode()))
    if forwarded:
        marks(flow)["forwarded"] = True
    episode.flows[flow.id] = flow
    return flow


async def test_a_write_counts_until_the_last_addon_has_seen_its_answer(chain: Chain) -> None:
    episode = chain.open()
    flow = chain.flow(episode, "POST", "http://shop.test/api/cart", b"{}")
    await chain.hook("requestheaders", flow)
    await chain.hook("request", flow)
    marks(flow)["forwarded"] = True  # as router.ClientView marks it, every fault having let it go
    assert writes_in_flight(episode) == 1
    flow.response = http.Response.make(201, b"{}")  # the head has arrived; the hooks have not run
    await chain.hook("responseheaders", flow)
    assert writes_in_flight(episode) == 1
    await chain.hook("response", flow)  # the recorder's tail, last, keeps the HAR entry: mitmproxy writes next
    assert not isinstance(episode.flows[flow.id], http.HTTPFlow)
    assert writes_in_flight(episode) == 0


def test_held_reads_and_failed_writes_do_not_count(tmp_path: Path) -> None:
    episode = ProxyEpisode("e", 1, tmp_path, 0)
    write(episode, forwarded=False)  # held by a fault: never reached the site
    write(episode, method="GET")
    failed = write(episode)
    failed.error = tflow.terr()
    assert writes_in_flight(episode) == 0


async def test_settle_returns_once_the_answer_is_out_and_gives_up_at_its_bound(tmp_path: Path) -> None:
    episode = ProxyEpisode("e", 1, tmp_path, 0)
    flow = write(episode)

    loop = asyncio.get_running_loop()
    answered_at: list[float] = []
    settled_at: list[float] = []

    async def answer() -> None:
        await asyncio.sleep(0.05)
        episode.flows[flow.id] = {"response": {"status": 201}}  # the recorder's tail: answered, written next
        answered_at.append(loop.time())

    async def settle() -> None:
        await settle_writes(episode, timeout_s=30.0)
        settled_at.append(loop.time())

    started = loop.time()
    await asyncio.gather(settle(), answer())
    # it waited for the answer, and returned once it was out, long before its bound
    assert answered_at[0] <= settled_at[0] < started + 30.0, (answered_at, settled_at, started)
    write(episode)  # never answered
    started = loop.time()
    await settle_writes(episode, timeout_s=0.1)
    assert loop.time() - started >= 0.09

"""Closing an episode waits for the writes at the site until their answers have gone to the client."""

import asyncio
from pathlib import Path

from mitmproxy import http
from mitmproxy.test import tflow, tutils

from proxy_addons.control import ANSWER_WRITE_S, settle_writes, writes_in_flight
from proxy_addons.episodes import Episode
from proxy_addons.ledger import marks
from proxy_addons.router import ClientView


def write(episode: Episode, method: str = "POST", forwarded: bool = True) -> http.HTTPFlow:
    flow = tflow.tflow(req=tutils.treq(method=method.encode()))
    if forwarded:
        marks(flow)["forwarded"] = True
    episode.flows[flow.id] = flow
    return flow


def test_a_write_counts_until_every_hook_has_seen_its_answer_and_it_had_time_to_go_out(tmp_path: Path) -> None:
    episode = Episode("e", 1, tmp_path, 0)
    flow = write(episode)
    assert writes_in_flight(episode) == 1
    flow.response = tutils.tresp()  # the head has arrived; the hooks (and the write to the client) have not run
    assert writes_in_flight(episode) == 1
    ClientView().response(flow)  # last in the chain
    stamped = marks(flow)["answered_at"]
    assert writes_in_flight(episode, now=stamped) == 1
    assert writes_in_flight(episode, now=stamped + ANSWER_WRITE_S) == 0


def test_held_reads_and_failed_writes_do_not_count(tmp_path: Path) -> None:
    episode = Episode("e", 1, tmp_path, 0)
    write(episode, forwarded=False)  # held by a fault: never reached the site
    write(episode, method="GET")
    failed = write(episode)
    failed.error = tflow.terr()
    assert writes_in_flight(episode) == 0


async def test_settle_returns_once_the_answer_is_out_and_gives_up_at_its_bound(tmp_path: Path) -> None:
    episode = Episode("e", 1, tmp_path, 0)
    flow = write(episode)

    async def answer() -> None:
        await asyncio.sleep(0.05)
        flow.response = tutils.tresp()
        ClientView().response(flow)

    loop = asyncio.get_running_loop()
    started = loop.time()
    await asyncio.gather(settle_writes(episode, timeout_s=1.0), answer())
    assert 0.05 + ANSWER_WRITE_S <= loop.time() - started < 0.5
    write(episode)  # never answered
    started = loop.time()
    await settle_writes(episode, timeout_s=0.1)
    assert loop.time() - started >= 0.09

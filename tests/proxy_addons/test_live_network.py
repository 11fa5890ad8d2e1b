"""Every network fault type through a real mitmdump (the documented stack command) in front of a real
site, seen by a real HTTP client (aiohttp): what the client gets, what the site got, the ledger and HAR."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.proxy_addons.live import Stack, run_stack
from tests.proxy_addons.netlive import BIG, CountingSite

pytestmark = pytest.mark.asyncio(loop_scope="module")
SHOP = "http://shop.test"


@pytest.fixture(scope="module")
def site() -> Iterator[CountingSite]:
    server = CountingSite().start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def proxy(site: CountingSite, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    yield from run_stack(site.port, tmp_path_factory.mktemp("netstack"))


@dataclass
class Ep:
    proxy: str
    session: aiohttp.ClientSession
    out_dir: Path
    ledger: list[dict[str, Any]] = field(default_factory=list)
    har: dict[str, Any] = field(default_factory=dict)

    async def call(self, method: str, path: str, **kw: Any) -> tuple[int, bytes, dict[str, str], float]:
        start = time.monotonic()
        async with self.session.request(method, SHOP + path, proxy=self.proxy, allow_redirects=False, **kw) as r:
            body = await r.read()
            return r.status, body, dict(r.headers), (time.monotonic() - start) * 1000


_COUNTER = iter(range(1, 10_000))


@asynccontextmanager
async def episode(stack: Stack, tmp_path: Path, faults: list[dict[str, Any]], seed: int = 1) -> AsyncIterator[Ep]:
    name = f"net-{next(_COUNTER)}"
    out_dir = tmp_path / name
    async with aiohttp.ClientSession(headers=stack.auth) as control:
        async with control.post(f"{stack.control}/episodes", json={
                "episode_id": name, "seed": seed, "out_dir": str(out_dir), "faults": faults}) as r:
            assert r.status == 201, await r.text()
            proxy = (await r.json())["proxy_url"]
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as session:
            ep = Ep(proxy, session, out_dir)
            try:
                yield ep
            finally:
                async with control.delete(f"{stack.control}/episodes/{name}") as r:
                    assert r.status == 200
    ep.ledger = [json.loads(line) for line in (out_dir / "faults.jsonl").read_text().splitlines()]
    ep.har = json.loads((out_dir / "trace.har").read_text())


def net(kind: str, path: str, params: dict[str, Any] | None = None, **envelope: Any) -> dict[str, Any]:
    return {"type": kind, "layer": "network", "match": {"host": "shop.test", "path": path},
            "params": params or {}, **envelope}


async def test_swallowed_write_never_reaches_the_site(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    async with episode(proxy, tmp_path, [net("swallowed_write", "/sw/api/cart*")]) as ep:
        status, body, _, _ = await ep.call("POST", "/sw/api/cart", json={"product_id": "p001", "quantity": 1})
        assert status == 201
        echoed = json.loads(body)
        assert echoed["ok"] is True and echoed["product_id"] == "p001"
        status, _, _, _ = await ep.call("GET", "/sw/api/cart")
        assert status == 200
    assert site.count("POST", "/sw/api/cart") == 0  # the backend never saw the write
    assert site.count("GET", "/sw/api/cart") == 1
    assert [(x["type"], x["detail"]["forwarded"]) for x in ep.ledger] == [("swallowed_write", False)]
    (entry,) = [e for e in ep.har["log"]["entries"] if e["request"]["method"] == "POST"]
    assert entry["_webchaos"][0]["type"] == "swallowed_write" and entry["response"]["status"] == 201


async def test_duplicate_submit_reaches_the_site_twice(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    async with episode(proxy, tmp_path, [net("duplicate_submit", "/dup/*")]) as ep:
        status, _, _, _ = await ep.call("POST", "/dup/api/orders", json={"x": 1})
        assert status == 201
    assert site.count("POST", "/dup/api/orders") == 2
    assert ep.ledger[0]["detail"] == {"first_status": 201, "answer": "first"}


async def test_hang_ends_at_its_timeout(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    # Not before its timeout, and it does end (how close to the timeout: benchmarks/latency_accuracy.py)
    async with episode(proxy, tmp_path, [net("hang", "/hang/a", {"timeout_ms": 400}),
                                         net("hang", "/hang/b", {"timeout_ms": 400, "then": "reset"})]) as ep:
        status, _, _, took = await asyncio.wait_for(ep.call("GET", "/hang/a", headers={"accept": "application/json"}),
                                                    30)
        assert status == 504 and took >= 400, (status, took)
        start = time.monotonic()
        with pytest.raises(aiohttp.ClientError):
            await asyncio.wait_for(ep.call("GET", "/hang/b"), 30)
        waited_ms = (time.monotonic() - start) * 1000
        assert waited_ms >= 400, waited_ms
    assert site.count("GET", "/hang/a") == site.count("GET", "/hang/b") == 0
    assert {(x["type"], x["request"]["path"]) for x in ep.ledger} == {("hang", "/hang/a"), ("hang", "/hang/b")}


async def test_errors_as_the_client_sees_them(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    faults = [
        net("error_then_success", "/err/ets", {"status": 503, "retry_after_s": 1}),
        net("error", "/err/always", {"status": 502}),
        net("intermittent_error", "/err/flaky", {"status": 500}),
        net("rate_limit", "/err/limited", {"burst": 2, "cooldown_ms": 5000}),
        net("reset", "/err/reset"),
        net("reset", "/err/reset-after", {"phase": "after_upstream"}),
        net("truncate", "/err/short/big", {"keep_bytes": 100}),
        net("truncate", "/err/cut/big", {"keep_bytes": 100, "mode": "close"}),
        net("offline_window", "/err/offline*", {"how": "error"}),
        net("concurrent_modification", "/err/conflict"),
    ]
    async with episode(proxy, tmp_path, faults, seed=4) as ep:
        assert [(await ep.call("POST", "/err/ets"))[0] for _ in range(2)] == [503, 201]
        assert (await ep.call("GET", "/err/always"))[0] == 502
        flaky = [(await ep.call("GET", "/err/flaky"))[0] for _ in range(12)]
        assert set(flaky) == {200, 500}
        limited = [await ep.call("GET", "/err/limited") for _ in range(4)]
        assert [x[0] for x in limited] == [200, 200, 429, 429]
        assert limited[2][2]["Retry-After"] == "5"
        with pytest.raises(aiohttp.ClientError):
            await ep.call("POST", "/err/reset")
        with pytest.raises(aiohttp.ClientError):
            await ep.call("POST", "/err/reset-after")
        status, body, _, _ = await ep.call("GET", "/err/short/big")
        assert status == 200 and body == BIG[:100]
        with pytest.raises(aiohttp.ClientPayloadError):
            await ep.call("GET", "/err/cut/big")
        assert (await ep.call("GET", "/err/offline"))[0] == 503  # the default window: the first 5 s
        status, body, _, _ = await ep.call("PUT", "/err/conflict", headers={"accept": "application/json"})
        assert status == 409 and b"changed by someone else" in body
        assert (await ep.call("PUT", "/err/conflict"))[0] == 201
    assert site.count("POST", "/err/ets") == 1 and site.count("GET", "/err/always") == 0
    assert site.count("POST", "/err/reset") == 0 and site.count("POST", "/err/reset-after") == 1
    assert site.count("GET", "/err/limited") == 2 and site.count("PUT", "/err/conflict") == 1
    fired = {x["type"] for x in ep.ledger}
    assert fired == {f["type"] for f in faults}


async def test_timing_as_the_client_sees_it(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    faults = [
        net("latency_distribution", "/t/dist", {"p50_ms": 150, "p95_ms": 200, "p99_ms": 250}),
        net("progressive_latency", "/t/prog", {"start_ms": 0, "step_ms": 150}),
        net("write_only_slow", "/t/wos", {"delay_ms": 300}),
        net("slow_first_byte", "/t/sfb", {"delay_ms": 300}),
        net("bandwidth", "/t/bw/big", {"rate_bps": 40000}),
    ]
    async with episode(proxy, tmp_path, faults) as ep:
        dist = (await ep.call("GET", "/t/dist"))[3]
        prog = [(await ep.call("GET", "/t/prog"))[3] for _ in range(3)]
        read_status = (await ep.call("GET", "/t/wos"))[0]
        status, _, _, write_ms = await ep.call("POST", "/t/wos", json={})
        answered_at = time.monotonic()
        sfb = (await ep.call("GET", "/t/sfb"))[3]
        # bandwidth: headers at once, then the body trickles in at about 40 kB/s
        start = time.monotonic()
        async with ep.session.get(SHOP + "/t/bw/big", proxy=ep.proxy) as r:
            headers_ms = (time.monotonic() - start) * 1000
            first = await r.content.readany()
            rest = await r.read()
        total_ms = (time.monotonic() - start) * 1000
    delays: dict[tuple[str, str], list[Any]] = {}  # request -> the delays the ledger says were drawn, in order
    for x in ep.ledger:
        delays.setdefault((x["request"]["method"], x["request"]["path"]), []).append(x["detail"].get("delay_ms"))
    # every client waited at least what the proxy drew for it; the drawn delays follow the parameters
    (dist_delay,) = delays["GET", "/t/dist"]
    assert dist >= dist_delay > 0, (dist, dist_delay)
    assert delays["GET", "/t/prog"] == [0, 150, 300]
    assert prog[1] >= 150 and prog[2] >= 300, prog
    # write_only_slow: the read was not held (no firing); the write reached the site at once and its answer
    # came 300 ms after the site had committed it
    assert read_status == 200 and ("GET", "/t/wos") not in delays
    assert status == 201 and delays["POST", "/t/wos"] == [300]
    committed_ms = (answered_at - site.last_arrival("POST", "/t/wos")) * 1000
    assert committed_ms >= 300 and write_ms >= 300, (committed_ms, write_ms)
    assert sfb >= 300 and delays["GET", "/t/sfb"] == [300], sfb
    # the body came in pieces, and most of the time it took was after the headers (the trickle)
    assert first + rest == BIG and len(first) < len(BIG) / 2, len(first)
    assert total_ms - headers_ms >= 1000 * len(BIG) / 40000 / 2, (headers_ms, total_ms)
    entry = next(e for e in ep.har["log"]["entries"] if e["request"]["url"].endswith("/t/bw/big"))
    assert entry["_webchaos"][0]["type"] == "bandwidth"
    assert {x["type"] for x in ep.ledger} == {f["type"] for f in faults}


async def test_lies_as_the_client_sees_them(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    faults = [
        net("misleading_success", "/lie/refuse"),
        net("stale_response", "/lie/state", {"window_ms": 60000}),
        net("body_patch", "/lie/page", {"find": "In stock", "replace": "Sold out"}),
        net("header_patch", "/lie/cookie", {"remove_headers": ["set-cookie"]}),
        net("session_expiry", "/lie/members/*"),
    ]
    async with episode(proxy, tmp_path, faults) as ep:
        status, body, _, _ = await ep.call("POST", "/lie/refuse", json={"q": 1},
                                           headers={"accept": "application/json"})
        assert status == 201 and json.loads(body)["ok"] is True  # the site said 409
        first = json.loads((await ep.call("GET", "/lie/state"))[1])
        await ep.call("POST", "/lie/write", json={})
        again = json.loads((await ep.call("GET", "/lie/state"))[1])
        assert again == first  # the answer from before the write
        assert b"Sold out" in (await ep.call("GET", "/lie/page"))[1]
        assert "Set-Cookie" not in (await ep.call("GET", "/lie/cookie"))[2]
        status, _, headers, _ = await ep.call("GET", "/lie/members/orders", headers={"accept": "text/html"})
        assert status == 302 and headers["Location"] == "/login?next=/lie/members/orders&expired=1"
        assert (await ep.call("GET", "/lie/members/x", headers={"accept": "application/json"}))[0] == 401
        assert (await ep.call("POST", "/login", data=b"user=a"))[0] == 201  # signing in goes through
        assert (await ep.call("GET", "/lie/members/orders"))[0] == 200
    assert site.count("POST", "/lie/refuse") == 1 and site.count("GET", "/lie/members/orders") == 1
    assert [x["type"] for x in ep.ledger].count("session_expiry") == 2
    assert {x["type"] for x in ep.ledger} == {f["type"] for f in faults}


async def test_plain_latency_still_delays_only_its_match(proxy: Stack, site: CountingSite, tmp_path: Path) -> None:
    # 1.5 s: the plain request, sent at the same moment, reaches the site first even when the machine stalls it
    # for hundreds of ms (at 300 ms, one stall of a fresh connection once let the held request arrive first)
    async with episode(proxy, tmp_path, [net("latency", "/lat/slow", {"delay_ms": 1500})]) as ep:
        slow, _ = await asyncio.gather(ep.call("GET", "/lat/slow"), ep.call("GET", "/lat/fast"))
        assert slow[3] >= 1500
    # the unmatched request was not held with it: the site saw it first, and the fault fired once, for the match
    seen = [path for _, path in site.seen if path.startswith("/lat/")]
    assert seen.index("/lat/fast") < seen.index("/lat/slow")
    assert [(x["type"], x["request"]["path"]) for x in ep.ledger] == [("latency", "/lat/slow")]


async def test_a_write_held_past_the_sites_keep_alive_timeout_still_lands(proxy: Stack, site: CountingSite,
                                                                          tmp_path: Path) -> None:
    # One client connection: a GET, then a POST held for 1.2 s. In an episode with a delay both go through the
    # gate on one connection, and the site closes that idle connection (after keepalive_s) during the hold.
    # The gate used to pass the close on, failing the write with "server closed connection" (bank's cancel).
    async with episode(proxy, tmp_path, [net("latency", "/ka/held", {"delay_ms": 1200})]) as ep:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as keep_alive:
            ep.session = keep_alive
            assert (await ep.call("GET", "/ka/first"))[0] == 200
            await asyncio.sleep(0.3)  # idle since the answer: the site hangs up 0.7 s into the hold
            status, body, _, ms = await ep.call("POST", "/ka/held", json={"n": 1})
    assert status == 201 and json.loads(body)["saved"] and ms >= 1200
    assert site.count("POST", "/ka/held") == 1
    assert not [e for e in ep.har["log"]["entries"] if e["response"]["status"] == 0]

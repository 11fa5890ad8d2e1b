"""Every network fault type through the real addon chain (taddons/tflow): fires on its match only,
respects its schedule, repeats its seeded sequence, and does what it says to the flow."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mitmproxy import http

from proxy_addons.network import lies
from proxy_addons.network.gate import GATE, GATE_HEADER
from proxy_addons.network.relay import RELAY, RELAY_HEADER, shutdown
from scenarios.faults import FaultError, registry
from tests.proxy_addons.conftest import Chain, ledger

NETWORK_TYPES = sorted(kind.name for kind in registry().values() if kind.layer.value == "network")


@pytest.fixture(autouse=True)
async def _relay_down() -> AsyncIterator[None]:
    yield
    await shutdown()


@pytest.fixture
def replays(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """duplicate_submit's upstream replay, recorded instead of sent (the live test sends it)."""
    seen: list[str] = []

    async def fake(flow: http.HTTPFlow) -> tuple[int, dict[str, str], bytes]:
        seen.append(f"{flow.request.method} {flow.request.path}")
        return 201, {"content-type": "application/json"}, b'{"second": true}'

    monkeypatch.setattr(lies, "replay", fake)
    return seen


def fault(kind: str, params: dict[str, Any] | None = None, **envelope: Any) -> dict[str, Any]:
    return {"type": kind, "layer": "network", "params": params or {}, **envelope}


UPSTREAM_TEXT = b"upstream says hello"


def upstream(status: int = 200, body: bytes = UPSTREAM_TEXT, content_type: str = "text/plain") -> http.Response:
    return http.Response.make(status, body, {"content-type": content_type})


async def send(chain: Chain, ep: Any, method: str = "POST", path: str = "/api/hit",
               response: http.Response | None = None, headers: dict[str, str] | None = None,
               content: bytes = b"") -> http.HTTPFlow:
    f = chain.flow(ep, method, f"http://shop.test{path}", content, headers)
    f.live = True  # killable, as in a running proxy
    await chain.hook("requestheaders", f)
    await chain.hook("request", f)
    if f.error is not None:
        return f
    if f.response is None:
        f.response = response or upstream()
        await chain.hook("responseheaders", f)
    await chain.hook("response", f)
    return f


# One firing request per type: (params, method, upstream answer). Together they show every type fires.
HITS: dict[str, tuple[dict[str, Any], str, http.Response | None]] = {
    "latency": ({"delay_ms": 1}, "POST", None),
    "latency_distribution": ({"p50_ms": 2, "p95_ms": 5, "p99_ms": 8}, "POST", None),
    "progressive_latency": ({"start_ms": 1, "step_ms": 1}, "POST", None),
    "write_only_slow": ({"delay_ms": 1}, "POST", None),
    "slow_first_byte": ({"delay_ms": 1}, "POST", None),
    "bandwidth": ({"rate_bps": 100000}, "POST", None),
    "hang": ({"timeout_ms": 1}, "POST", None),
    "error": ({"status": 502}, "POST", None),
    "error_then_success": ({}, "POST", None),
    "intermittent_error": ({}, "POST", None),
    "rate_limit": ({"burst": 0}, "POST", None),
    "reset": ({}, "POST", None),
    "truncate": ({"keep_bytes": 3}, "POST", None),
    "offline_window": ({}, "POST", None),
    "swallowed_write": ({}, "POST", None),
    "misleading_success": ({}, "POST", upstream(500)),
    "duplicate_submit": ({}, "POST", None),
    "body_patch": ({"find": "hello", "replace": "bye"}, "POST", None),
    "header_patch": ({"set_headers": {"x-patched": "1"}}, "POST", None),
    "session_expiry": ({}, "POST", None),
    "concurrent_modification": ({}, "POST", None),
}
# Types whose firing depends on earlier traffic, tested on their own below.
STATEFUL = {"stale_response"}


# Types that answer a host of their own, tested beside their client half.
OWN_HOST = {"iframe_widget"}  # tests/proxy_addons/test_frames.py
INTERSTITIALS = {"human_check", "bot_wall"}  # pages of their own before the page: tests/proxy_addons/test_checks.py


def test_every_network_type_is_covered_here() -> None:
    assert set(NETWORK_TYPES) == set(HITS) | STATEFUL | OWN_HOST | INTERSTITIALS


def unchanged(f: http.HTTPFlow) -> bool:
    return (f.error is None and f.response is not None and f.response.status_code == 200
            and f.response.content == UPSTREAM_TEXT and "x-patched" not in f.response.headers
            and RELAY_HEADER not in f.request.headers)


@pytest.mark.parametrize("kind", sorted(HITS))
async def test_fires_on_its_match_only(chain: Chain, kind: str, replays: list[str]) -> None:
    params, method, response = HITS[kind]
    ep = chain.open([fault(kind, params, match={"host": "shop.test", "path": "/api/hit*"},
                           schedule={"mode": "always"})])
    miss = await send(chain, ep, method, "/api/miss", response=None)
    assert unchanged(miss), kind
    other_host = chain.flow(ep, method, "http://mail.test/api/hit")
    await chain.send(other_host)
    hit = await send(chain, ep, method, "/api/hit", response=response)
    lines = ledger(ep)
    assert [(x["type"], x["fault_id"], x["request"]["path"]) for x in lines] == [(kind, f"{kind}#0", "/api/hit")]
    assert ep.firings == 1
    assert hit.metadata["webchaos"]["faults"][0]["type"] == kind  # -> the HAR's _webchaos


@pytest.mark.parametrize("kind", sorted(set(HITS) - {"session_expiry"}))
async def test_schedule_is_respected(chain: Chain, kind: str, replays: list[str]) -> None:
    params, method, response = HITS[kind]
    ep = chain.open([fault(kind, params, schedule={"mode": "every_nth", "n": 2})])
    for _ in range(5):
        await send(chain, ep, method, response=response.copy() if response else None)
    lines = ledger(ep)
    assert len(lines) == 2 and all(x["type"] == kind for x in lines), lines


SEEDED = {
    "latency_distribution": {"p50_ms": 1, "p95_ms": 4, "p99_ms": 6},
    "intermittent_error": {},  # default schedule: intermittent, seeded
    "swallowed_write": {},  # the echoed id
    "latency": {"delay_ms": 2, "jitter_ms": 2},
}


@pytest.mark.parametrize("kind", sorted(SEEDED))
async def test_seeded_sequence_repeats(chain: Chain, kind: str) -> None:
    def run(name: str, seed: int) -> list[tuple[Any, ...]]:
        return [(x["type"], x["request"]["path"], json.dumps(x["detail"], sort_keys=True))
                for x in ledger(chain.episodes.by_id[name])]

    for name, seed in [("a", 5), ("b", 5), ("c", 6)]:
        ep = chain.open([fault(kind, SEEDED[kind])], seed=seed, name=name)
        for i in range(16):
            await send(chain, ep, "POST", f"/api/hit/{i}", content=b'{"q": 1}',
                       headers={"content-type": "application/json"})
    assert run("a", 5) == run("b", 5) and run("a", 5)
    assert run("a", 5) != run("c", 6)


# -- bad specs -------------------------------------------------------------------------


@pytest.mark.parametrize(("raw", "where", "hint"), [
    (fault("latency_distribution", {"p50_ms": 100, "p95_ms": 50, "p99_ms": 200}), "faults[0].params", "p50_ms"),
    (fault("hang", {"timeout_ms": -5}), "faults[0].params.timeout_ms", "greater than or equal to 0"),
    (fault("hang", {"timeout_ms": 5, "then": "explode"}), "faults[0].params.then", "gateway_timeout"),
    (fault("bandwidth", {"rate_bps": 0}), "faults[0].params.rate_bps", "greater than 0"),
    (fault("error", {"status": 200}), "faults[0].params.status", "greater than or equal to 400"),
    (fault("error", {"code": 500}), "faults[0].params.code", "parameters of 'error': status, body, headers"),
    (fault("body_patch", {"replace": "x"}), "faults[0].params", "exactly one of json_field or find"),
    (fault("nope"), "faults[0].type", "known:"),
    (fault("latency", {"delay_ms": 1}, match={"path": "/api/[cart"}), "faults[0].match.path", "not a valid glob"),
    (fault("truncate", {"keep_bytes": 1, "mode": "half"}), "faults[0].params.mode", "short_body"),
])
def test_bad_specs_fail_at_load_with_index_field_and_allowed_values(raw: dict[str, Any], where: str,
                                                                     hint: str) -> None:
    from proxy_addons.episodes import arm_proxy_faults

    with pytest.raises(FaultError) as exc:
        arm_proxy_faults([raw], 1)
    assert str(exc.value).startswith(where), str(exc.value)
    assert hint in str(exc.value)


# -- timing ----------------------------------------------------------------------------


async def timed(chain: Chain, ep: Any, method: str = "GET", path: str = "/api/hit", **kw: Any) -> float:
    start = time.monotonic()
    await send(chain, ep, method, path, **kw)
    return (time.monotonic() - start) * 1000


async def test_latency_distribution_fits_its_targets(chain: Chain) -> None:
    from scenarios.faults import Layer, lookup

    kind = lookup("latency_distribution", Layer.network)
    assert kind is not None
    params = kind.model_validate({"p50_ms": 100, "p95_ms": 400, "p99_ms": 800})
    import math
    import random

    mu, sigma = params.fitted()  # type: ignore[attr-defined]
    assert math.exp(mu) == pytest.approx(100)
    rng = random.Random(3)
    draws = sorted(math.exp(mu + sigma * rng.gauss(0, 1)) for _ in range(20000))
    assert draws[10000] == pytest.approx(100, rel=0.1)
    assert draws[19000] == pytest.approx(400, rel=0.2)
    assert draws[19800] == pytest.approx(800, rel=0.25)
    ep = chain.open([fault("latency_distribution", {"p50_ms": 5, "p95_ms": 20, "p99_ms": 40, "max_ms": 30})])
    for _ in range(10):
        await send(chain, ep, "GET")
    delays = [x["detail"]["delay_ms"] for x in ledger(ep)]
    assert len(set(delays)) > 3 and max(delays) <= 30


async def test_progressive_latency_grows_to_its_cap(chain: Chain) -> None:
    ep = chain.open([fault("progressive_latency", {"start_ms": 0, "step_ms": 10, "max_ms": 25})])
    for _ in range(5):
        await send(chain, ep, "GET")
    assert [x["detail"]["delay_ms"] for x in ledger(ep)] == [0, 10, 20, 25, 25]


async def test_write_only_slow_leaves_reads_alone(chain: Chain) -> None:
    ep = chain.open([fault("write_only_slow", {"delay_ms": 60})])
    await timed(chain, ep, "GET")
    assert await timed(chain, ep, "POST") >= 60
    await timed(chain, ep, "HEAD")
    assert [x["request"]["method"] for x in ledger(ep)] == ["POST"]  # the reads were not held


async def test_write_only_slow_phase_picks_the_hook(chain: Chain) -> None:
    for phase, hook in [("before_upstream", "request"), ("after_upstream", "response")]:
        ep = chain.open([fault("write_only_slow", {"delay_ms": 1, "phase": phase})], name=phase)
        assert ep.faults[0].params.hook_point() == hook  # type: ignore[attr-defined]


async def test_slow_first_byte_waits_after_the_upstream_answered(chain: Chain) -> None:
    ep = chain.open([fault("slow_first_byte", {"delay_ms": 60})])
    f = chain.flow(ep, "GET", "http://shop.test/x")
    await chain.hook("requestheaders", f)
    await chain.hook("request", f)
    # the site is reached at once: nothing fired on the request, and if it goes through the gate it is due now
    assert ledger(ep) == [] and RELAY_HEADER not in f.request.headers
    token = f.request.headers.get(GATE_HEADER)
    assert token is None or GATE.expected[token].deadline <= asyncio.get_running_loop().time()
    f.response = upstream()
    start = time.monotonic()
    await chain.hook("response", f)
    assert (time.monotonic() - start) * 1000 >= 60
    assert [x["detail"] for x in ledger(ep)] == [{"delay_ms": 60}]


async def test_bandwidth_reroutes_the_flow_through_the_pacing_relay(chain: Chain) -> None:
    ep = chain.open([fault("bandwidth", {"rate_bps": 2048})])
    f = chain.flow(ep, "GET", "http://shop.test/big")
    await chain.hook("requestheaders", f)
    await chain.hook("request", f)
    assert (f.request.host, f.request.port) == ("127.0.0.1", RELAY.port) and RELAY.port
    assert f.request.host_header == "shop.test"
    token = f.request.headers[RELAY_HEADER]
    assert RELAY.pending[token].rate_bps == 2048
    assert RELAY.pending[token].url.startswith("http://127.0.0.1:18999/big")  # where the router sent it
    f.response = upstream()
    await chain.hook("responseheaders", f)
    assert f.response.stream is True
    assert ledger(ep)[0]["detail"] == {"rate_bps": 2048}


async def test_hang_ends_at_its_timeout_with_504_or_reset(chain: Chain) -> None:
    ep = chain.open([fault("hang", {"timeout_ms": 80}, match={"path": "/a"}),
                     fault("hang", {"timeout_ms": 80, "then": "reset"}, match={"path": "/b"})])
    start = time.monotonic()
    a = await send(chain, ep, "GET", "/a", headers={"accept": "text/html"})
    waited_ms = (time.monotonic() - start) * 1000
    assert waited_ms >= 80, waited_ms  # not before its timeout (how close to it: benchmarks/latency_accuracy.py)
    assert a.response is not None and a.response.status_code == 504 and b"Gateway Timeout" in a.response.content
    b = await send(chain, ep, "GET", "/b")
    assert b.response is None and b.error is not None and b.error.msg == "Connection killed."


# -- errors ----------------------------------------------------------------------------


async def test_error_answers_locally_json_for_api_and_html_for_pages(chain: Chain) -> None:
    ep = chain.open([fault("error", {"status": 503, "headers": {"retry-after": "2"}})])
    api = await send(chain, ep, "GET", "/api/cart", headers={"accept": "application/json"})
    page = await send(chain, ep, "GET", "/cart", headers={"accept": "text/html,*/*"})
    assert api.response is not None and api.response.status_code == 503
    assert api.response.json() == {"detail": "Service Unavailable"}
    assert api.response.headers["retry-after"] == "2"
    assert page.response is not None and page.response.headers["content-type"].startswith("text/html")
    assert b"<h1>Service Unavailable</h1>" in page.response.content
    assert api.metadata["webchaos"]["local"] is True  # never forwarded
    custom = chain.open([fault("error", {"status": 500, "body": '{"error": "boom"}'})], name="custom")
    f = await send(chain, custom)
    assert f.response is not None and f.response.json() == {"error": "boom"}


async def test_error_then_success_fails_the_first_n_then_passes(chain: Chain) -> None:
    ep = chain.open([fault("error_then_success", {"status": 503, "retry_after_s": 1})])
    first, second = await send(chain, ep), await send(chain, ep)
    assert first.response is not None and first.response.status_code == 503
    assert first.response.headers["retry-after"] == "1"
    assert unchanged(second)
    two = chain.open([fault("error_then_success", {}, schedule={"mode": "first_n", "n": 2})], name="two")
    codes = [(await send(chain, two)).response.status_code for _ in range(3)]  # type: ignore[union-attr]
    assert codes == [503, 503, 200]


async def test_intermittent_error_is_a_seeded_coin(chain: Chain) -> None:
    ep = chain.open([fault("intermittent_error", {"status": 500})], seed=1)
    codes = [(await send(chain, ep)).response.status_code for _ in range(40)]  # type: ignore[union-attr]
    assert 4 <= codes.count(500) <= 24 and codes.count(200) + codes.count(500) == 40
    assert ep.faults[0].spec.schedule.mode == "intermittent"


async def test_rate_limit_burst_then_429_until_cooldown(chain: Chain, monkeypatch: pytest.MonkeyPatch) -> None:
    ep = chain.open([fault("rate_limit", {"burst": 3, "window_ms": 60000, "cooldown_ms": 2500})])
    now = [0.0]
    monkeypatch.setattr(ep, "elapsed_ms", lambda: now[0])
    codes = []
    for t in [0, 10, 20, 30, 40, 1000, 2600, 2700]:
        now[0] = float(t)
        f = await send(chain, ep, "GET")
        assert f.response is not None
        codes.append((f.response.status_code, f.response.headers.get("retry-after")))
    assert codes == [(200, None)] * 3 + [(429, "3"), (429, "3"), (429, "2"), (200, None), (200, None)]
    assert [x["detail"]["retry_after_s"] for x in ledger(ep)] == [3, 3, 2]


async def test_reset_before_or_after_the_upstream(chain: Chain) -> None:
    ep = chain.open([fault("reset", {}, match={"path": "/a"}),
                     fault("reset", {"phase": "after_upstream"}, match={"path": "/b"})])
    a = await send(chain, ep, "POST", "/a")
    assert a.error is not None and a.response is None  # never reached the site
    b = await send(chain, ep, "POST", "/b")
    assert b.error is not None and b.response is not None  # the site answered; the client gets nothing
    assert [x["detail"]["phase"] for x in ledger(ep)] == ["before_upstream", "after_upstream"]


async def test_truncate_short_body_and_close(chain: Chain) -> None:
    ep = chain.open([fault("truncate", {"keep_bytes": 8}, match={"path": "/a"}),
                     fault("truncate", {"keep_bytes": 8, "mode": "close"}, match={"path": "/b"})])
    a = await send(chain, ep, "GET", "/a")
    assert a.response is not None and a.response.content == UPSTREAM_TEXT[:8]
    assert a.response.headers["content-length"] == "8"
    assert ledger(ep)[0]["detail"] == {"keep_bytes": 8, "mode": "short_body", "original_bytes": len(UPSTREAM_TEXT)}
    short = await send(chain, ep, "GET", "/a", response=upstream(body=b"tiny"))
    assert short.response is not None and short.response.content == b"tiny"  # nothing to cut: not eligible
    b = chain.flow(ep, "GET", "http://shop.test/b")
    await chain.hook("requestheaders", b)
    await chain.hook("request", b)
    assert RELAY.pending[b.request.headers[RELAY_HEADER]].cut_after_bytes == 8
    assert len(ledger(ep)) == 2


async def test_offline_window_defaults_to_the_first_seconds(chain: Chain, monkeypatch: pytest.MonkeyPatch) -> None:
    ep = chain.open([fault("offline_window", {"how": "error"}, schedule={"mode": "window", "start_ms": 100,
                                                                        "duration_ms": 200})])
    now = [0.0]
    monkeypatch.setattr(ep, "elapsed_ms", lambda: now[0])
    codes = []
    for t in [50, 100, 250, 299, 300]:
        now[0] = float(t)
        codes.append((await send(chain, ep, "GET")).response.status_code)  # type: ignore[union-attr]
    assert codes == [200, 503, 503, 503, 200]
    default = chain.open([fault("offline_window")], name="default")
    assert default.faults[0].spec.schedule.model_dump(exclude_none=True) == {
        "mode": "window", "start_ms": 0, "duration_ms": 5000}
    f = await send(chain, default, "GET")
    assert f.error is not None  # how=reset: the connection drops


# -- lies ------------------------------------------------------------------------------


async def test_swallowed_write_answers_success_and_never_forwards(chain: Chain) -> None:
    ep = chain.open([fault("swallowed_write", {}, match={"path": "/api/cart*"})])
    body = json.dumps({"product_id": "p001", "quantity": 1}).encode()
    api = chain.flow(ep, "POST", "http://shop.test/api/cart", body,
                     {"content-type": "application/json", "accept": "application/json"})
    await chain.hook("requestheaders", api)
    await chain.hook("request", api)
    assert api.response is not None  # answered before any upstream
    assert api.response.status_code == 201
    echoed = api.response.json()
    assert echoed["ok"] is True and echoed["product_id"] == "p001" and len(echoed["id"]) == 8
    get = await send(chain, ep, "GET", "/api/cart")
    assert unchanged(get)  # reads are not writes
    form = await send(chain, ep, "POST", "/api/cart/form", content=b"a=1",
                      headers={"content-type": "application/x-www-form-urlencoded", "accept": "text/html",
                               "referer": "http://shop.test/product/p001?x=1"})
    assert form.response is not None and form.response.status_code == 303
    assert form.response.headers["location"] == "/product/p001?x=1"
    lines = ledger(ep)
    assert [x["detail"]["status"] for x in lines] == [201, 303]
    assert lines[0]["detail"]["forwarded"] is False and lines[0]["detail"]["id"] == echoed["id"]
    custom = chain.open([fault("swallowed_write", {"status": 200, "body": '{"saved": true}'})], name="c")
    f = await send(chain, custom)
    assert f.response is not None and f.response.json() == {"saved": True}


async def test_swallowed_write_echo_names_the_page_it_came_from(chain: Chain) -> None:
    ep = chain.open([fault("swallowed_write", {}, schedule={"mode": "always"}, match={"path": "/api/appointments*"})])
    json_headers = {"content-type": "application/json", "accept": "application/json"}
    body = json.dumps({"slot_id": "s004", "url": "http://elsewhere.test/"}).encode()
    came_from = await send(chain, ep, "POST", "/api/appointments", content=body,
                           headers={**json_headers, "referer": "http://shop.test/book/s004?from=search#top"})
    assert came_from.response is not None and came_from.response.status_code == 201
    echoed = came_from.response.json()
    # the page goes to the answer's url after a write: back where it was (path and query), not another site
    assert echoed["url"] == "/book/s004?from=search" and echoed["slot_id"] == "s004" and echoed["ok"] is True
    bare = await send(chain, ep, "POST", "/api/appointments", content=b'{"slot_id": "s005"}', headers=json_headers)
    assert bare.response is not None and bare.response.status_code == 201
    assert "url" not in bare.response.json() and bare.response.json()["slot_id"] == "s005"
    first, second = ledger(ep)
    assert first["detail"]["url"] == "/book/s004?from=search" and "url" not in second["detail"]


async def test_misleading_success_hides_a_refusal_only(chain: Chain) -> None:
    ep = chain.open([fault("misleading_success", {})])
    ok = await send(chain, ep, "POST", response=upstream(201, b'{"real": 1}', "application/json"))
    assert ok.response is not None and ok.response.json() == {"real": 1}
    refused = await send(chain, ep, "POST", response=upstream(409, b'{"detail": "out of stock"}',
                                                              "application/json"))
    assert refused.response is not None and refused.response.status_code == 201
    assert refused.response.json()["ok"] is True
    (line,) = ledger(ep)
    assert line["detail"]["site_status"] == 409


async def test_duplicate_submit_sends_the_write_again(chain: Chain, replays: list[str]) -> None:
    ep = chain.open([fault("duplicate_submit", {}, match={"path": "/api/orders"}),
                     fault("duplicate_submit", {"answer": "second"}, match={"path": "/api/cart"})])
    first = await send(chain, ep, "POST", "/api/orders", response=upstream(201, b'{"first": true}'))
    assert first.response is not None and first.response.content == b'{"first": true}'
    second = await send(chain, ep, "POST", "/api/cart", response=upstream(201, b'{"first": true}'))
    assert second.response is not None and second.response.content == b'{"second": true}'
    await send(chain, ep, "GET", "/api/orders")
    assert replays == ["POST /api/orders", "POST /api/cart"]


async def test_stale_response_serves_the_answer_from_before_the_write(chain: Chain,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    ep = chain.open([fault("stale_response", {"window_ms": 1000}, match={"path": "/cart"})])
    now = [0.0]
    monkeypatch.setattr(ep, "elapsed_ms", lambda: now[0])

    async def get(t: float, body: bytes, path: str = "/cart") -> bytes:
        now[0] = t
        f = await send(chain, ep, "GET", path, response=upstream(body=body))
        assert f.response is not None
        return f.response.content or b""

    assert await get(0, b"cart v1") == b"cart v1"  # nothing written yet
    assert await get(10, b"other v1", "/other") == b"other v1"
    now[0] = 20
    await send(chain, ep, "POST", "/api/cart", response=upstream(201))
    assert await get(30, b"cart v2") == b"cart v1"  # stale: the answer from before the write
    assert await get(40, b"cart v2") == b"cart v1"
    assert await get(50, b"other v2", "/other") == b"other v2"  # not matched
    assert await get(1100, b"cart v2") == b"cart v2"  # the window is over
    lines = ledger(ep)
    assert [x["request"]["path"] for x in lines] == ["/cart", "/cart"]
    assert lines[0]["detail"] == {"age_ms": 20, "window_ms": 1000}


async def test_body_patch_json_field_and_html_text(chain: Chain) -> None:
    ep = chain.open([fault("body_patch", {"json_field": "items.*.price_cents", "json_value": 1},
                           match={"path": "/api/*"}),
                     fault("body_patch", {"find": "In stock", "replace": "Sold out", "count": 1},
                           match={"path": "/product/*"})])
    payload = {"items": [{"price_cents": 500}, {"price_cents": 700}], "n": 2}
    api = await send(chain, ep, "GET", "/api/cart",
                     response=upstream(body=json.dumps(payload).encode(), content_type="application/json"))
    assert api.response is not None and api.response.json() == {"items": [{"price_cents": 1}] * 2, "n": 2}
    page = await send(chain, ep, "GET", "/product/p1", response=upstream(
        body=b"<p>In stock</p><p>In stock</p>", content_type="text/html"))
    assert page.response is not None and b"<p>Sold out</p><p>In stock</p>" in page.response.content
    nothing = await send(chain, ep, "GET", "/api/none", response=upstream(body=b'{"x": 1}',
                                                                         content_type="application/json"))
    assert nothing.response is not None and nothing.response.json() == {"x": 1}
    lines = ledger(ep)
    assert lines[0]["detail"] == {"field": "items.*.price_cents", "old": 500, "new": 1, "changed": 2}
    assert lines[1]["detail"]["changed"] == 1 and len(lines) == 2


async def test_header_patch_request_and_response(chain: Chain) -> None:
    ep = chain.open([fault("header_patch", {"remove_headers": ["set-cookie"], "set_headers": {"x-a": "1"}}),
                     fault("header_patch", {"target": "request", "remove_headers": ["cookie"]})])
    resp = upstream()
    resp.headers["set-cookie"] = "session=1"
    f = await send(chain, ep, "GET", response=resp, headers={"cookie": "session=1"})
    assert "cookie" not in f.request.headers
    assert f.response is not None and "set-cookie" not in f.response.headers and f.response.headers["x-a"] == "1"
    assert [x["detail"]["removed"] for x in ledger(ep)] == [["cookie"], ["set-cookie"]]


async def test_session_expiry_until_the_agent_signs_in_again(chain: Chain) -> None:
    ep = chain.open([fault("session_expiry", {}, schedule={"mode": "every_nth", "n": 2})])
    assert unchanged(await send(chain, ep, "GET", "/cart"))  # the first request is still signed in
    page = await send(chain, ep, "GET", "/checkout?step=2", headers={"accept": "text/html"})
    assert page.response is not None and page.response.status_code == 302
    assert page.response.headers["location"] == "/login?next=/checkout%3Fstep%3D2&expired=1"
    api = await send(chain, ep, "POST", "/api/orders", headers={"accept": "application/json"})
    assert api.response is not None and api.response.status_code == 401
    assert unchanged(await send(chain, ep, "GET", "/static/shop.css"))
    assert unchanged(await send(chain, ep, "GET", "/login?next=/checkout"))
    signin = await send(chain, ep, "POST", "/login", headers={"accept": "text/html"})
    assert unchanged(signin)  # the sign-in itself goes through
    assert unchanged(await send(chain, ep, "GET", "/checkout"))
    assert [x["detail"]["status"] for x in ledger(ep)] == [302, 401]


async def test_session_expiry_default_is_once(chain: Chain) -> None:
    ep = chain.open([fault("session_expiry", {}, match={"path": "/checkout*"})])
    assert unchanged(await send(chain, ep, "GET", "/cart"))
    assert (await send(chain, ep, "GET", "/checkout")).response.status_code == 302  # type: ignore[union-attr]
    assert (await send(chain, ep, "GET", "/checkout")).response.status_code == 302  # type: ignore[union-attr]
    await send(chain, ep, "POST", "/login")
    assert unchanged(await send(chain, ep, "GET", "/checkout"))  # once: it does not expire again


async def test_concurrent_modification_refuses_the_first_write_only(chain: Chain) -> None:
    ep = chain.open([fault("concurrent_modification", {})])
    assert unchanged(await send(chain, ep, "GET"))
    first = await send(chain, ep, "PATCH", "/api/cart/c1", headers={"accept": "application/json"})
    assert first.response is not None and first.response.status_code == 409
    assert "changed by someone else" in first.response.json()["detail"]
    assert unchanged(await send(chain, ep, "PATCH", "/api/cart/c1"))


async def test_a_response_fault_does_not_touch_a_locally_answered_flow(chain: Chain) -> None:
    ep = chain.open([fault("error", {"status": 503}), fault("body_patch", {"find": "Service", "replace": "X"})])
    f = await send(chain, ep, "GET", headers={"accept": "application/json"})
    assert f.response is not None and f.response.json() == {"detail": "Service Unavailable"}
    assert [x["type"] for x in ledger(ep)] == ["error"]

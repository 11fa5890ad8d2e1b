"""Issue 10: an episode keeps a finished flow as its bounded HAR entry, not whole, so the proxy's memory does
not grow with the bodies an episode moves (the HAR was always written from bounded bodies)."""

import gc
import json
import tracemalloc

from mitmproxy import http

from proxy_addons.har import MAX_HAR_BODY_BYTES, make_har
from proxy_addons.recorder import RECLAIM_BYTES
from tests.proxy_addons.conftest import Chain

MIB = 1 << 20


async def test_a_finished_flow_is_kept_as_its_bounded_entry(chain: Chain) -> None:
    ep = chain.open([{"type": "latency", "layer": "network", "match": {"path": "/big"}, "params": {"delay_ms": 1}}])
    f = await chain.send(chain.flow(ep, "GET", "http://shop.test/big"),
                         http.Response.make(200, b"z" * (2 * MIB), {"content-type": "text/plain"}))
    kept = ep.flows[f.id]
    assert isinstance(kept, dict), type(kept)  # the flow itself is let go
    assert len(json.dumps(kept)) < MAX_HAR_BODY_BYTES + 16_000
    content = kept["response"]["content"]
    assert content["_webchaos_truncated"] is True and len(content["text"]) == MAX_HAR_BODY_BYTES
    assert kept["response"]["bodySize"] == 2 * MIB
    assert kept["_webchaos"][0]["type"] == "latency"
    assert "x-webchaos-secret" not in json.dumps(kept).lower()
    # Mid-episode HAR and export read kept entries and flows still in flight alike, in arrival order.
    in_flight = chain.flow(ep, "GET", "http://shop.test/later")
    await chain.hook("requestheaders", in_flight)
    entries = make_har(list(ep.flows.values()))["log"]["entries"]
    assert [e["request"]["url"] for e in entries] == ["http://shop.test/big", "http://shop.test/later"]


async def test_an_episode_does_not_hold_the_bodies_it_moved(chain: Chain) -> None:
    ep = chain.open()
    gc.collect()
    threshold = gc.get_threshold()
    gc.set_threshold(50_000, 20, 100)  # as stack.py sets it: the cyclic collector seldom runs by itself
    tracemalloc.start()
    try:
        for i in range(20):  # 80 MiB of responses through one episode
            f = chain.flow(ep, "GET", f"http://shop.test/file/{i}")
            f.metadata["cycle"] = f  # finished flows sit in reference cycles in mitmproxy too
            await chain.send(f, http.Response.make(200, bytes([i]) * (4 * MIB),
                                                   {"content-type": "application/octet-stream"}))
            del f
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        gc.set_threshold(*threshold)
    assert len(ep.flows) == 20
    # Dead flows awaiting collection (at most RECLAIM_BYTES of bodies) and 20 bounded entries: was 86 MiB.
    assert held < RECLAIM_BYTES + 4 * MIB + 20 * (MAX_HAR_BODY_BYTES * 2) + 4 * MIB, f"{held / MIB:.1f} MiB held"

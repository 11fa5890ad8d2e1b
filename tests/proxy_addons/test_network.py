import asyncio
import time
from collections.abc import Iterator
from typing import Any, ClassVar

import pytest
from mitmproxy import http

from proxy_addons.har import make_har
from proxy_addons.ledger import marks
from proxy_addons.network import FaultContext, NetworkFault
from proxy_addons.network.gate import GATE, GATE_HEADER
from proxy_addons.network.release import release_clock
from scenarios import faults
from scenarios.faults import ArmedFault, FaultError, Primitive, parse_fault, register, registry
from tests.proxy_addons.conftest import SITES, Chain, ledger


class _Boom(NetworkFault):
    name: ClassVar[str] = "test_boom"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = "Test only: raises."

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"about": "to fail"}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        raise RuntimeError("kaput")


@pytest.fixture
def boom() -> Iterator[None]:
    register(_Boom)
    yield
    faults.unregister(_Boom)


def latency(delay_ms: int, jitter_ms: int = 0, **envelope: Any) -> dict[str, Any]:
    return {"type": "latency", "layer": "network", "params": {"delay_ms": delay_ms, "jitter_ms": jitter_ms},
            **envelope}


def test_latency_is_registered_with_its_parameters() -> None:
    kind = registry()["latency"]
    assert kind.layer == "network" and kind.primitive == Primitive.patience
    assert set(kind.model_fields) == {"delay_ms", "jitter_ms"}
    with pytest.raises(FaultError, match=r"faults\[3\]\.params\.delay_ms"):
        parse_fault(latency(-1), 3)


async def test_latency_fires_only_on_match_and_respects_first_n(chain: Chain) -> None:
    ep = chain.open([latency(40, match={"host": "shop.test", "path": "/api/cart*", "methods": ["POST"]},
                             schedule={"mode": "first_n", "n": 2})])
    took = []
    for method, url in [("GET", "http://shop.test/api/cart"), ("POST", "http://shop.test/api/orders"),
                        ("POST", "http://mail.test/api/cart"), ("POST", "http://shop.test/api/cart/add"),
                        ("POST", "http://shop.test/api/cart?x=1"), ("POST", "http://shop.test/api/cart")]:
        start = time.monotonic()
        f = await chain.send(chain.flow(ep, method, url))
        took.append((time.monotonic() - start) * 1000)
        assert f.response is not None and f.response.status_code == 200
    # the delay counts from the flow's arrival stamp, a moment before `start`: a held one takes ~40 ms. Which
    # ones were held is the ledger's to say (an unheld one can take as long as a stall of the machine).
    assert took[3] >= 30 and took[4] >= 30, took
    lines = ledger(ep)
    assert [(x["layer"], x["type"], x["fault_id"], x["detail"]) for x in lines] == [
        ("network", "latency", "latency#0", {"delay_ms": 40})] * 2
    assert lines[0]["request"] == {"method": "POST", "host": "shop.test", "path": "/api/cart/add"}
    assert lines[1]["request"]["path"] == "/api/cart"  # query excluded
    assert ep.firings == 2


async def test_a_delay_counts_from_when_the_proxy_received_the_request(chain: Chain) -> None:
    # Time the proxy spent on a request before the hook (queueing behind other flows) is part of the
    # delay, not added to it; a request that already waited longer than the delay is not held at all.
    # Asserted by order, not by a stopwatch (how exactly: benchmarks/latency_accuracy.py): the deadlines the
    # gate gets follow the arrival stamps; one already past is let through at once.
    loop = asyncio.get_running_loop()
    ep = chain.open([latency(120, match={"path": "/slow*"})])
    took: dict[int, float] = {}
    deadlines: dict[int, float] = {}
    routed_at: dict[int, float] = {}
    finished: list[int] = []

    async def send(waited_ms: int) -> None:
        f = chain.flow(ep, "GET", f"http://shop.test/slow/{waited_ms}")
        f.request.timestamp_start = f.request.timestamp_end = time.time() - waited_ms / 1000
        start = time.monotonic()
        await chain.hook("requestheaders", f)
        await chain.hook("request", f)
        routed_at[waited_ms] = loop.time()
        deadlines[waited_ms] = GATE.expected.pop(f.request.headers[GATE_HEADER]).deadline
        await release_clock().hold(deadlines[waited_ms])
        took[waited_ms] = (time.monotonic() - start) * 1000
        finished.append(waited_ms)

    await asyncio.gather(*(send(waited_ms) for waited_ms in (0, 50, 200)))
    assert deadlines[200] < deadlines[50] < deadlines[0], deadlines
    assert deadlines[200] <= routed_at[200], (deadlines, routed_at)  # waited longer than the delay: not held
    assert finished == [200, 50, 0], (finished, took)
    assert took[0] >= 120 - 1 and took[50] >= 70 - 1, took  # the rest of the delay, never less (1 ms: clock rounding)
    assert ep.firings == 3  # it still fired: the ledger says what was asked


async def test_jitter_sequence_repeats_for_the_same_seed(chain: Chain) -> None:
    def sequence(episode_name: str, seed: int) -> list[int]:
        return [x["detail"]["delay_ms"] for x in ledger(chain.episodes.by_id[episode_name])]

    for name, seed in [("a", 11), ("b", 11), ("c", 12)]:
        ep = chain.open([latency(5, jitter_ms=5)], seed=seed, name=name)
        for _ in range(12):
            await chain.send(chain.flow(ep, "GET", "http://shop.test/x"))
    a, b, c = sequence("a", 11), sequence("b", 11), sequence("c", 12)
    assert a == b and len(a) == 12
    assert a != c
    assert all(0 <= d <= 10 for d in a) and len(set(a)) > 1


async def test_a_raising_fault_answers_500_with_a_hook_error_line(chain: Chain, boom: None) -> None:
    ep = chain.open([{"type": "test_boom", "layer": "network", "id": "boom"}, latency(0)])
    f = await chain.send(chain.flow(ep, "POST", "http://shop.test/api/cart"))
    assert f.response is not None and f.response.status_code == 500
    assert b"kaput" in (f.response.content or b"")
    lines = ledger(ep)
    assert [(x["type"], x["fault_id"]) for x in lines] == [("test_boom", "boom"), ("hook_error", "boom")]
    assert lines[1]["detail"] == {"hook": "request", "error": "RuntimeError: kaput"}
    assert f.metadata["webchaos"]["local"] is True


async def test_firings_are_attached_to_har_entries(chain: Chain) -> None:
    ep = chain.open([latency(1, match={"path": "/slow"})])
    await chain.send(chain.flow(ep, "GET", "http://shop.test/slow"))
    await chain.send(chain.flow(ep, "GET", "http://shop.test/fast"))
    har = make_har(list(ep.flows.values()))
    slow, fast = har["log"]["entries"]
    assert slow["_webchaos"] == [{"fault_id": "latency#0", "layer": "network", "type": "latency",
                                  "detail": {"delay_ms": 1}}]
    assert "_webchaos" not in fast
    assert slow["request"]["url"] == "http://shop.test/slow"


async def test_other_layers_are_ignored_and_bad_faults_name_the_index(chain: Chain) -> None:
    from proxy_addons.episodes import arm_proxy_faults

    armed = arm_proxy_faults([{"type": "not_loaded_here", "layer": "server"}, latency(5)], 1)
    assert [a.id for a in armed] == ["latency#1"]
    with pytest.raises(FaultError, match=r"faults\[1\]\.type"):
        arm_proxy_faults([latency(5), {"type": "nope", "layer": "network"}], 1)
    with pytest.raises(FaultError, match=r"faults\[0\]\.layer"):
        arm_proxy_faults([{"type": "latency", "layer": "client", "params": {"delay_ms": 1}}], 1)


async def test_hold_until_never_ends_early_and_lets_other_work_run() -> None:
    from proxy_addons.network.release import hold_until, release_clock

    loop = asyncio.get_running_loop()
    ticks: list[float] = []

    async def other() -> None:  # progresses while a flow is held, yield window included
        while len(ticks) < 50:
            ticks.append(loop.time())
            await asyncio.sleep(0)

    for delay in (0.0, 0.001, 0.0025, 0.03):
        deadline = loop.time() + delay
        await hold_until(deadline)
        assert loop.time() >= deadline
        # The loop is free for others while a hold waits. Whether it waits is the clock's answer, not the
        # test's: a stalled machine can be past a 1 ms deadline before the hold begins (nothing to wait for).
        ticks.clear()
        side = asyncio.ensure_future(other())
        held = release_clock().hold(loop.time() + delay)  # what hold_until awaits
        waits = not held.done()
        await held
        if waits:
            assert ticks, f"nothing else ran during a hold of {delay * 1000:g} ms"
        await side


async def test_in_an_episode_with_a_delay_every_site_request_goes_through_the_gate(chain: Chain) -> None:
    # mitmproxy keeps a server connection per client connection and address: were only held requests sent
    # to the gate, a connection's first held one would wait for a new connection to it, in a burst most
    # of a 50 ms delay. So an episode that may hold requests sends every one through the gate.
    loop = asyncio.get_running_loop()
    ep = chain.open([latency(120, match={"path": "/slow*"})])
    unmatched = chain.flow(ep, "GET", "http://shop.test/fast")
    await chain.hook("requestheaders", unmatched)
    await chain.hook("request", unmatched)
    passage = GATE.expected.pop(unmatched.request.headers[GATE_HEADER])
    assert (unmatched.request.host, unmatched.request.port) == ("127.0.0.1", GATE.port)
    assert passage.upstream == SITES and passage.deadline <= loop.time()  # let through at once
    assert marks(unmatched).get("forwarded")  # on its way now: closing the episode waits for its answer
    upgrade = chain.flow(ep, "GET", "http://shop.test/ws", headers={"upgrade": "websocket", "connection": "upgrade"})
    plain_ep = chain.open([], name="ep2")
    plain = chain.flow(plain_ep, "GET", "http://shop.test/fast")
    for f in (upgrade, plain):  # after a 101 the bytes are not HTTP; an episode without delays needs no gate
        await chain.hook("requestheaders", f)
        await chain.hook("request", f)
        assert GATE_HEADER not in f.request.headers and (f.request.host, f.request.port) == SITES


async def test_a_page_load_matches_a_text_html_content_type_before_its_response(chain: Chain) -> None:
    # The tail-latency recipe delays page loads: requests that ask for text/html (a browser's navigation),
    # not a script's fetch of JSON, though neither carries a content type of its own.
    ep = chain.open([latency(5, match={"methods": ["GET"], "content_type": "text/html*"})])
    page = chain.flow(ep, "GET", "http://shop.test/product/p1",
                      headers={"accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    fetch = chain.flow(ep, "GET", "http://shop.test/api/cart", headers={"accept": "application/json"})
    posted = chain.flow(ep, "POST", "http://shop.test/api/cart", b'{"q": 1}',
                        headers={"accept": "text/html", "content-type": "application/json"})
    for f in (page, fetch, posted):
        await chain.send(f)
    assert [line["request"]["path"] for line in ledger(ep)] == ["/product/p1"]

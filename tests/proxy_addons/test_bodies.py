"""Request bodies: compressed bodies are refused and never decoded, big ones get a 413, HAR bodies are bounded.

The bombs are real: a few hundred bytes (brotli) or a few tens of KB (gzip) that decode to
64 MiB of zeros. Python's own allocations are traced while a bomb goes through the chain
and the HAR is made: a decoded bomb would show up as tens of MiB.
"""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

import brotli
import pytest
import zstandard
from mitmproxy import ctx, exceptions, http
from mitmproxy.test import taddons

from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.guard import MAX_REQUEST_BODY, Guard
from proxy_addons.har import MAX_HAR_BODY_BYTES, make_har
from proxy_addons.ledger import marks
from tests.proxy_addons.conftest import SITES, Chain, ledger

DECODED = 64 << 20


def _deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9)
    return c.compress(data) + c.flush()


@pytest.fixture(scope="module")
def bombs() -> dict[str, bytes]:
    zeros = b"\0" * DECODED
    made = {"br": brotli.compress(zeros, quality=5), "gzip": gzip.compress(zeros, 9), "deflate": _deflate(zeros),
            "zstd": zstandard.ZstdCompressor().compress(zeros)}
    assert len(made["br"]) < 200 and len(made["gzip"]) < 100_000
    assert len(brotli.decompress(made["br"])) == DECODED  # a real bomb
    return made


ENCODINGS = ["br", "gzip", "deflate", "zstd"]


@contextmanager
def peak_allocations() -> Iterator[list[int]]:
    """Peak bytes allocated by Python inside the block (the list gets it on exit)."""
    out: list[int] = []
    tracemalloc.start()
    try:
        yield out
    finally:
        out.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()


def har_entry(ep: ProxyEpisode, f: http.HTTPFlow) -> dict:
    (entry,) = [e for flow_id, e in zip(ep.flows, make_har(list(ep.flows.values()))["log"]["entries"],
                                        strict=True) if flow_id == f.id]
    return dict(entry)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("path", ["/api/cart", "/__webchaos/report", "/__webchaos/actions"])
async def test_an_encoded_request_body_is_refused_and_never_decoded(chain: Chain, bombs: dict[str, bytes],
                                                                   encoding: str, path: str) -> None:
    ep = chain.open(record_actions=True)
    f = chain.flow(ep, "POST", f"http://shop.test{path}", bombs[encoding],
                   {"content-encoding": encoding, "content-type": "application/json"})
    with peak_allocations() as peak:
        await chain.send(f)
        har = json.dumps(chain.recorder.har(ep))
    assert peak[0] < 8 << 20, f"{peak[0] >> 20} MiB allocated: the bomb was decoded"
    assert f.response is not None and f.response.status_code == 415
    assert f"Content-Encoding {encoding!r}".encode() in (f.response.content or b"")
    assert (f.request.host, f.request.port) != SITES  # never forwarded
    (line,) = ledger(ep)
    assert (line["layer"], line["type"], line["detail"]["status"]) == ("guard", "refused", 415)
    assert len(har) < 16_000
    post = har_entry(ep, f)["request"]
    assert post["bodySize"] == len(bombs[encoding])
    assert post["postData"]["text"] == "" and post["postData"]["_webchaos_truncated"] is True
    assert f"Content-Encoding: {encoding}" in post["postData"]["comment"]
    assert {"name": "content-encoding", "value": encoding} in post["headers"]  # the headers as sent
    assert f.request.raw_content == bombs[encoding]  # the kept flow is not changed


@pytest.mark.parametrize("path", ["/__webchaos/report", "/__webchaos/actions"])
async def test_the_recorder_endpoints_refuse_encoded_bodies_themselves(chain: Chain, bombs: dict[str, bytes],
                                                                       path: str) -> None:
    """Without the guard in front (defence in depth), the endpoints still never decode a body."""
    ep = chain.open(record_actions=True)
    f = chain.flow(ep, "POST", f"http://shop.test{path}", bombs["br"], {"content-encoding": "identity, br"})
    marks(f).update(site="shop.test", episode=ep.id)
    with peak_allocations() as peak:
        chain.recorder.request(f)
    assert peak[0] < 8 << 20
    assert f.response is not None and f.response.status_code == 415


async def test_identity_is_not_an_encoding(chain: Chain) -> None:
    ep = chain.open()
    f = await chain.send(chain.flow(ep, "POST", "http://shop.test/api/cart", b'{"id": 1}',
                                    {"content-encoding": "identity"}))
    assert f.response is not None and f.response.status_code == 200
    assert ledger(ep) == []


async def test_a_broken_encoded_body_does_not_break_the_har(chain: Chain) -> None:
    ep = chain.open()
    f = await chain.send(chain.flow(ep, "PUT", "http://shop.test/api/cart", b"not gzip at all",
                                    {"content-encoding": "gzip"}))
    assert f.response is not None and f.response.status_code == 415
    assert har_entry(ep, f)["request"]["postData"]["_webchaos_truncated"] is True


async def test_a_request_body_over_the_limit_gets_a_413(chain: Chain) -> None:
    ep = chain.open()
    at_limit = await chain.send(chain.flow(ep, "POST", "http://shop.test/api/cart", b"x" * MAX_REQUEST_BODY))
    assert at_limit.response is not None and at_limit.response.status_code == 200

    declared = chain.flow(ep, "POST", "http://shop.test/api/cart")
    declared.request.headers["content-length"] = str(MAX_REQUEST_BODY + 1)
    await chain.hook("requestheaders", declared)  # refused before the body is read
    assert declared.response is not None and declared.response.status_code == 413

    chunked = chain.flow(ep, "POST", "http://shop.test/api/cart", b"x" * (MAX_REQUEST_BODY + 1))
    del chunked.request.headers["content-length"]
    chunked.request.headers["transfer-encoding"] = "chunked"
    await chain.send(chunked)  # refused once it has arrived, before anything else sees it
    assert chunked.response is not None and chunked.response.status_code == 413
    assert b"request body larger than 1048576 bytes" in (chunked.response.content or b"")

    lines = ledger(ep)
    assert [(x["layer"], x["type"], x["detail"]) for x in lines] == [
        ("guard", "refused", {"reason": "request body larger than 1048576 bytes", "status": 413})] * 2
    assert lines[1]["request"] == {"method": "POST", "host": "shop.test", "path": "/api/cart"}

    ctx.options.update(webchaos_max_request_body=10)
    small = await chain.send(chain.flow(ep, "POST", "http://shop.test/api/cart", b"x" * 11))
    assert small.response is not None and small.response.status_code == 413


def test_body_limit_option_is_validated() -> None:
    guard = Guard(Episodes())
    with taddons.context(guard) as tctx:
        for value in (0, -5):
            with pytest.raises(exceptions.OptionsError, match="webchaos_max_request_body"):
                tctx.configure(guard, webchaos_max_request_body=value)
        tctx.configure(guard, webchaos_max_request_body=4096)
        assert guard.max_body == 4096


async def test_har_bodies_are_truncated_to_a_cap_and_marked(chain: Chain) -> None:
    ep = chain.open()
    body = b"a" * MAX_REQUEST_BODY
    page = b"<p>" + b"b" * (2 * MAX_HAR_BODY_BYTES) + b"</p>"
    big = await chain.send(chain.flow(ep, "POST", "http://shop.test/api/notes", body, {"content-type": "text/plain"}),
                           http.Response.make(200, page, {"content-type": "text/plain"}))
    small = await chain.send(chain.flow(ep, "POST", "http://shop.test/api/notes", b"hello"))
    entry = har_entry(ep, big)
    post, content = entry["request"]["postData"], entry["response"]["content"]
    assert post["text"] == "a" * MAX_HAR_BODY_BYTES and post["_webchaos_truncated"] is True
    assert post["comment"] == f"body truncated to its first {MAX_HAR_BODY_BYTES} of {MAX_REQUEST_BODY} bytes"
    assert entry["request"]["bodySize"] == MAX_REQUEST_BODY
    assert len(content["text"]) == MAX_HAR_BODY_BYTES and content["_webchaos_truncated"] is True
    assert content["size"] == entry["response"]["bodySize"] == len(page)
    assert len(big.request.raw_content or b"") == MAX_REQUEST_BODY  # the kept flow is not changed
    assert big.response is not None and big.response.content == page
    plain = har_entry(ep, small)
    assert plain["request"]["postData"]["text"] == "hello" and "_webchaos_truncated" not in plain["request"]["postData"]
    assert "_webchaos_truncated" not in plain["response"]["content"]


async def test_an_encoded_response_body_is_left_out_of_the_har(chain: Chain, bombs: dict[str, bytes]) -> None:
    ep = chain.open()
    response = http.Response.make(200, b"", {"content-type": "application/json", "content-encoding": "gzip"})
    response.raw_content = bombs["gzip"]  # as the server sent it
    f = await chain.send(chain.flow(ep, "GET", "http://shop.test/data"), response)
    with peak_allocations() as peak:
        content = har_entry(ep, f)["response"]["content"]
    assert peak[0] < 8 << 20
    assert content["text"] == "" and content["_webchaos_truncated"] is True
    assert content["size"] == len(bombs["gzip"])


async def test_a_content_length_that_is_not_a_number_does_not_break_the_guard(chain: Chain) -> None:
    ep = chain.open()
    for odd in ("²", "1e3", "-5", ""):
        f = chain.flow(ep, "POST", "http://shop.test/api/cart", b"{}")
        f.request.headers["content-length"] = odd
        await chain.hook("requestheaders", f)  # mitmproxy rejects these itself; the guard must not raise on them
        assert f.response is None

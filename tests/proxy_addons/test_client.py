import json
import re
from typing import Any

import pytest
from mitmproxy import http

from proxy_addons.client.inject import insert_script, relax_csp
from scenarios.faults import FaultError, Primitive, parse_fault, registry
from tests.proxy_addons.conftest import Chain, ledger

PAGE = b"<!doctype html><html><head><title>t</title></head><body><button>Add to cart</button></body></html>"


def overlay(**envelope: Any) -> dict[str, Any]:
    return {"type": "overlay", "layer": "client", **envelope}


def html(body: bytes = PAGE, headers: dict[str, str] | None = None) -> http.Response:
    return http.Response.make(200, body, {"content-type": "text/html; charset=utf-8", **(headers or {})})


def config_of(content: bytes) -> dict[str, Any]:
    found = re.search(rb"var WEBCHAOS_CONFIG = (\{.*?\});\n", content)
    assert found, "no injected config"
    return json.loads(found.group(1))


def test_overlay_is_registered_with_defaults() -> None:
    kind = registry()["overlay"]
    assert kind.layer == "client" and kind.primitive == Primitive.grounding
    _, params = parse_fault(overlay(params={"kind": "chat"}), 0)
    assert params.model_dump() == {"kind": "chat", "delay_ms": 0, "dismiss_label": "Accept all",
                                   "title": "Chat with us", "returns_once": False}
    with pytest.raises(FaultError, match=r"faults\[0\]\.params\.kind"):
        parse_fault(overlay(params={"kind": "popup"}), 0)


async def test_injects_only_into_matching_html(chain: Chain) -> None:
    ep = chain.open([overlay(match={"host": "shop.test", "path": "/products*", "role": "button",
                                    "name": "Add to cart"}, params={"delay_ms": 100})])
    page = await chain.send(chain.flow(ep, "GET", "http://shop.test/products/3"), html(headers={"etag": '"x"'}))
    assert page.response is not None
    body = page.response.content or b""
    assert body.startswith(b"<!doctype html><html><head><script data-webchaos>")
    assert body.endswith(PAGE[len(b"<!doctype html><html><head>"):])
    assert config_of(body) == {"faults": [{
        "id": "overlay#0", "type": "overlay",
        "params": {"kind": "cookie", "delay_ms": 100, "dismiss_label": "Accept all",
                   "title": "We value your privacy", "returns_once": False},
        "target": {"selector": None, "role": "button", "name": "Add to cart"}}], "report": "/__webchaos/report"}
    assert page.response.headers["cache-control"] == "no-store" and "etag" not in page.response.headers

    api = await chain.send(chain.flow(ep, "GET", "http://shop.test/products/3.json"),
                           http.Response.make(200, b'{"a": "<head>"}', {"content-type": "application/json"}))
    other = await chain.send(chain.flow(ep, "GET", "http://shop.test/cart"), html())
    elsewhere = await chain.send(chain.flow(ep, "GET", "http://mail.test/products/1"), html())
    assert api.response is not None and api.response.content == b'{"a": "<head>"}'
    for f in (other, elsewhere):
        assert f.response is not None and f.response.content == PAGE
    (line,) = ledger(ep)
    assert (line["layer"], line["type"], line["fault_id"], line["detail"]) == (
        "client", "overlay", "overlay#0", {"event": "injected", "page": "/products/3"})


async def test_schedule_is_one_event_per_matching_page_load(chain: Chain) -> None:
    ep = chain.open([overlay(schedule={"mode": "once"})])
    first = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    second = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    assert first.response is not None and b"data-webchaos" in (first.response.content or b"")
    assert second.response is not None and second.response.content == PAGE


async def test_no_client_faults_means_no_script(chain: Chain) -> None:
    ep = chain.open([])
    f = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    assert f.response is not None and f.response.content == PAGE


def test_script_position() -> None:
    tag = b"<script></script>"
    assert insert_script(b"<HTML><Head lang=en><p>x", tag) == b"<HTML><Head lang=en><script></script><p>x"
    assert insert_script(b"<!DOCTYPE html><p>x", tag) == b"<!DOCTYPE html><script></script><p>x"
    assert insert_script(b"<p>x", tag) == b"<script></script><p>x"
    assert insert_script(b"<header>h</header>", tag) == b"<script></script><header>h</header>"


def test_csp_gets_a_nonce_only_when_needed() -> None:
    policy, needed = relax_csp("default-src 'self'; script-src 'self' 'nonce-abc'", "N")
    assert needed and policy == "default-src 'self'; script-src 'self' 'nonce-abc' 'nonce-N'"
    policy, needed = relax_csp("default-src 'none'", "N")
    assert needed and policy == "default-src 'none'; script-src 'nonce-N'; connect-src 'self'"
    policy, needed = relax_csp("script-src 'self' 'unsafe-inline'; img-src *", "N")
    assert not needed and policy == "script-src 'self' 'unsafe-inline'; img-src *"


async def test_csp_header_is_relaxed_with_a_nonce(chain: Chain) -> None:
    ep = chain.open([overlay()])
    f = await chain.send(chain.flow(ep, "GET", "http://shop.test/"),
                         html(headers={"content-security-policy": "script-src 'self'"}))
    assert f.response is not None
    nonce = re.search(rb'<script data-webchaos nonce="([^"]+)">', f.response.content or b"")
    assert nonce
    assert f"'nonce-{nonce.group(1).decode()}'" in f.response.headers["content-security-policy"]


async def test_report_endpoint_is_answered_locally(chain: Chain) -> None:
    ep = chain.open([overlay(id="cookie-wall")])
    report = {"fault_id": "cookie-wall", "type": "overlay", "event": "fired",
              "target": {"selector": None, "role": "button", "name": "Add to cart"}, "occurrence": 1}
    f = chain.flow(ep, "POST", "http://shop.test/__webchaos/report", json.dumps(report).encode(),
                   {"referer": "http://shop.test/products/3?x=1"})
    await chain.send(f)
    assert f.response is not None and f.response.status_code == 204
    assert f.metadata["webchaos"]["local"] is True
    (line,) = ledger(ep)
    assert (line["layer"], line["type"], line["fault_id"]) == ("client", "overlay", "cookie-wall")
    assert line["detail"] == {"event": "fired", "target": report["target"], "occurrence": 1, "page": "/products/3"}
    assert ep.firings == 1

    for body in [b"nope", json.dumps({**report, "fault_id": "other"}).encode(),
                 json.dumps({**report, "event": "exploded"}).encode()]:
        bad = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/report", body))
        assert bad.response is not None and bad.response.status_code == 400
    get = await chain.send(chain.flow(ep, "GET", "http://shop.test/__webchaos/report"))
    assert get.response is not None and get.response.status_code == 405
    assert len(ledger(ep)) == 1

"""The client layer without a browser: fault types, bad specs, injection, CSP, the report and actions endpoints."""

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from mitmproxy import http

from proxy_addons.client.inject import ClientFault, insert_script, relax_csp, script_source
from proxy_addons.episodes import ProxyEpisode
from scenarios.faults import FaultError, Primitive, parse_fault, registry
from scenarios.loader import ScenarioError, load_catalog
from tests.proxy_addons.conftest import Chain, ledger

PAGE = b"<!doctype html><html><head><title>t</title></head><body><button>Add to cart</button></body></html>"
CLIENT_DIR = Path(__file__).resolve().parents[2] / "proxy_addons" / "client"
TARGET = {"role": "button", "name": "Add to cart"}

# Every client type, its primitive, and minimal valid params.
TYPES: dict[str, tuple[Primitive, dict[str, Any]]] = {
    "overlay": (Primitive.grounding, {}),
    "distractor_modal": (Primitive.planning, {}),
    "required_step": (Primitive.planning, {}),
    "layout_shift": (Primitive.grounding, {}),
    "click_swallow": (Primitive.patience, {}),
    "rename_after_input": (Primitive.state_tracking, {"after_input_in": "Full name", "new_label": "Save"}),
    "swap_labels": (Primitive.grounding, {"other_role": "button", "other_name": "Search"}),
    "same_label_decoy": (Primitive.backtracking, {}),
    "hide_affordance": (Primitive.exploration, {}),
    "false_toast": (Primitive.verification, {}),
    "delayed_render": (Primitive.patience, {}),
    "skeleton": (Primitive.patience, {}),
    "disabled_until": (Primitive.patience, {}),
    "input_corruption": (Primitive.verification, {}),
    "adjacent_selection": (Primitive.verification, {}),
    "scramble_aria": (Primitive.grounding, {}),
    "focus_steal": (Primitive.state_tracking, {}),
    "scroll_jump": (Primitive.state_tracking, {}),
    "transient_flash": (Primitive.verification, {}),
    "popup_tab": (Primitive.state_tracking, {}),
    "injected_instruction": (Primitive.planning, {}),
    "iframe_widget": (Primitive.exploration, {}),
    "shadow_overlay": (Primitive.grounding, {}),
    "popup_attack": (Primitive.planning, {}),
    "dark_pattern": (Primitive.verification, {}),
    "human_check": (Primitive.planning, {}),
    "form_reset": (Primitive.state_tracking, {}),
}


def client(type: str = "overlay", **envelope: Any) -> dict[str, Any]:
    return {"type": type, "layer": "client", **envelope}


def overlay(**envelope: Any) -> dict[str, Any]:
    return client("overlay", **envelope)


def html(body: bytes = PAGE, headers: dict[str, str] | None = None) -> http.Response:
    return http.Response.make(200, body, {"content-type": "text/html; charset=utf-8", **(headers or {})})


def config_of(content: bytes) -> dict[str, Any]:
    found = re.search(rb"var WEBCHAOS_CONFIG = (\{.*?\});\n", content)
    assert found, "no injected config"
    return dict(json.loads(found.group(1)))


# -- the registry and bad specs ---------------------------------------------------------


def test_every_client_type_is_registered_with_its_primitive_and_a_js_runner() -> None:
    kinds = {k.name: k for k in registry().values() if k.layer == "client"}  # a name may be on two layers
    assert set(kinds) == set(TYPES)
    for name, (primitive, params) in TYPES.items():
        kind = kinds[name]
        assert issubclass(kind, ClientFault) and kind.primitive == primitive, name
        assert kind.description and all(f.description for n, f in kind.model_fields.items()
                                        if n not in ("kind", "mode", "position", "placement", "style", "text",
                                                     "title", "new_label")), name
        source = (CLIENT_DIR / kind.script).read_text()
        assert f"RUNNERS.{name} = function" in source, name
        parse_fault(client(name, match=TARGET, params=params), 0)


def test_overlay_defaults() -> None:
    _, params = parse_fault(overlay(params={"kind": "chat"}), 0)
    assert params.model_dump() == {"delay_ms": 0, "after_input_in": None, "after_clicks": 0, "kind": "chat",
                                   "dismiss_label": "Accept all", "title": "Chat with us", "returns_once": False}
    with pytest.raises(FaultError, match=r"faults\[0\]\.params\.kind"):
        parse_fault(overlay(params={"kind": "popup"}), 0)


@pytest.mark.parametrize(("fault", "where", "message"), [
    (client("click_swallow"), "faults[0].match", "needs a target (a button or link)"),
    (client("click_swallow", match={"role": "buton", "name": "x"}), "faults[0].match", "unknown ARIA role 'buton'"),
    (client("click_swallow", match={"name": "Add to cart"}), "faults[0].match", "match.name needs match.role"),
    (client("click_swallow", match={"selector": "#a", "role": "button"}), "faults[0].match", "not both"),
    (client("click_swallow", match={"selector": "a[href"}), "faults[0].match", "not a valid CSS selector"),
    (client("click_swallow", match=TARGET, params={"swallow_clicks": 0}), "faults[0].params.swallow_clicks",
     "greater than or equal to 1"),
    (client("click_swallow", match=TARGET, params={"clicks": 2}), "faults[0].params.clicks",
     "parameters of 'click_swallow': delay_ms, after_input_in, after_clicks, swallow_clicks"),
    (client("same_label_decoy", match=TARGET, params={"position": "above"}), "faults[0].params.position",
     "'before' or 'after'"),
    (client("rename_after_input", match=TARGET, params={"new_label": "Save"}), "faults[0].params",
     "needs after_input_in"),
    (client("swap_labels", match=TARGET), "faults[0].params", "set other_selector, or other_role"),
    (client("input_corruption", match={"role": "textbox", "name": "City"}, params={"mode": "shout"}),
     "faults[0].params.mode", "'swap_adjacent', 'drop_last', 'double_last' or 'replace'"),
    (client("delayed_render", match=TARGET, params={"render_after_ms": -1}), "faults[0].params.render_after_ms",
     "greater than or equal to 0"),
    (client("popup_tab", params={"url_path": "http://evil.test/"}), "faults[0].params.url_path", "pattern"),
])
def test_bad_client_specs_name_index_field_and_allowed_values(fault: dict[str, Any], where: str,
                                                               message: str) -> None:
    with pytest.raises(FaultError) as info:
        parse_fault(fault, 0)
    text = str(info.value)
    assert text.startswith(where + ":") or text.startswith(where + "."), text
    assert message in text, text


def test_a_bad_client_variant_fails_catalog_load_with_file_and_field(tmp_path: Path) -> None:
    variants = tmp_path / "v.yaml"
    variants.write_text("""variants:
  - id: v1
    title: t
    tasks: [shop_add_to_cart]
    target_primitive: verification
    faults:
      - {type: click_swallow, layer: client, match: {path: "/product/*"}}
""")
    with pytest.raises(ScenarioError) as info:
        load_catalog(Path(__file__).resolve().parents[2] / "scenarios" / "catalog" / "shop" / "tasks.yaml", variants)
    assert str(variants) in str(info.value) and "variants[0].faults[0].match" in str(info.value)


def test_the_builtin_client_variants_load() -> None:
    from sites.registry import load_site_catalog

    catalog = load_site_catalog()  # recipes expanded: some types are used only there
    client_types = {f["type"] for v in catalog.variants.values() for f in v.faults if f["layer"] == "client"}
    assert client_types >= set(TYPES) - {"adjacent_selection"}


# -- injection --------------------------------------------------------------------------


def test_script_parts_are_those_of_the_armed_families() -> None:
    only_recorder = script_source([], True)
    assert "function startRecorder" in only_recorder and "RUNNERS.overlay" not in only_recorder
    assert '"actions": "/__webchaos/actions"' in only_recorder
    clicks = script_source([{"id": "a", "type": "click_swallow", "params": {}, "target": {}}], False)
    assert "RUNNERS.click_swallow" in clicks and "RUNNERS.overlay" not in clicks
    assert "function startRecorder" not in clicks and '"actions": null' in clicks
    assert clicks.rstrip().endswith("boot();\n})();")


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
        "params": {"delay_ms": 100, "after_input_in": None, "after_clicks": 0, "kind": "cookie",
                   "dismiss_label": "Accept all", "title": "We value your privacy", "returns_once": False},
        "target": {"selector": None, "role": "button", "name": "Add to cart", "within": None}}],
        "report": "/__webchaos/report", "actions": None}
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


async def test_recorder_goes_into_every_html_page_when_actions_are_recorded(chain: Chain) -> None:
    ep = chain.open([overlay(match={"path": "/products*"})], record_actions=True)
    plain = await chain.send(chain.flow(ep, "GET", "http://shop.test/cart"), html())
    faulted = await chain.send(chain.flow(ep, "GET", "http://shop.test/products/1"), html())
    api = await chain.send(chain.flow(ep, "GET", "http://shop.test/api/x"),
                           http.Response.make(200, b"{}", {"content-type": "application/json"}))
    assert plain.response is not None and faulted.response is not None and api.response is not None
    assert config_of(plain.response.content or b"") == {"faults": [], "report": "/__webchaos/report",
                                                        "actions": "/__webchaos/actions"}
    assert [f["id"] for f in config_of(faulted.response.content or b"")["faults"]] == ["overlay#0"]
    assert api.response.content == b"{}"
    assert [line["detail"]["page"] for line in ledger(ep)] == ["/products/1"]  # only faults make ledger lines


async def report_event(chain: Chain, ep: ProxyEpisode, fault_id: str, event: str) -> None:
    body = json.dumps({"fault_id": fault_id, "type": "overlay", "event": event, "target": {}}).encode()
    f = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/report", body))
    assert f.response is not None and f.response.status_code == 204


def injected(f: http.HTTPFlow) -> bool:
    return f.response is not None and b"data-webchaos" in (f.response.content or b"")


async def test_schedule_is_one_event_per_matching_page_load(chain: Chain) -> None:
    ep = chain.open([overlay(schedule={"mode": "once"})])
    ep.record_actions = False
    first = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    await report_event(chain, ep, "overlay#0", "fired")
    second = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    assert injected(first)
    assert second.response is not None and second.response.content == PAGE


async def test_a_fault_left_unfired_on_a_page_is_carried_to_the_next_matching_page(chain: Chain) -> None:
    # `once` on the commit page: a first visit where the agent does not commit must not use it up
    ep = chain.open([overlay(match={"path": "/compose"}, schedule={"mode": "once"})])
    ep.record_actions = False
    first = await chain.send(chain.flow(ep, "GET", "http://shop.test/compose"), html())
    elsewhere = await chain.send(chain.flow(ep, "GET", "http://shop.test/inbox"), html())
    second = await chain.send(chain.flow(ep, "GET", "http://shop.test/compose"), html())
    await report_event(chain, ep, "overlay#0", "target_missing")  # not acting: still carried
    third = await chain.send(chain.flow(ep, "GET", "http://shop.test/compose"), html())
    await report_event(chain, ep, "overlay#0", "fired")
    fourth = await chain.send(chain.flow(ep, "GET", "http://shop.test/compose"), html())
    assert [injected(f) for f in (first, elsewhere, second, third, fourth)] == [True, False, True, True, False]
    lines = [line["detail"] for line in ledger(ep) if line["detail"]["event"] == "injected"]
    assert [d.get("carried_over", False) for d in lines] == [False, True, True]
    fault = ep.fault("overlay#0")
    assert fault is not None and (fault.eligible, fault.fired) == (2, 1)  # no draws for the carried pages
    assert ep.firings == 1


async def test_no_faults_and_no_recording_means_no_script(chain: Chain) -> None:
    ep = chain.open([])
    ep.record_actions = False
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


async def test_csp_header_is_relaxed_with_a_nonce_for_the_recorder_too(chain: Chain) -> None:
    ep = chain.open([], record_actions=True)
    f = await chain.send(chain.flow(ep, "GET", "http://shop.test/"),
                         html(headers={"content-security-policy": "default-src 'self'; script-src 'self'"}))
    assert f.response is not None
    nonce = re.search(rb'<script data-webchaos nonce="([^"]+)">', f.response.content or b"")
    assert nonce
    assert f"'nonce-{nonce.group(1).decode()}'" in f.response.headers["content-security-policy"]


# -- the report endpoint ------------------------------------------------------------------


async def test_report_endpoint_is_answered_locally(chain: Chain) -> None:
    ep = chain.open([overlay(id="cookie-wall")])
    touched = {"role": "button", "name": "Add to cart", "selector": "form > button", "tag": "button"}
    report = {"fault_id": "cookie-wall", "type": "overlay", "event": "fired",
              "target": {"selector": None, "role": "button", "name": "Add to cart"}, "occurrence": 1,
              "touched": {**touched, "onclick": "x"}, "info": {"kind": "cookie", "nested": {"no": 1}}}
    f = chain.flow(ep, "POST", "http://shop.test/__webchaos/report", json.dumps(report).encode(),
                   {"referer": "http://shop.test/products/3?x=1"})
    await chain.send(f)
    assert f.response is not None and f.response.status_code == 204
    assert f.metadata["webchaos"]["local"] is True
    (line,) = ledger(ep)
    assert (line["layer"], line["type"], line["fault_id"]) == ("client", "overlay", "cookie-wall")
    assert line["detail"] == {"event": "fired", "target": report["target"], "occurrence": 1, "touched": touched,
                              "info": {"kind": "cookie", "nested": None}, "page": "/products/3"}
    assert ep.firings == 1

    for event in ("restored", "hit", "dismissed"):
        ok = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/report",
                                         json.dumps({**report, "event": event}).encode()))
        assert ok.response is not None and ok.response.status_code == 204
    assert ep.firings == 1
    for body in [b"nope", json.dumps({**report, "fault_id": "other"}).encode(),
                 json.dumps({**report, "event": "exploded"}).encode()]:
        bad = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/report", body))
        assert bad.response is not None and bad.response.status_code == 400
    get = await chain.send(chain.flow(ep, "GET", "http://shop.test/__webchaos/report"))
    assert get.response is not None and get.response.status_code == 405
    assert len(ledger(ep)) == 4


# -- the actions endpoint -----------------------------------------------------------------


def epoch_ms(chain: Chain, ep: Any, t_ms: float) -> float:
    """The browser's stamp (epoch ms) of a moment `t_ms` after the episode opened, on the log's own clock."""
    return float(chain.recorder.action_log(ep).opened_epoch_ms + t_ms)


async def test_actions_are_answered_locally_kept_out_of_the_har_and_written_in_time_order(chain: Chain) -> None:
    ep = chain.open([], record_actions=True)
    click = {"kind": "click", "t": epoch_ms(chain, ep, 500), "page": "/p",
             "target": {"role": "button", "name": "Add to cart", "selector": "#add", "tag": "button"},
             "x": 10, "y": 20, "button": 0}
    nav = {"kind": "navigation", "t": epoch_ms(chain, ep, 100), "page": "/p", "url": "/p?q=1", "nav_type": "navigate",
           "referrer": None, "frame": False}
    scroll = {"kind": "scroll", "t": epoch_ms(chain, ep, 900), "page": "/p", "target": None, "x": 0, "y": 40, "dx": 0,
              "dy": 40}
    for batch in ([click], [nav, scroll]):
        f = chain.flow(ep, "POST", "http://shop.test/__webchaos/actions", json.dumps({"actions": batch}).encode())
        await chain.send(f)
        assert f.response is not None and f.response.status_code == 204
        assert f.metadata["webchaos"]["local"] is True and f.id not in ep.flows
    lines = [json.loads(x) for x in (ep.out_dir / "actions.jsonl").read_text().splitlines()]
    assert [x["kind"] for x in lines] == ["click", "navigation", "scroll"]  # arrival order while open
    await chain.recorder.export(ep)
    lines = [json.loads(x) for x in (ep.out_dir / "actions.jsonl").read_text().splitlines()]
    assert [(x["seq"], x["kind"]) for x in lines] == [(1, "navigation"), (2, "click"), (3, "scroll")]
    assert [x["t_ms"] for x in lines] == [100, 500, 900]
    # the log's clock is the wall clock (the browser's): a sanity bound, not a timing one
    assert abs(chain.recorder.action_log(ep).opened_epoch_ms - time.time() * 1000) < 60_000
    assert {k: v for k, v in lines[1].items() if k != "t_ms"} == {
        "seq": 2, "kind": "click", "page": "/p", "x": 10, "y": 20, "button": 0,
        "target": {"role": "button", "name": "Add to cart", "selector": "#add", "tag": "button"}}
    assert lines[2]["target"] is None and "target" not in lines[0]
    assert ledger(ep) == []


async def test_bad_action_batches_are_refused(chain: Chain) -> None:
    ep = chain.open([], record_actions=True)
    good = {"kind": "key", "t": epoch_ms(chain, ep, 1), "page": "/", "key": "Enter", "modifiers": []}
    for body, status in [(b"nope", 400), (json.dumps({"actions": [{**good, "kind": "dance"}]}).encode(), 400),
                         (json.dumps({"actions": [{**good, "extra": 1}]}).encode(), 400),
                         (json.dumps({"actions": [good]}).encode(), 204)]:
        f = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/actions", body))
        assert f.response is not None and f.response.status_code == status, body
    get = await chain.send(chain.flow(ep, "GET", "http://shop.test/__webchaos/actions"))
    assert get.response is not None and get.response.status_code == 405
    other = await chain.send(chain.flow(ep, "GET", "http://shop.test/__webchaos/other"))
    assert other.response is not None and other.response.status_code == 403


async def test_no_recording_means_404_and_no_file(chain: Chain) -> None:
    ep = chain.open([])
    ep.record_actions = False
    f = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/actions", b'{"actions": []}'))
    assert f.response is not None and f.response.status_code == 404
    await chain.recorder.export(ep)
    assert not (ep.out_dir / "actions.jsonl").exists()
    recording = chain.open([], name="ep2", record_actions=True)
    await chain.recorder.export(recording)
    assert (recording.out_dir / "actions.jsonl").read_text() == ""

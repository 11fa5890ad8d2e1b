"""iframe_widget without a browser: its two halves' specs, the frame host admitted by the guard, the frame page
answered from the proxy for the episode's own widget only, and the script that moves the control."""

from pathlib import Path
from typing import Any

import pytest
from mitmproxy.test import taddons

from proxy_addons.client.frames import FRAME_HOST_LABEL, WIDGET_PATH, frame_hosts, widget_path
from proxy_addons.client.inject import script_source
from scenarios.faults import FaultError, parse_fault
from tests.proxy_addons.conftest import Chain, ledger

CLIENT_DIR = Path(__file__).resolve().parents[2] / "proxy_addons" / "client"
TARGET = {"host": "shop.test", "role": "button", "name": "Add to cart"}
FRAME_MATCH = {"host": "pay.*", "path": "/widget/*", "methods": ["GET"]}


def widget(**params: Any) -> list[dict[str, Any]]:
    """Both halves, as the recipe arms them."""
    return [{"id": "w1", "type": "iframe_widget", "layer": "client", "match": TARGET, "params": params},
            {"id": "host", "type": "iframe_widget", "layer": "network", "match": FRAME_MATCH}]


@pytest.fixture
def frames_chain(chain: Chain) -> Chain:
    """The chain with the frame hosts admitted, as harness/services/processes.py starts the proxy."""
    with taddons.context(chain.guard) as tctx:
        tctx.configure(chain.guard, webchaos_site_hosts=",".join(["shop.test", *frame_hosts(["shop.test"])]))
    return chain


def test_the_frame_host_is_pay_dot_the_site_host_in_python_and_in_the_script() -> None:
    assert frame_hosts(["shop.test", "mail.test"]) == ["pay.shop.test", "pay.mail.test"]
    source = (CLIENT_DIR / "frames.js").read_text()
    assert f'WIDGET_HOST_LABEL = "{FRAME_HOST_LABEL}."' in source
    assert f'WIDGET_PATH = "{WIDGET_PATH}"' in source
    assert widget_path("iframe_widget#0") == "/widget/iframe_widget%230"


@pytest.mark.parametrize(("envelope", "where"), [
    ({"type": "iframe_widget", "layer": "client", "match": {"role": "link", "name": "Home"}}, "moves a button"),
    ({"type": "iframe_widget", "layer": "client", "match": {"role": "button"}}, "moves a button"),
    ({"type": "iframe_widget", "layer": "client", "match": TARGET, "params": {"height_px": 5}}, "height_px"),
    ({"type": "iframe_widget", "layer": "network", "match": {"host": "shop.test"}}, "pay.<site host>"),
    ({"type": "iframe_widget", "layer": "network"}, "pay.<site host>"),
])
def test_bad_specs_say_what_each_half_needs(envelope: dict[str, Any], where: str) -> None:
    with pytest.raises(FaultError, match=r"faults\[0\]") as raised:
        parse_fault(envelope, 0)
    assert where in str(raised.value)


def test_the_halves_parse_with_their_defaults() -> None:
    client, host = (parse_fault(raw, i) for i, raw in enumerate(widget()))
    assert client[1].model_dump()["provider"] == "PayBridge"
    assert type(host[1]).name == type(client[1]).name == "iframe_widget"


async def test_the_widget_page_is_answered_by_the_proxy_for_the_episodes_own_widget(frames_chain: Chain) -> None:
    ep = frames_chain.open(widget(provider="Acme <Pay>"), record_actions=True)
    page = await frames_chain.send(frames_chain.flow(ep, "GET", "http://pay.shop.test" + widget_path("w1")))
    assert page.response is not None and page.response.status_code == 200
    text = page.response.text or ""
    assert page.response.headers["content-security-policy"] == "frame-ancestors http://shop.test"
    assert '<button type="button" id="widget-action">Add to cart</button>' in text
    assert "Secured by Acme &lt;Pay&gt;" in text  # escaped
    assert '"http://shop.test"' in text and '"widget": "w1"' in text  # posts only to its parent's origin
    assert "startRecorder" in text  # the frame's GUI actions reach the actions log
    lines = ledger(ep)
    assert [(x["layer"], x["type"], x["request"]["host"], x["detail"]) for x in lines] == [
        ("network", "iframe_widget", "pay.shop.test", {"widget": "w1"})]


async def test_over_https_the_page_posts_to_the_https_parent(frames_chain: Chain) -> None:
    ep = frames_chain.open(widget())
    page = await frames_chain.send(frames_chain.flow(ep, "GET", "https://pay.shop.test" + widget_path("w1")))
    assert page.response is not None and page.response.status_code == 200
    assert page.response.headers["content-security-policy"] == "frame-ancestors https://shop.test"
    assert "startRecorder" not in (page.response.text or "")  # this episode records no actions


async def test_another_episodes_widget_or_an_unknown_one_is_never_served(frames_chain: Chain) -> None:
    mine = frames_chain.open(widget(), name="mine")
    other = frames_chain.open([widget()[1]], name="other")  # the host half only: no widget of its own
    theirs = await frames_chain.send(frames_chain.flow(other, "GET", "http://pay.shop.test" + widget_path("w1")))
    unknown = await frames_chain.send(frames_chain.flow(mine, "GET", "http://pay.shop.test/widget/nope"))
    host_half = await frames_chain.send(frames_chain.flow(mine, "GET", "http://pay.shop.test" + widget_path("host")))
    for flow in (theirs, unknown, host_half):
        assert flow.response is not None and flow.response.status_code == 404
        assert b"Add to cart" not in flow.response.content


async def test_other_paths_of_the_frame_host_go_on_to_the_sites_server_unanswered_here(frames_chain: Chain) -> None:
    ep = frames_chain.open(widget())
    other = await frames_chain.send(frames_chain.flow(ep, "GET", "http://pay.shop.test/"))
    post = await frames_chain.send(frames_chain.flow(ep, "POST", "http://pay.shop.test" + widget_path("w1")))
    for flow in (other, post):
        assert flow.response is not None and flow.response.content == b"upstream"  # the sites server 404s it
    assert ledger(ep) == []


async def test_without_the_frame_hosts_the_guard_refuses_them(chain: Chain) -> None:
    ep = chain.open(widget())
    refused = await chain.send(chain.flow(ep, "GET", "http://pay.shop.test" + widget_path("w1")))
    assert refused.response is not None and refused.response.status_code == 403
    assert [(x["layer"], x["type"]) for x in ledger(ep)] == [("guard", "refused")]


async def test_the_page_gets_the_frames_script_and_the_injected_line(frames_chain: Chain) -> None:
    from tests.proxy_addons.test_client import PAGE, config_of, html

    ep = frames_chain.open(widget())
    page = await frames_chain.send(frames_chain.flow(ep, "GET", "http://shop.test/product/p1",
                                                     headers={"accept": "text/html"}), html(PAGE))
    assert page.response is not None
    assert [f["id"] for f in config_of(page.response.content)["faults"]] == ["w1"]
    assert b"RUNNERS.iframe_widget = function" in page.response.content
    assert [(x["layer"], x["detail"]["event"]) for x in ledger(ep)] == [("client", "injected")]


def test_the_script_only_trusts_its_own_frames_messages() -> None:
    source = script_source([{"id": "w1", "type": "iframe_widget", "params": {}, "target": {}}], False)
    assert "event.origin !== origin || event.source !== frame.contentWindow" in source


def test_the_types_files_and_its_move_count_only_for_the_variants_that_use_it() -> None:
    from harness.catalog.validate import _other_types, answer_files, type_files

    keys = frozenset({"client:iframe_widget", "network:iframe_widget"})
    module, script = Path("proxy_addons/client/frames.py"), Path("proxy_addons/client/frames.js")
    own = {module, script}
    assert type_files()[module] == keys and type_files()[script] == {"client:iframe_widget"}
    move = Path("harness/agents/moves/frames.py")
    assert answer_files()[move] == {"client:iframe_widget"}
    assert own | {move} <= _other_types(frozenset({"client:overlay"}))  # left out of others' digests
    assert not (own | {move}) & _other_types(keys)

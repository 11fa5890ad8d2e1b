"""rrweb page recording without a browser: injection, the /__webchaos/rrweb endpoint, its cap, no rrweb."""

import asyncio
import json
import logging
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from mitmproxy.flow import Error as flow_error

from proxy_addons import rrweb
from proxy_addons.client.inject import script_source
from proxy_addons.guard import reserved_path
from proxy_addons.rrweb import RRWEB_FILE, record_script
from tests.proxy_addons.conftest import Chain
from tests.proxy_addons.test_client import config_of, html

pytestmark = pytest.mark.skipif(record_script() is None, reason="rrweb not installed (make rrweb)")


def batch(rec: int, events: list[dict[str, Any]]) -> bytes:
    return json.dumps({"rec": rec, "events": events}).encode()


def event(kind: int = 3, ts: float = 1_700_000_000_000.0, **data: Any) -> dict[str, Any]:
    return {"type": kind, "timestamp": ts, "data": data}


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


async def test_each_recorded_page_loads_the_served_recorder_and_gets_its_own_recording_number(
        chain: Chain) -> None:
    ep = chain.open([], record_replay=True)
    numbers = []
    for path in ("/", "/product/1"):
        f = await chain.send(chain.flow(ep, "GET", f"http://shop.test{path}"), html())
        body = f.response.content if f.response is not None else b""
        assert body is not None
        config = config_of(body)
        assert config["rrweb"] == "/__webchaos/rrweb" and config["actions"] is None
        numbers.append(config["rrweb_rec"])
        assert config["rrweb_script"].startswith("/__webchaos/rrweb-record.js?v=")
        # The recorder is not in the page: a page grows by the small injected script only.
        assert b"rrwebRecord" not in body and len(body) < len(html().content or b"") + 40_000
    assert numbers == [1, 2] and ep.replay_pages == 2
    off = chain.open([], name="ep2")
    f = await chain.send(chain.flow(off, "GET", "http://shop.test/"), html())
    assert f.response is not None and b"data-webchaos" not in (f.response.content or b"")


def test_the_injected_script_parses() -> None:
    source = script_source([], record_actions=True, rrweb_rec=3)
    assert '"rrweb_rec": 3' in source
    node = subprocess.run(["node", "--check", "-"], input=source, text=True, capture_output=True)
    assert node.returncode == 0, node.stderr


async def test_the_recorder_script_is_served_cacheable_and_kept_out_of_the_har(chain: Chain) -> None:
    ep = chain.open([], record_replay=True)
    page = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    url = config_of(page.response.content or b"" if page.response else b"")["rrweb_script"]
    f = await chain.send(chain.flow(ep, "GET", f"http://shop.test{url}"))
    assert f.response is not None and f.response.status_code == 200
    assert f.response.headers["content-type"].startswith("text/javascript")
    assert "immutable" in f.response.headers["cache-control"]
    source = f.response.get_text() or ""
    assert "me.webchaosRecord = holder.rrwebRecord" in source and "sourceMappingURL" not in source
    node = await asyncio.to_thread(subprocess.run, ["node", "--check", "-"], input=source, text=True,
                                   capture_output=True)
    assert node.returncode == 0, node.stderr
    post = await chain.send(chain.flow(ep, "POST", f"http://shop.test{url}", b"x"))
    assert post.response is not None and post.response.status_code == 405
    assert [e["request"]["url"] for e in chain.recorder.har(ep)["log"]["entries"]] == ["http://shop.test/"]
    off = chain.open([], name="ep2")  # an episode that does not record gets nothing
    gone = await chain.send(chain.flow(off, "GET", f"http://shop.test{url}"))
    assert gone.response is not None and gone.response.status_code == 404


def test_the_endpoint_is_not_a_reserved_path_but_its_neighbours_are() -> None:
    assert not reserved_path("/__webchaos/rrweb")
    assert not reserved_path("/__webchaos/rrweb-record.js")
    assert not reserved_path("/__WEBCHAOS/./rrweb")
    assert reserved_path("/__webchaos/rrweb2") and reserved_path("/__webchaos/rrweb/x")


async def test_batches_are_stored_one_event_a_line_and_kept_out_of_the_har(chain: Chain) -> None:
    ep = chain.open([], record_replay=True)
    await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    events = [event(4, href="http://shop.test/", width=1280, height=900), event(2, node={"id": 1})]
    f = chain.flow(ep, "POST", "http://shop.test/__webchaos/rrweb", batch(1, events))
    await chain.send(f)
    assert f.response is not None and f.response.status_code == 204
    assert f.metadata["webchaos"]["local"] is True and f.id not in ep.flows
    head, *rest = lines(ep.out_dir / RRWEB_FILE)
    assert head["webchaos_rrweb"] == 1 and head["cap_bytes"] == rrweb.MAX_RRWEB_BYTES
    assert abs(head["opened_epoch_ms"] / 1000 - time.time()) < 60
    assert rest == [{"rec": 1, "event": e} for e in events]


@pytest.mark.parametrize("path", ["/__webchaos/rrweb", "/__webchaos/actions", "/__WEBCHAOS/./rrweb"])
async def test_an_upload_cut_off_before_its_body_stays_out_of_the_har(chain: Chain, path: str) -> None:
    # The page's last upload can still be sending when the episode closes: only requestheaders runs, then
    # the connection drops. The HAR must not get an errored entry for the stack's own traffic.
    ep = chain.open([], record_replay=True, record_actions=True)
    await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    cut = chain.flow(ep, "POST", f"http://shop.test{path}", batch(1, []))
    await chain.hook("requestheaders", cut)
    cut.error = flow_error("connection closed")
    await chain.hook("error", cut)
    elsewhere = chain.flow(ep, "POST", f"http://evil.example{path}", b"{}")  # not a site host: a probe, kept
    await chain.send(elsewhere)
    urls = [e["request"]["url"] for e in chain.recorder.har(ep)["log"]["entries"]]
    assert urls == ["http://shop.test/", f"http://evil.example{path}"]


@pytest.mark.parametrize("body", [
    b"not json", b"[]", json.dumps({"rec": 1}).encode(), json.dumps({"rec": 1, "events": [], "x": 1}).encode(),
    batch(0, []), batch(2, []),  # rec 2 was never handed out
    json.dumps({"rec": True, "events": []}).encode(),
    batch(1, [{"type": 3}]), batch(1, [{"type": 99, "timestamp": 1}]), batch(1, [{"type": 3, "timestamp": "x"}]),
    batch(1, [[1, 2]]),
])
async def test_bad_batches_get_a_400_and_nothing_is_written(chain: Chain, body: bytes) -> None:
    ep = chain.open([], record_replay=True)
    await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    f = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/rrweb", body))
    assert f.response is not None and f.response.status_code == 400, f.response.content
    assert not (ep.out_dir / RRWEB_FILE).exists()


async def test_method_encoding_and_episodes_that_do_not_record(chain: Chain) -> None:
    ep = chain.open([], record_replay=True)
    await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    get = await chain.send(chain.flow(ep, "GET", "http://shop.test/__webchaos/rrweb"))
    assert get.response is not None and get.response.status_code == 405
    gz = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/rrweb", batch(1, [event()]),
                                     {"content-encoding": "gzip"}))
    assert gz.response is not None and gz.response.status_code == 415
    off = chain.open([], name="ep2")
    no = await chain.send(chain.flow(off, "POST", "http://shop.test/__webchaos/rrweb", batch(1, [event()])))
    assert no.response is not None and no.response.status_code == 404
    assert not (off.out_dir / RRWEB_FILE).exists()


async def test_the_cap_cuts_the_recording_once_with_a_marker(chain: Chain) -> None:
    chain.rrweb.cap = 2000
    ep = chain.open([], record_replay=True)
    await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
    statuses = []
    for _ in range(6):
        f = await chain.send(chain.flow(ep, "POST", "http://shop.test/__webchaos/rrweb",
                                        batch(1, [event(3, text="x" * 300)])))
        assert f.response is not None
        statuses.append(f.response.status_code)
    assert statuses[:2] == [204, 204] and statuses[-1] == 413 and statuses.count(204) == statuses.index(413)
    path = ep.out_dir / RRWEB_FILE
    markers = [x for x in lines(path) if x.get("truncated")]
    assert len(markers) == 1 and markers[0]["cap_bytes"] == 2000 and markers[0]["dropped_events"] == 1
    assert path.stat().st_size <= 2000 + len(json.dumps(markers[0])) + 1


async def test_without_rrweb_installed_nothing_is_recorded_and_one_warning_says_why(
        chain: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("WEBCHAOS_RRWEB_DIR", str(tmp_path / "nowhere"))
    record_script.cache_clear()
    try:
        with caplog.at_level(logging.WARNING):
            ep = chain.open([], record_replay=True, record_actions=True)
            for _ in range(2):
                f = await chain.send(chain.flow(ep, "GET", "http://shop.test/"), html())
                assert f.response is not None
                config = config_of(f.response.content or b"")
                assert "rrweb" not in config and config["actions"] == "/__webchaos/actions"
                assert b"rrweb-record.js" not in (f.response.content or b"")
            only = chain.open([], name="ep2", record_replay=True)
            page = await chain.send(chain.flow(only, "GET", "http://shop.test/"), html())
            assert page.response is not None and b"data-webchaos" not in (page.response.content or b"")
        warnings = [r for r in caplog.records if "rrweb is not installed" in r.getMessage()]
        assert len(warnings) == 1 and "make rrweb" in warnings[0].getMessage()
    finally:
        monkeypatch.delenv("WEBCHAOS_RRWEB_DIR")
        record_script.cache_clear()
    assert record_script() is not None

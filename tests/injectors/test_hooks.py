"""The hook machinery: failing hooks, bad specs, the oracle ledger, the registry."""

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from harness.episodes.manager import append_site_ledger
from injectors.hookspec import Firing, ServerCall
from injectors.reads import SearchDegraded
from injectors.writes import PartialWrite
from scenarios.faults import FaultError, Layer, lookup, parse_fault, registry
from scenarios.loader import ScenarioError, load_catalog
from sites.kit.hooks import arm_site_faults
from sites.server import build
from sites.shop.site import SITE as SHOP
from tests.injectors.helpers import client, fault, ledger, open_episode, state_of


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("injected bug")


async def test_a_raising_after_hook_answers_500_logs_and_rolls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(PartialWrite, "after", boom)
    app, _, episode = open_episode([fault("partial_write", "server")])
    before, events, ticks = episode.state_bytes(), len(episode.events), episode.clock._ticks
    async with client(app, episode) as c:
        answer = await c.post("/api/cart", json={"product_id": episode.bindings["target"]["id"]})
    assert answer.status_code == 500
    assert "partial_write#0 failed (RuntimeError: injected bug)" in answer.json()["detail"]
    assert episode.state_bytes() == before and len(episode.events) == events and episode.clock._ticks == ticks
    (line,) = [line for line in episode.ledger.lines if line["type"] == "hook_error"]
    assert line["layer"] == "server" and line["fault_id"] == "partial_write#0"
    assert line["detail"]["fault_type"] == "partial_write" and line["request"]["path"] == "/api/cart"


async def test_a_raising_results_hook_gives_an_error_page(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SearchDegraded, "results", boom)
    app, _, episode = open_episode([fault("search_degraded", "server")])
    before = episode.state_bytes()
    async with client(app, episode) as c:
        answer = await c.get("/search", params={"q": "a"})
    assert answer.status_code == 500 and "search_degraded#0 failed" in answer.text
    assert episode.state_bytes() == before
    assert [t for _, t, _, _ in ledger(episode)] == ["hook_error"]
    assert not [e for e in episode.events if e.name == "search"]


def test_a_raising_seed_hook_refuses_the_episode(monkeypatch: pytest.MonkeyPatch) -> None:
    from injectors.noise import NoiseRecords

    monkeypatch.setattr(NoiseRecords, "seed", boom)
    with pytest.raises(FaultError, match=r"noise_records#0: seed hook failed: RuntimeError: injected bug"):
        open_episode([fault("noise_records", "seed")])


def test_unsupported_site_and_duplicate_ids_fail_when_armed() -> None:
    with pytest.raises(FaultError, match=r"fault 'noise_records#0': site 'bare' does not implement the seed fault "
                                         r"type 'noise_records'"):
        arm_site_faults([fault("noise_records", "seed")], 1, "bare", {})
    shop = SHOP.faults
    with pytest.raises(FaultError, match="duplicate fault id 'x'"):
        arm_site_faults([fault("noise_records", "seed", id="x"), fault("stale_read", "server", id="x")], 1, "shop",
                        shop)
    armed = arm_site_faults([fault("latency", "network", params={"delay_ms": 1}), fault("stale_read", "server")],
                            1, "shop", shop)
    assert [f.id for f in armed] == ["stale_read#1"]


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (fault("decoy_items", "seed", params={"count": 0}),
         r"faults\[0\]\.params\.count: .*greater than or equal to 1 \(parameters of 'decoy_items': count\)"),
        (fault("hard_negatives", "seed", params={"colour": 1}),
         r"faults\[0\]\.params\.colour: Extra inputs .*\(parameters of 'hard_negatives': count, before_target\)"),
        (fault("stale_read", "seed"), r"faults\[0\]\.layer: 'stale_read' is a server fault, not seed"),
        (fault("write_fails_after_commit", "server", params={"status": 200}),
         r"faults\[0\]\.params\.status: .*greater than or equal to 500"),
        (fault("noise_record", "seed"),
         r"faults\[0\]\.type: unknown fault type 'noise_record'; known: .*noise_records"),
    ],
)
def test_bad_seed_and_server_specs_name_index_field_and_allowed_values(raw: dict[str, Any], message: str) -> None:
    with pytest.raises(FaultError, match=message):
        parse_fault(raw, 0)


def test_bad_spec_in_a_catalog_file_names_the_file(tmp_path: Path) -> None:
    tasks = Path(__file__).resolve().parents[2] / "scenarios" / "catalog" / "shop" / "tasks.yaml"
    bad = tmp_path / "variants.yaml"
    bad.write_text(
        "variants:\n"
        "  - id: v1\n    title: t\n    tasks: [shop_add_to_cart]\n    target_primitive: grounding\n"
        "    faults:\n      - {type: aliases, layer: seed}\n"
        "      - {type: session_expiry, layer: server, params: {max_times: 0}}\n"
    )
    with pytest.raises(ScenarioError) as caught:
        load_catalog(tasks, bad)
    text = str(caught.value)
    assert str(bad) in text and "variants[0].faults[1].params.max_times" in text and "max_times" in text


def test_every_seed_and_server_type_is_registered_with_its_layer() -> None:
    types = registry()
    seed = {k for k, v in types.items() if v.layer == Layer.seed}
    server = {v.name for v in types.values() if v.layer == Layer.server}
    assert seed == {"decoy_items", "hard_negatives", "phishing_message", "noise_records", "push_past_first_page",
                    "aliases", "contradictory_update", "planted_wrong_answer", "out_of_stock_primary",
                    "target_missing"}
    assert server == {"write_fails_after_commit", "write_fails_before_commit", "partial_write", "stale_read",
                      "session_expiry", "validation_reject_once", "concurrent_edit", "price_change_at_checkout",
                      "item_removed_mid_flow", "search_degraded", "pagination_drift", "extra_charge"}
    assert lookup("session_expiry", Layer.server) is not None


def test_hook_base_defaults_are_neutral() -> None:
    kind = PartialWrite()
    call = ServerCall(episode=None, site="shop", point="x", kind="read", method="GET", host="shop.test", path="/",
                      query={})
    assert not kind.applies_to(call)
    (firing,) = arm_site_faults([fault("partial_write", "server")], 1, "shop", SHOP.faults)
    assert isinstance(firing, Firing) and firing.id == "partial_write#0"
    firing.note(event="x")
    assert firing.notes == [{"event": "x"}]


async def test_oracle_serves_the_ledger() -> None:
    _, oracle, _ = build()
    transport = httpx.ASGITransport(app=oracle)
    async with httpx.AsyncClient(transport=transport, base_url="http://oracle") as o:
        created = await o.post("/episodes", json={"site": "shop", "task_id": "t", "seed": 2, "episode_id": "e1",
                                                  "faults": [fault("noise_records", "seed", params={"count": 2}),
                                                             fault("latency", "network", params={"delay_ms": 5})]})
        assert created.status_code == 201, created.text
        lines = (await o.get("/episodes/e1/ledger")).json()
        bad = await o.post("/episodes", json={"site": "shop", "task_id": "t", "seed": 2,
                                              "faults": [fault("aliases", "server")]})
    assert [(line["seq"], line["layer"], line["type"]) for line in lines] == [(1, "seed", "noise_records")]
    assert set(lines[0]) == {"seq", "t_ms", "layer", "type", "fault_id", "flow_id", "request", "detail"}
    assert bad.status_code == 422 and "faults[0].layer" in bad.text


def test_site_ledger_lines_continue_the_proxy_seq(tmp_path: Path) -> None:
    path = tmp_path / "faults.jsonl"
    path.write_text('{"seq":1,"layer":"network"}\n{"seq":2,"layer":"client"}\n')
    _, _, episode = open_episode([fault("noise_records", "seed"), fault("aliases", "seed")])
    assert append_site_ledger(path, episode.ledger.lines) == 2
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(e["seq"], e["layer"]) for e in lines] == [(1, "network"), (2, "client"), (3, "seed"), (4, "seed")]
    fresh = tmp_path / "none.jsonl"
    append_site_ledger(fresh, episode.ledger.lines)
    assert [json.loads(line)["seq"] for line in fresh.read_text().splitlines()] == [1, 2]


def test_state_is_unchanged_when_no_fault_is_armed() -> None:
    _, _, a = open_episode([])
    _, _, b = open_episode([fault("latency", "network", params={"delay_ms": 5})])
    assert a.initial_state == b.initial_state and state_of(a)["messages"] == [] and state_of(a)["reviews"] == []

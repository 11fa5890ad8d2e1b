"""The run-time envelope checks both processes share (scenarios/arming.py)."""

import pytest

from scenarios.arming import ArmError, no_such_fault, parse_runtime_fault
from scenarios.faults import PROXY_LAYERS, SITE_LAYERS, Layer

LATENCY = {"type": "latency", "layer": "network", "params": {"delay_ms": 5}}
STALE = {"type": "stale_read", "layer": "server"}


def refused(raw: object, here: tuple[Layer, ...], ids: list[str] | None = None) -> ArmError:
    with pytest.raises(ArmError) as caught:
        parse_runtime_fault(raw, here, "e1", ids or [], 0)
    return caught.value


def test_an_envelope_gets_a_run_time_id_unless_it_has_one() -> None:
    spec, params = parse_runtime_fault(LATENCY, PROXY_LAYERS, "e1", [], 2)
    assert spec.id == "latency@3" and type(params).name == "latency"
    spec, _ = parse_runtime_fault({**STALE, "id": "mine"}, (Layer.server,), "e1", [], 0)
    assert spec.id == "mine"


def test_each_layer_is_sent_where_it_is_armed() -> None:
    seed = refused({"type": "decoy_items", "layer": "seed"}, SITE_LAYERS)
    assert seed.status == 422 and "only when the episode opens" in str(seed)
    at_proxy = refused(STALE, PROXY_LAYERS)
    assert at_proxy.status == 422 and "armed at the sites" in str(at_proxy)
    at_sites = refused(LATENCY, (Layer.server,))
    assert at_sites.status == 422 and "armed at the proxy" in str(at_sites)


def test_a_bad_envelope_names_the_field() -> None:
    assert refused(["latency"], PROXY_LAYERS).status == 422
    bad = refused({**LATENCY, "params": {"delay_ms": -1}}, PROXY_LAYERS)
    assert bad.status == 422 and str(bad).startswith("fault.params.delay_ms")


def test_an_id_the_episode_has_is_a_conflict_and_an_unknown_one_is_not_found() -> None:
    taken = refused({**LATENCY, "id": "x"}, PROXY_LAYERS, ids=["x"])
    assert taken.status == 409 and "'e1' already has a fault 'x'" in str(taken)
    missing = no_such_fault("e1", "y", ["x"], kind="server")
    assert missing.status == 404 and str(missing) == "fault_id: episode 'e1' has no server fault 'y' (armed here: x)"

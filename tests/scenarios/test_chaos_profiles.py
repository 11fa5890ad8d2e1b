"""Chaos profiles: the built-in ones load and fit every site; bad files are named with field and expectation."""

from pathlib import Path

import pytest

from harness.episodes.manager import EpisodeSpec
from harness.run.overlays import with_overlays
from scenarios.chaos_profiles import builtin_profiles, load_profile
from scenarios.faults import parse_fault
from scenarios.loader import ScenarioError
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()


def test_builtin_profiles_load_and_their_server_faults_work_on_every_site() -> None:
    assert builtin_profiles() == ["all-weather", "flaky-network", "hostile-page", "hostile-web"]
    weather = load_profile("all-weather")
    ids = [f["id"] for f in weather.faults]
    assert ids[:4] == [f["id"] for f in load_profile("flaky-network").faults]  # included first
    layers = {f["layer"] for f in weather.faults}
    assert layers == {"network", "client", "server"}
    for fault in weather.faults:  # generic types only: no site has to implement anything
        if fault["layer"] == "server":
            _, params = parse_fault(fault, 0)
            assert type(params).site_protocol is None, fault["type"]


def test_flaky_network_cites_where_its_rates_come_from() -> None:
    text = Path(load_profile("flaky-network").path).read_text()
    for source in ("Web Almanac 2020", "Wessels", "Kalyanakrishnan"):
        assert source in text


def test_profiles_are_laid_over_each_base_episode_beside_the_clean_one() -> None:
    task = CATALOG.tasks["shop_add_to_cart"]
    variant = CATALOG.variants_for("shop_add_to_cart")[0]
    planned = [EpisodeSpec(task, None, 1), EpisodeSpec(task, variant, 1)]
    specs = with_overlays(planned, ["flaky-network", "hostile-page"])
    assert [s.overlay for s in specs] == [None, None, "profile:flaky-network", "profile:hostile-page"]
    assert specs[2].variant is None and specs[2].faults == load_profile("flaky-network").faults
    with pytest.raises(ValueError, match="same profile given twice"):
        with_overlays(specs[:1], ["flaky-network", "flaky-network"])


@pytest.mark.parametrize(("text", "field", "expected"), [
    ("name: Bad Name\n", "name", "should match pattern"),
    ("name: x\nfaults: [{type: decoy_items, layer: seed}]\n", "faults[0].layer", "seed faults"),
    ("name: x\nfaults: [{type: price_change_at_checkout, layer: server}]\n", "faults[0].type", "every site"),
    ("name: x\nfaults: [{type: latency, layer: network, params: {delay_ms: -1}}]\n", "faults[0].params.delay_ms",
     "greater than or equal"),
    ("name: x\nfaults: [{id: a, type: error, layer: network}, {id: a, type: error, layer: network}]\n",
     "faults[1].id", "duplicate"),
    ("name: x\ninclude: [nope]\n", "(profile)", "no built-in chaos profile"),
    ("name: x\nrates: 3\n", "rates", "unknown field"),
])
def test_bad_profiles_name_file_field_and_expectation(tmp_path: Path, text: str, field: str, expected: str) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=expected) as error:
        load_profile(str(path))
    assert error.value.where == field
    assert error.value.file in (str(path), "nope")

"""Sites are discovered from their folders; what they declare is checked where it is used."""

import inspect
from pathlib import Path

import pytest

from injectors.hookspec import SiteSpecific
from scenarios.faults import Layer, lookup
from scenarios.loader import ScenarioError, load_catalog
from scenarios.profile import EventVocabulary, SiteProfile
from sites.registry import all_sites, load_site_catalog, profiles

SITES_DIR = Path(__file__).resolve().parents[2] / "sites"


def test_every_site_folder_is_discovered_under_its_own_name() -> None:
    folders = sorted(p.parent.name for p in SITES_DIR.glob("*/site.py") if p.parent.name != "kit")
    assert sorted(all_sites()) == folders
    for name, site in all_sites().items():
        assert site.name == name and site.host == f"{name}.test"


def _family(name: str) -> type[SiteSpecific]:
    kind = lookup(name, Layer.seed) or lookup(name, Layer.server)
    assert kind is not None and issubclass(kind, SiteSpecific), name
    return kind


@pytest.mark.parametrize("site", sorted(all_sites()))
def test_each_fault_implementation_has_what_its_family_protocol_asks(site: str) -> None:
    for name, impl in all_sites()[site].faults.items():
        protocol = _family(name).site_protocol
        assert protocol is not None, f"{site}: {name} needs no site implementation"
        members = {m for m in vars(protocol) if not m.startswith("_")} | set(protocol.__annotations__)
        if "__call__" in vars(protocol):
            assert callable(impl), f"{site}: {name} must be callable"
            wanted = len(inspect.signature(vars(protocol)["__call__"]).parameters) - 1
            assert len(inspect.signature(impl).parameters) == wanted, f"{site}: {name} takes {wanted} arguments"
        missing = sorted(m for m in members if not hasattr(impl, m))
        assert missing == [], f"{site}: {name} lacks {missing}"


def test_profiles_list_the_fault_types_each_site_implements() -> None:
    for name, profile in profiles().items():
        assert profile.fault_types == sorted(all_sites()[name].faults)


CATALOG = """
tasks:
  - id: t1
    site: shop
    title: Add to cart
    instruction: Add one thing.
    primitives: [grounding]
    plan: [{do: goto, url: /}]
    canonical_diff: {create: [{collection: cart_items, desc: something}]}
variants:
  - id: v1
    title: Noise
    tasks: [t1]
    target_primitive: state_tracking
    faults: [{type: noise_records, layer: seed}]
"""


def test_catalog_load_refuses_a_fault_the_site_does_not_implement(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CATALOG)
    bare = SiteProfile(name="shop", host="shop.test", title="Bare",
                       vocabulary=EventVocabulary(entity_kinds=[], listed=[], touched=[]), fault_types=[])
    with pytest.raises(ScenarioError) as raised:
        load_catalog(path, profiles={"shop": bare})
    message = str(raised.value)
    assert str(path) in message and "variant v1.faults[0].type" in message
    assert "site 'shop'" in message and "'noise_records'" in message
    load_site_catalog(path)  # the real shop implements it


def test_catalog_load_refuses_a_task_on_an_unknown_site(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(CATALOG.replace("site: shop", "site: nowhere"))
    with pytest.raises(ScenarioError, match=r"task t1\.site: unknown site 'nowhere'"):
        load_site_catalog(path)


def test_extra_sites_are_served_next_to_the_discovered_ones_under_a_name_of_their_own() -> None:
    from tests.sites.tiny.site import SITE as TINY

    assert all_sites(extra=[TINY])["tiny"] is TINY and "tiny" not in all_sites()
    assert profiles(extra=[TINY])["tiny"].fault_types == ["decoy_items"]
    shop = all_sites()["shop"]
    with pytest.raises(ValueError, match="extra site 'shop': a site of that name is already served"):
        all_sites(extra=[shop])

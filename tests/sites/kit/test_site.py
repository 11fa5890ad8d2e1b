"""A site's declaration: what the kit derives from it rather than have it said twice."""

from pathlib import Path

from sites.kit.site import Site
from sites.registry import all_sites
from tests.sites.tiny.site import SITE as TINY


def test_package_dir_is_the_folder_of_the_module_that_declares_the_state_type() -> None:
    sites_dir = Path(__file__).resolve().parents[3] / "sites"
    for name, site in all_sites().items():
        assert site.package_dir == sites_dir / name
        assert (site.package_dir / "templates").is_dir()


def test_a_declaration_may_name_its_package_dir(tmp_path: Path) -> None:
    named = Site(profile=TINY.profile, state_type=TINY.state_type, generate=TINY.generate, routers=TINY.routers,
                 account_email=TINY.account_email, package_dir=tmp_path)
    derived = Site(profile=TINY.profile, state_type=TINY.state_type, generate=TINY.generate, routers=TINY.routers,
                   account_email=TINY.account_email)
    assert named.package_dir == tmp_path
    assert derived.package_dir == Path(__file__).resolve().parents[1] / "tiny"

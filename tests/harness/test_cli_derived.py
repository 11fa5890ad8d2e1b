"""What `webchaos list` and `faults` keep between runs (harness/cli/derived.py, harness/cli/listings.py): read back
only while every input holds the same bytes; a stale, corrupt or unwritable cache costs a rebuild, never a
wrong answer."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.cli import derived, listings
from harness.config import PROJECT_ROOT

WEBCHAOS = [sys.executable, "-m", "harness.cli.main"]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "webchaos"


def _counting(value: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def derive() -> object:
        calls.append(1)
        return value
    return calls, derive


def test_cache_dir_follows_xdg_and_ignores_a_relative_one(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert derived.cache_dir() == tmp_path / "webchaos"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert derived.cache_dir() == Path.home() / ".cache" / "webchaos"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert derived.cache_dir() == Path.home() / ".cache" / "webchaos"


def test_a_value_is_derived_once_per_inputs(cache: Path) -> None:
    calls, derive = _counting({"rows": [1, 2, "three"]})
    assert derived.cached("thing", "inputs-a", derive) == {"rows": [1, 2, "three"]}
    assert derived.cached("thing", "inputs-a", derive) == {"rows": [1, 2, "three"]}
    assert len(calls) == 1
    assert derived.cached("thing", "inputs-b", derive) == {"rows": [1, 2, "three"]}
    assert len(calls) == 2
    assert [p.name for p in cache.iterdir()] == ["thing.json"]  # one file per name, no temporaries left


@pytest.mark.parametrize("damage", [
    b"",                                     # empty
    b"not json at all\n[1]",                 # header is not JSON
    b"\xff\xfe\x00garbage",                  # not even text
    None,                                    # payload truncated
    "payload",                               # payload changed, header kept
])
def test_a_corrupt_file_is_ignored_and_rebuilt(cache: Path, damage: bytes | str | None) -> None:
    derived.cached("thing", "inputs", lambda: ["a", "b"])
    path = cache / "thing.json"
    good = path.read_bytes()
    if damage is None:
        path.write_bytes(good[:-3])
    elif damage == "payload":
        path.write_bytes(good.replace(b'"a"', b'"x"'))
    else:
        assert isinstance(damage, bytes)
        path.write_bytes(damage)
    calls, derive = _counting(["a", "b"])
    assert derived.cached("thing", "inputs", derive) == ["a", "b"]
    assert calls == [1]
    assert path.read_bytes() == good


def test_an_unwritable_cache_only_costs_a_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    calls, derive = _counting([1])
    assert derived.cached("thing", "inputs", derive) == [1]
    assert derived.cached("thing", "inputs", derive) == [1]
    assert len(calls) == 2


def test_no_home_folder_only_costs_a_rebuild(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", no_home)
    calls, derive = _counting([1])
    assert derived.cached("thing", "inputs", derive) == [1]
    assert derived.cached("thing", "inputs", derive) == [1]
    assert len(calls) == 2


def test_a_failed_derivation_stores_nothing(cache: Path) -> None:
    def fail() -> object:
        raise ValueError("the catalog does not load")

    with pytest.raises(ValueError):
        derived.cached("thing", "inputs", fail)
    assert not (cache / "thing.json").exists()


def test_the_digest_follows_every_byte_of_every_input(tmp_path: Path) -> None:
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__pycache__").mkdir()
    module, other = tmp_path / "pkg" / "a.py", tmp_path / "pkg" / "sub" / "b.py"
    module.write_text("X = 1\n")
    other.write_text("Y = 2\n")
    (tmp_path / "pkg" / "__pycache__" / "a.cpython-311.py").write_text("not a source")
    (tmp_path / "pkg" / "notes.txt").write_text("not python")
    files = derived.python_files(tmp_path / "pkg")
    assert files == [module, other]
    first = derived.inputs_digest(files, ["fact"])
    assert derived.inputs_digest(files, ["fact"]) == first
    assert derived.inputs_digest(files, ["other fact"]) != first
    module.write_text("X = 2\n")  # same size, one byte
    assert derived.inputs_digest(files, ["fact"]) != first
    module.write_text("X = 1\n")
    assert derived.inputs_digest(files, ["fact"]) == first
    other.unlink()
    assert derived.inputs_digest(files, ["fact"]) != first


def test_fault_plugins_are_found_from_the_installed_entry_points(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site-packages"
    (site / "chaosplug-1.0.dist-info").mkdir(parents=True)
    (site / "chaosplug-1.0.dist-info" / "entry_points.txt").write_text(
        "[console_scripts]\nchaos = chaosplug.cli:main\n\n"
        "[webchaos.faults.network]\nmore = chaosplug.network:register\n")
    (site / "chaosplug").mkdir()
    (site / "chaosplug" / "__init__.py").write_text("")
    (site / "chaosplug" / "network.py").write_text("")
    monkeypatch.syspath_prepend(str(site))
    assert "chaosplug.network" in derived.entry_point_modules(listings.FAULT_PLUGIN_GROUPS)
    assert "chaosplug.cli" not in derived.entry_point_modules(listings.FAULT_PLUGIN_GROUPS)
    assert ("chaosplug-1.0.dist-info", (site / "chaosplug-1.0.dist-info" / "entry_points.txt").read_text()) \
        in derived.distributions()
    files = listings.input_files(listings.FAULT_PACKAGES)
    assert site / "chaosplug" / "network.py" in files
    # the built-in plugins, as pyproject.toml declares them
    assert {"injectors", "proxy_addons.network", "proxy_addons.client"} <= set(
        derived.entry_point_modules(listings.FAULT_PLUGIN_GROUPS))


def test_the_plugin_group_prefix_is_the_registry_s() -> None:
    from scenarios.faults import PLUGIN_GROUP_PREFIX

    assert listings.FAULT_PLUGIN_GROUPS == PLUGIN_GROUP_PREFIX + "."


def test_the_catalog_listing_derives_from_the_catalog_the_sites_the_fault_types_and_the_cli() -> None:
    files = set(listings.input_files(listings.CATALOG_PACKAGES, []))
    for source in ("scenarios/catalog/shop/tasks.yaml", "scenarios/catalog/recipes.yaml", "scenarios/loader.py",
                   "sites/shop/site.py", "sites/shop/faults.py", "sites/kit/site.py", "injectors/noise.py",
                   "proxy_addons/network/__init__.py", "proxy_addons/client/__init__.py", "harness/cli/main.py"):
        assert PROJECT_ROOT / source in files, source
    fault_files = set(listings.input_files(listings.FAULT_PACKAGES))
    assert PROJECT_ROOT / "scenarios" / "faultdocs.py" in fault_files
    assert PROJECT_ROOT / "sites" / "shop" / "site.py" not in fault_files  # sites are above the fault types


def _run(args: list[str], cache_home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*WEBCHAOS, *args], capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache_home), "COLUMNS": "200"})


def test_list_shows_a_change_to_a_catalog_file_at_once_and_survives_a_corrupt_cache(tmp_path: Path) -> None:
    catalog = tmp_path / "tasks.yaml"
    source = (PROJECT_ROOT / "scenarios" / "catalog" / "shop" / "tasks.yaml").read_text()
    catalog.write_text(source)
    first = _run(["list", "--catalog", str(catalog)], tmp_path / "cache")
    assert first.returncode == 0, first.stderr
    title = next(line.split(": ", 1)[1] for line in first.stdout.splitlines() if not line.startswith(" "))
    assert source.count(f"title: {title}\n") == 1
    catalog.write_text(source.replace(f"title: {title}\n", f"title: {title[:-1]}!\n"))
    changed = _run(["list", "--catalog", str(catalog)], tmp_path / "cache")
    assert changed.returncode == 0, changed.stderr
    assert f"{title[:-1]}!" in changed.stdout and title not in changed.stdout.splitlines()[0]
    assert changed.stdout == first.stdout.replace(title, f"{title[:-1]}!", 1)
    kept = sorted((tmp_path / "cache" / "webchaos").iterdir())
    assert kept
    for path in kept:
        path.write_bytes(b"\x00corrupt")
    again = _run(["list", "--catalog", str(catalog)], tmp_path / "cache")
    assert again.returncode == 0, again.stderr
    assert again.stdout == changed.stdout
    assert all(path.read_bytes() != b"\x00corrupt" for path in kept)


def test_a_catalog_that_does_not_load_is_an_error_every_time(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("tasks: [1]\n")
    for _ in range(2):
        out = _run(["list", "--catalog", str(bad)], tmp_path / "cache")
        assert out.returncode == 2
        assert out.stderr.startswith("webchaos: error: scenario error: ") and str(bad) in out.stderr, out.stderr

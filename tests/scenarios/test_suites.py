"""Suite files: what they hold, how a broken one is reported, and the committed ones."""

from pathlib import Path

import pytest

from scenarios.loader import ScenarioError
from scenarios.suites import Suite, SuiteEntry, load_suite, suite_names


def _suite(**changes: object) -> Suite:
    fields: dict[str, object] = {"name": "mine", "version": 2, "purpose": "a test", "seeds": [1, 2],
                                 "entries": [SuiteEntry(task="a"), SuiteEntry(task="a", variant="v")]}
    return Suite.model_validate({**fields, **changes})


def test_a_suite_runs_every_entry_on_each_seed_in_order_and_names_its_version() -> None:
    suite = _suite()
    assert suite.ref == "mine@2" and suite.episodes_per_agent == 4
    assert list(suite.episodes()) == [("a", None, 1), ("a", "v", 1), ("a", None, 2), ("a", "v", 2)]


def test_the_written_file_loads_back_as_the_same_suite(tmp_path: Path) -> None:
    suite = _suite(chosen_with=7)
    (tmp_path / "mine.yaml").write_text(suite.dump())
    assert load_suite("mine", tmp_path) == suite
    assert load_suite("mine@2", tmp_path) == suite and load_suite(tmp_path / "mine.yaml") == suite


@pytest.mark.parametrize(("text", "where", "expected"), [
    ("name: mine\nversion: 0\npurpose: p\nseeds: [1]\nentries: [{task: a}]\n", "version", "greater than or equal to 1"),
    ("name: mine\nversion: 1\npurpose: p\nseeds: [1]\nentries: [{task: a, varient: v}]\n", "entries.0.varient",
     "unknown field; allowed: task, variant"),
    ("name: mine\nversion: 1\npurpose: p\nseeds: []\nentries: [{task: a}]\n", "seeds", "at least 1 item"),
    ("name: [\n", "(file)", "not valid YAML"),
])
def test_a_broken_suite_file_names_file_field_and_what_was_expected(tmp_path: Path, text: str, where: str,
                                                                    expected: str) -> None:
    (tmp_path / "mine.yaml").write_text(text)
    with pytest.raises(ScenarioError) as caught:
        load_suite("mine", tmp_path)
    assert caught.value.file == str(tmp_path / "mine.yaml") and caught.value.where == where
    assert expected in caught.value.message


def test_an_unknown_suite_or_another_version_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "mine.yaml").write_text(_suite().dump())
    with pytest.raises(ScenarioError, match="no such suite; built in: mine"):
        load_suite("yours", tmp_path)
    with pytest.raises(ScenarioError, match="asked for mine@1, the file holds mine@2"):
        load_suite("mine@1", tmp_path)


def test_the_built_in_suites_are_committed() -> None:
    assert suite_names() == ["core", "full", "smoke"]
    assert all(load_suite(name).entries for name in suite_names())


def test_a_suite_is_a_file_of_ones_own_when_it_has_a_path_or_a_yaml_name() -> None:
    from scenarios.suites import names_a_file

    assert names_a_file("suites/mine") and names_a_file("mine.yaml") and names_a_file("./mine.yml")
    assert not names_a_file("core") and not names_a_file("core@1")

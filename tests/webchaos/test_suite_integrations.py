"""A suite reaches every integration as the same episodes: the Python API, the pytest marker, Inspect."""

import pytest

import webchaos
from scenarios.suites import load_suite
from webchaos.inspect_eval import samples, suite_samples, webchaos_task
from webchaos.pytest_plugin import _cases


def test_the_python_api_gives_the_committed_suite() -> None:
    smoke = webchaos.suite("smoke")
    assert isinstance(smoke, webchaos.Suite) and smoke == load_suite("smoke")
    assert {seed for _, _, seed in smoke.episodes()} == {1}


def test_the_pytest_marker_runs_a_suites_episodes_and_nothing_else() -> None:
    assert _cases(pytest.mark.webchaos(suite="smoke").mark) == list(load_suite("smoke").episodes())
    with pytest.raises(pytest.UsageError, match="fixes the tasks, variants and seeds"):
        _cases(pytest.mark.webchaos(suite="smoke", seeds=[2]).mark)
    with pytest.raises(pytest.UsageError, match="no such suite"):
        _cases(pytest.mark.webchaos(suite="nightly").mark)


def test_inspect_samples_are_the_suites_episodes_on_one_site_or_all() -> None:
    smoke = load_suite("smoke")
    every = suite_samples("smoke")
    assert [s.id for s in every] == [f"{t}/{v or 'base'}/s{seed}" for t, v, seed in smoke.episodes()]
    shop = suite_samples("smoke", "shop")
    assert shop and all(str(s.id).startswith("shop_") for s in shop)
    assert len(webchaos_task(None, suite="smoke").dataset) == len(every)
    with pytest.raises(ValueError, match="suite fixes the tasks"):
        webchaos_task("shop", tasks="shop_add_to_cart", suite="smoke")


def test_default_samples_and_marker_cases_leave_out_variants_marked_ineffective() -> None:
    marked = "mail_inbox_pagination_drift"
    assert all(s.metadata and s.metadata["webchaos_variant"] != marked for s in samples("mail"))
    assert marked in [s.metadata["webchaos_variant"] for s in samples("mail", variants=marked) if s.metadata]
    assert all(v != marked for _, v, _ in _cases(pytest.mark.webchaos(task="mail_reply_latest").mark))

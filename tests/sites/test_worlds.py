"""Every site's seeded world: the same seed gives the same bytes, another seed or task another world, unknown
setup params are refused, and a `focus` (where a site offers one) moves only the target binding.

Across processes with different hash seeds: tests/sites/test_catalog_determinism.py."""

import importlib
from typing import Any

import pytest

from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites
from tests.sites.worlds import new_world

SITES = sorted(all_sites())
FOCUSED = [(site, focus) for site in SITES
           for focus in getattr(importlib.import_module(f"sites.{site}.generator"), "FOCUSES", ())]


@pytest.mark.parametrize("seed", [1, 2, 7])
@pytest.mark.parametrize("site", SITES)
def test_same_seed_same_bytes(site: str, seed: int) -> None:
    first, second = new_world(site, seed)[2], new_world(site, seed)[2]
    assert first.state_bytes() == second.state_bytes()
    assert first.bindings == second.bindings


@pytest.mark.parametrize("site", SITES)
def test_another_seed_or_task_gives_another_world(site: str) -> None:
    worlds = [new_world(site, seed)[2] for seed in (1, 2, 3, 4)]
    assert len({w.state_bytes() for w in worlds}) == 4
    store = EpisodeStore({site: all_sites()[site]})
    by_task = [store.create(site=site, task_id=task, seed=1, setup=WorldSetup()) for task in ("a", "b")]
    assert by_task[0].state_bytes() != by_task[1].state_bytes()


@pytest.mark.parametrize("site", SITES)
def test_unknown_setup_params_are_refused(site: str) -> None:
    with pytest.raises(ValueError):
        new_world(site, 1, size=3)


def _question_focuses() -> set[tuple[str, str]]:
    """Focuses that set up a question (an answer or infeasible task's): they may add the records the question
    is about and the bindings of its answer."""
    from tests.catalog import builtin_catalog

    return {(t.site, str(t.setup.params["focus"])) for t in builtin_catalog().tasks.values()
            if t.answer is not None and "focus" in t.setup.params}


QUESTIONS = _question_focuses()
# focuses a site declares to add what their task is about (a later feature's records: a shared trip)
ADDING = {(site, focus) for site in SITES
          for focus in getattr(importlib.import_module(f"sites.{site}.generator"), "ADDING_FOCUSES", ())}


@pytest.mark.parametrize(("site", "focus"), FOCUSED)
def test_focus_only_changes_the_target_binding(site: str, focus: str) -> None:
    plain, focused = new_world(site, 5)[2], new_world(site, 5, focus=focus)[2]
    if (site, focus) in QUESTIONS | ADDING:
        # A question's world adds what it asks about; every binding of the plain world keeps its value.
        kept = {k: v for k, v in _without_target(focused.bindings).items() if k in plain.bindings}
        assert kept == _without_target(plain.bindings)
        return
    assert focused.state_bytes() == plain.state_bytes()
    assert _without_target(focused.bindings) == _without_target(plain.bindings)


@pytest.mark.parametrize("site", sorted({site for site, _ in FOCUSED}))
@pytest.mark.parametrize("focus", ["nope", 3])
def test_unknown_focus_is_refused(site: str, focus: Any) -> None:
    with pytest.raises(ValueError):
        new_world(site, 1, focus=focus)


def _without_target(bindings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in bindings.items() if k != "target"}

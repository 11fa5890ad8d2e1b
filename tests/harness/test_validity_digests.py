"""Incremental validation: a run is done again only when what decides it changed (task, faults, the site's
or the kit's code and templates, the agent's code, the seed); one site's change leaves the others' runs."""

import dataclasses
from pathlib import Path

import pytest

from harness.catalog import validate
from harness.catalog.validate import (
    AGENTS,
    RunRecord,
    ValidityFile,
    decision_digest,
    item_key,
    plan_validation,
    stale_items,
)
from harness.episodes.manager import EpisodeSpec
from scenarios.loader import Catalog
from scenarios.schema import PlanStep, Task
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()


def _copy_of_the_tree(tmp_path: Path) -> Path:
    """The folders the digests read, copied, so a test can change a file without touching the project."""
    root = tmp_path / "tree"
    for part in ("sites", "injectors", "harness/agents", "proxy_addons", "grader"):
        for path in (validate.PROJECT_ROOT / part).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts and "node_modules" not in path.parts:
                target = root / path.relative_to(validate.PROJECT_ROOT)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(path.read_bytes())
    return root


def _assert_counts_only_for_its_users(root: Path, catalog: Catalog, uses: EpisodeSpec, other: EpisodeSpec,
                                      module: Path, shared: Path) -> None:
    """Change `module` under the copied `root`, then the `shared` code beside it: the first moves only the digest
    of the run that `uses` it, the second that of the `other` run too. How the tests of files owned by some
    runs (a fault type's, a move's, a step kind's) check the ownership."""
    validate.forget_sources()
    try:
        before_uses, before_other = decision_digest(uses, catalog), decision_digest(other, catalog)
        (root / module).write_bytes((root / module).read_bytes() + b"\n/* changed */\n")
        validate.forget_sources()
        assert decision_digest(uses, catalog) != before_uses
        assert decision_digest(other, catalog) == before_other  # not its file: its evidence stays current
        (root / shared).write_bytes((root / shared).read_bytes() + b"\n/* the framework changed */\n")
        validate.forget_sources()
        assert decision_digest(other, catalog) != before_other
    finally:
        validate.forget_sources()


def _all_done(site: str, digest_of: object) -> ValidityFile:
    data = ValidityFile(site=site, seeds=[1])
    for spec in plan_validation(CATALOG, site, [1]):
        digest = digest_of(spec) if callable(digest_of) else str(digest_of)
        data.runs.setdefault(item_key(spec), {})["1"] = {
            a: RunRecord(success=True, score=1.0, digest=digest) for a in AGENTS}
    return data


def test_current_runs_are_kept_and_changed_and_pre_digest_ones_run_again() -> None:
    current = _all_done("shop", lambda spec: decision_digest(spec, CATALOG))
    assert plan_validation(CATALOG, "shop", [1], None, current) == []
    # before digests: nothing shows they were judged on today's code
    undigested = _all_done("shop", "")
    assert len(plan_validation(CATALOG, "shop", [1], None, undigested)) == len(plan_validation(CATALOG, "shop", [1]))
    assert {why for _, _, why in stale_items(CATALOG, "shop", [1], undigested)} == {"judged before digests"}
    stale = _all_done("shop", "0123456789abcdef")
    assert len(plan_validation(CATALOG, "shop", [1], None, stale)) == len(plan_validation(CATALOG, "shop", [1]))
    assert {why for _, _, why in stale_items(CATALOG, "shop", [1], stale)} == {"changed since judged"}
    assert {why for _, _, why in stale_items(CATALOG, "shop", [1], ValidityFile(site="shop", seeds=[1]))} == {
        "never run"}


def test_a_change_to_one_site_changes_only_that_sites_digests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shop = plan_validation(CATALOG, "shop", [1])[0]
    bank = plan_validation(CATALOG, "bank", [1])[0]
    before = decision_digest(shop, CATALOG), decision_digest(bank, CATALOG)
    root = _copy_of_the_tree(tmp_path)  # where one shop template will differ
    monkeypatch.setattr(validate, "PROJECT_ROOT", root)
    validate.forget_sources()
    try:
        # The same bytes: the same digests.
        assert (decision_digest(shop, CATALOG), decision_digest(bank, CATALOG)) == before
        template = next((root / "sites" / "shop").rglob("*.html"))
        template.write_text(template.read_text() + "<!-- changed -->")
        validate.forget_sources()
        assert decision_digest(shop, CATALOG) != before[0] and decision_digest(bank, CATALOG) == before[1]
    finally:
        validate.forget_sources()


def test_the_grader_decides_every_verdict_but_its_sums_decide_none(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    shop = plan_validation(CATALOG, "shop", [1])[0]
    before = decision_digest(shop, CATALOG)
    root = _copy_of_the_tree(tmp_path)
    monkeypatch.setattr(validate, "PROJECT_ROOT", root)
    validate.forget_sources()
    try:
        assert decision_digest(shop, CATALOG) == before
        sums = root / "grader" / "aggregate.py"
        sums.write_text(sums.read_text() + "\n# changed\n")
        validate.forget_sources()
        assert decision_digest(shop, CATALOG) == before
        verdicts = root / "grader" / "verdict.py"
        verdicts.write_text(verdicts.read_text() + "\n# changed\n")
        validate.forget_sources()
        assert decision_digest(shop, CATALOG) != before
    finally:
        validate.forget_sources()


def test_a_fault_types_own_files_count_only_for_the_variants_that_use_it(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A new or changed fault type leaves the evidence of every variant that does not use it current."""
    from harness.cli.common import load_catalog

    catalog = load_catalog(None)
    owned = validate.type_files()
    layout = Path("proxy_addons/client/layout.js")
    assert "client:focus_steal" in owned[layout] and Path("proxy_addons/client/core.js") not in owned
    assert Path("proxy_addons/network/errors.py") not in owned  # imported by other faults' modules: shared
    uses = plan_validation(catalog, "travel", [1], ["fill_focus_steal@travel_book_namesake_hotel"])
    other = plan_validation(catalog, "travel", [1], ["commit_cookie_overlay@travel_book_namesake_hotel"])
    spec_uses = next(s for s in uses if s.variant is not None)
    spec_other = next(s for s in other if s.variant is not None)
    before = decision_digest(spec_uses, catalog), decision_digest(spec_other, catalog)
    root = _copy_of_the_tree(tmp_path)
    monkeypatch.setattr(validate, "PROJECT_ROOT", root)
    validate.forget_sources()
    try:
        assert (decision_digest(spec_uses, catalog), decision_digest(spec_other, catalog)) == before
    finally:
        validate.forget_sources()
    # focus_steal lives in layout.js, the cookie overlay does not; the shared core counts for every variant.
    _assert_counts_only_for_its_users(root, catalog, spec_uses, spec_other, layout,
                                      Path("proxy_addons/client/core.js"))


def test_a_move_module_counts_only_for_the_variants_whose_faults_it_answers(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A move of the reference agent past one fault type's obstacle (harness/agents/moves) leaves the evidence
    of variants without that type current; the package's shared code counts for all."""
    from harness.cli.common import load_catalog

    catalog = load_catalog(None)
    uses = next(s for s in plan_validation(catalog, "travel", [1], ["fill_focus_steal@travel_book_namesake_hotel"])
                if s.variant is not None)
    other = next(s for s in plan_validation(catalog, "travel", [1],
                                            ["commit_cookie_overlay@travel_book_namesake_hotel"])
                 if s.variant is not None)
    root = _copy_of_the_tree(tmp_path)
    module = Path("harness/agents/moves/refocus.py")
    (root / module).write_text('"""a move past focus theft"""\n')
    monkeypatch.setattr(validate, "PROJECT_ROOT", root)
    monkeypatch.setattr(validate, "answer_files", lambda: {module: frozenset({"client:focus_steal"})})
    _assert_counts_only_for_its_users(root, catalog, uses, other, module, Path("harness/agents/moves/__init__.py"))


def test_an_action_module_counts_only_for_the_tasks_whose_plans_use_its_step_kind(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A step kind the reference agent learns (harness/agents/actions) leaves the evidence of tasks that do not
    use it current; the package's shared code counts for all."""
    base = plan_validation(CATALOG, "shop", [1])[0]
    kinds = validate.step_keys([base.task])
    assert "step:goto" in kinds and "step:upload" not in kinds
    root = _copy_of_the_tree(tmp_path)
    module = Path("harness/agents/actions/sign.py")
    (root / module).write_text('"""drawing a signature"""\n')
    monkeypatch.setattr(validate, "PROJECT_ROOT", root)
    monkeypatch.setattr(validate, "kind_files", lambda: {module: frozenset({"step:sign"})})
    signing = base.task.model_copy(update={"plan": [*base.task.plan, PlanStep(do="goto", url="/sign")]})
    monkeypatch.setattr(validate, "step_keys", lambda tasks: {"step:sign"} if signing in tasks else {"step:goto"})
    uses = dataclasses.replace(base, task=signing)
    _assert_counts_only_for_its_users(root, CATALOG, uses, base, module, Path("harness/agents/actions/__init__.py"))


def test_a_new_optional_task_field_leaves_every_tasks_digest() -> None:
    """Task fields left at their defaults are not in the digest: the schema can grow without re-judging."""
    spec = plan_validation(CATALOG, "shop", [1])[0]

    class Grown(Task):
        later: str = ""

    grown = Grown.model_validate(spec.task.model_dump())
    assert decision_digest(dataclasses.replace(spec, task=grown), CATALOG) == decision_digest(spec, CATALOG)
    changed = dataclasses.replace(spec, task=Grown.model_validate({**spec.task.model_dump(), "later": "x"}))
    assert decision_digest(changed, CATALOG) != decision_digest(spec, CATALOG)


def test_a_file_edited_while_a_run_goes_on_leaves_its_digests_and_is_named(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The digests describe the code as the run read it at its start; an edit half-way is reported, not mixed in."""
    spec = plan_validation(CATALOG, "shop", [1])[0]
    root = _copy_of_the_tree(tmp_path)
    monkeypatch.setattr(validate, "PROJECT_ROOT", root)
    validate.forget_sources()
    try:
        validate.read_sources(["shop"])
        before = decision_digest(spec, CATALOG)
        assert validate.changed_sources() == []
        template = sorted((root / "sites" / "shop").rglob("*.html"))[0]
        template.write_text(template.read_text() + "<!-- edited mid-run -->")
        assert decision_digest(spec, CATALOG) == before
        assert validate.changed_sources() == [template.relative_to(root)]
        validate.forget_sources()
        assert decision_digest(spec, CATALOG) != before
    finally:
        validate.forget_sources()

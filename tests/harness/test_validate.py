"""`webchaos validate`: how fair and biting are judged, the committed evidence and its rendering, and a
fixed sample (one variant per site, every layer among them) validated for real (reference agent, Chromium, proxy)."""

import asyncio
from pathlib import Path

import pytest
import pytest_asyncio

from harness.catalog.evidence import Judgement, all_validity, variant_item
from harness.catalog.specificity import validity_docs
from harness.catalog.validate import (
    AGENTS,
    BASE,
    BITING_GOAL,
    DOCS_FILE,
    HAND_WRITTEN,
    RECOVERY_OFF,
    RECOVERY_ON,
    Currency,
    RunRecord,
    ValidityFile,
    by_recipe,
    decision_digest,
    faults_digest,
    item_key,
    judge,
    judged_current,
    plan_validation,
    prepare_validation,
    read_validity,
    refresh,
    refresh_after_run,
    rows_short_of_biting,
    validate_site,
    variant_items,
    write_validity,
)
from harness.episodes.manager import EpisodeSpec
from harness.services.processes import Services
from scenarios.schema import Variant
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()
VARIANT = Variant(id="v", title="v", tasks=["t"], target_primitive="patience",
                  faults=[{"type": "latency", "layer": "network"}])


def run(success: bool) -> RunRecord:
    return RunRecord(success=success, score=1.0 if success else 0.0,
                     failed_checks=[] if success else ["create[0] missing"], first_failed_step=None if success else 3,
                     fired=["network:latency"])


def judged_today(item: str, seed: int, success: bool = True) -> RunRecord:
    """A run of a catalog item (`base:<task>` or a variant's id) recorded with today's digest: current."""
    base = item.removeprefix("base:")
    variant = None if item.startswith("base:") else CATALOG.variants[item]
    task = CATALOG.tasks[base if variant is None else variant.tasks[0]]
    return run(success).model_copy(update={"digest": decision_digest(EpisodeSpec(task, variant, seed), CATALOG)})


def runs(variant: dict[int, tuple[bool, bool]], base: dict[int, tuple[bool, bool]]) -> dict:
    def by_seed(table: dict[int, tuple[bool, bool]]) -> dict:
        return {str(s): {RECOVERY_ON: run(on), RECOVERY_OFF: run(off)} for s, (on, off) in table.items()}
    return {"v": by_seed(variant), "base:t": by_seed(base)}


def test_fair_needs_recovery_on_to_pass_every_seed() -> None:
    fair = judge(VARIANT, runs({1: (True, False), 2: (True, True)}, {1: (True, True), 2: (True, True)}), [1, 2])
    assert fair.fair is True and fair.biting is True and fair.reason is None
    unfair = judge(VARIANT, runs({1: (True, True), 2: (False, False)}, {1: (True, True), 2: (True, True)}),
                   [1, 2])
    assert unfair.fair is False
    assert unfair.reason is not None and unfair.reason.startswith("seed 2")
    assert all(part in unfair.reason for part in ("plan step 3", "create[0] missing", "network:latency"))


def test_biting_only_counts_seeds_where_the_base_passes_without_recovery() -> None:
    # recovery off fails seed 1, but so does the base task there: that is not the variant biting
    judged = judge(VARIANT, runs({1: (True, False), 2: (True, True)}, {1: (True, False), 2: (True, True)}),
                   [1, 2])
    assert judged.fair is True and judged.biting is False


def test_a_variant_with_missing_seeds_is_not_judged_yet() -> None:
    judged = judge(VARIANT, runs({1: (True, False)}, {1: (True, True)}), [1, 2])
    assert judged.fair is None and judged.biting is None


TWO_TASKS = Variant(id="v2", title="v2", tasks=["t", "u"], target_primitive="patience",
                    faults=[{"type": "latency", "layer": "network"}])


def test_a_variant_of_several_tasks_is_judged_on_each_task_s_own_runs() -> None:
    def by_seed(on: bool, off: bool, fired: bool = True) -> dict:
        records = {RECOVERY_ON: run(on), RECOVERY_OFF: run(off)}
        if not fired:
            records[RECOVERY_ON] = records[RECOVERY_ON].model_copy(update={"fired": []})
        return {"1": records}

    def judged(first: dict, second: dict | None) -> Judgement:
        runs = {"v2": first, "base:t": by_seed(True, True), "base:u": by_seed(True, True)}
        if second is not None:
            runs[variant_item("v2", ["t", "u"], "u")] = second
        return judge(TWO_TASKS, runs, [1])

    assert variant_item("v2", ["t", "u"], "t") == "v2" and variant_item("v2", ["t", "u"], "u") == "v2 on u"
    assert judged(by_seed(True, True), None).fair is None  # the second task has not run yet
    everything = judged(by_seed(True, True), by_seed(True, True))
    assert everything.fair is True and everything.effective is True and everything.biting is False
    # the first task's pass does not hide the second's failure, nor its silence
    unfair = judged(by_seed(True, True), by_seed(False, False))
    assert unfair.fair is False and unfair.reason is not None and unfair.reason.startswith("seed 1 on u:")
    silent = judged(by_seed(True, True), by_seed(True, True, fired=False))
    assert silent.effective is False and silent.reason == "not effective: seed 1 on u: network:latency never fired"
    # biting on the second task alone is biting
    assert judged(by_seed(True, True), by_seed(True, False)).biting is True
    assert judged(by_seed(True, True), by_seed(True, False)).task == "t"


def test_each_task_of_a_variant_is_planned_and_recorded_apart() -> None:
    variant = next(v for v in sorted(CATALOG.variants.values(), key=lambda v: v.id)
                   if len(v.tasks) == 2 and CATALOG.tasks[v.tasks[0]].site == "shop")
    specs = [s for s in plan_validation(CATALOG, "shop", [1], [variant.id]) if s.variant is not None]
    assert sorted(item_key(s) for s in specs) == sorted([variant.id, f"{variant.id} on {variant.tasks[1]}"])
    # each run's digest is of its own task: the two tasks' runs are judged on different things
    assert len({decision_digest(s, CATALOG) for s in specs}) == 2


def test_resume_plans_only_what_is_missing(tmp_path: Path) -> None:
    variant = "shop_checkout_overlay"
    everything = plan_validation(CATALOG, "shop", [1, 2], [variant])
    assert sorted(s.label for s in everything) == [
        "shop_buy_by_seller/base/s1", "shop_buy_by_seller/base/s2",
        "shop_buy_by_seller/shop_checkout_overlay/s1", "shop_buy_by_seller/shop_checkout_overlay/s2"]
    done = ValidityFile(site="shop", seeds=[1, 2], runs={
        "base:shop_buy_by_seller": {"1": {a: judged_today("base:shop_buy_by_seller", 1) for a in AGENTS},
                                    "2": {RECOVERY_ON: judged_today("base:shop_buy_by_seller", 2)}}})
    left = plan_validation(CATALOG, "shop", [1, 2], [variant], done)
    assert sorted(s.label for s in left) == [
        "shop_buy_by_seller/base/s2", "shop_buy_by_seller/shop_checkout_overlay/s1",
        "shop_buy_by_seller/shop_checkout_overlay/s2"]


def test_asking_for_one_variant_again_keeps_the_rest_of_the_file(tmp_path: Path) -> None:
    asked, other = "shop_checkout_overlay", "shop_product_overlay_returns"
    items = ("base:shop_buy_by_seller", asked, other, "base:shop_add_to_cart")
    done = {item: {"1": {a: judged_today(item, 1) for a in AGENTS}} for item in items}
    write_validity(ValidityFile(site="shop", seeds=[1], runs=done), tmp_path)

    data, specs = prepare_validation(CATALOG, "shop", [1], [asked], resume=False, folder=tmp_path)
    assert sorted(s.label for s in specs) == ["shop_buy_by_seller/base/s1",
                                              "shop_buy_by_seller/shop_checkout_overlay/s1"]
    assert data.runs[other] == done[other] and data.runs["base:shop_add_to_cart"] == done["base:shop_add_to_cart"]
    assert data.runs[asked] == {} and data.runs["base:shop_buy_by_seller"] == {}  # about to be replaced

    data, specs = prepare_validation(CATALOG, "shop", [1], [asked], resume=True, folder=tmp_path)
    assert specs == [] and data.runs[asked] == done[asked]


def test_a_judgement_is_current_only_when_every_run_of_it_and_its_base_was_made_on_todays_code() -> None:
    recipe_made = next(v for v in CATALOG.variants.values() if v.recipe and len(v.tasks) == 1)
    task = CATALOG.tasks[recipe_made.tasks[0]]

    def made(variant: Variant | None, digest_of_today: bool) -> dict:
        fired = sorted(f"{f['layer']}:{f['type']}" for f in recipe_made.faults)
        record = run(True).model_copy(update={"fired": fired, "digest": decision_digest(
            EpisodeSpec(task, variant, 1), CATALOG) if digest_of_today else "0123456789abcdef"})
        return {"1": {RECOVERY_ON: record, RECOVERY_OFF: record}}

    def file(variant_today: bool, base_today: bool) -> ValidityFile:
        data = ValidityFile(site=task.site, seeds=[1], runs={recipe_made.id: made(recipe_made, variant_today),
                                                             f"{BASE}:{task.id}": made(None, base_today)})
        data.variants[recipe_made.id] = judge(recipe_made, data.runs, [1])
        return data

    assert judged_current(file(True, True), CATALOG) == Currency(judged=1, current=1, by_seed={1: 1})
    # the base it is measured against changed
    assert judged_current(file(True, False), CATALOG) == Currency(judged=1, current=0, by_seed={1: 0})
    assert judged_current(file(False, True), CATALOG) == Currency(judged=1, current=0, by_seed={1: 0})
    # seed 2 judged on other code: seed 1 stays current, the variant is not current on every seed
    two = file(True, True)
    two.seeds = [1, 2]
    for item in (recipe_made.id, f"{BASE}:{task.id}"):
        two.runs[item]["2"] = {agent: record.model_copy(update={"digest": "0123456789abcdef"})
                               for agent, record in two.runs[item]["1"].items()}
    assert judged_current(two, CATALOG) == Currency(judged=1, current=0, by_seed={1: 1, 2: 0})
    # a variant of two tasks run on its first task only: not current on that seed until the second is run too
    several = next(v for v in CATALOG.variants.values() if len(v.tasks) == 2
                   and CATALOG.tasks[v.tasks[0]].site == CATALOG.tasks[v.tasks[1]].site)
    (first_task, first_item), (second_task, second_item) = variant_items(several)
    runs: dict[str, dict] = {}
    for task_id, item in ((first_task, first_item), (second_task, second_item)):
        for variant, key in ((several, item), (None, f"{BASE}:{task_id}")):
            record = run(True).model_copy(update={"digest": decision_digest(
                EpisodeSpec(CATALOG.tasks[task_id], variant, 1), CATALOG)})
            runs[key] = {"1": {RECOVERY_ON: record, RECOVERY_OFF: record}}
    both = ValidityFile(site=CATALOG.tasks[first_task].site, seeds=[1], runs=runs)
    both.variants[several.id] = judge(several, both.runs, [1])
    assert judged_current(both, CATALOG).by_seed == {1: 1}
    del both.runs[second_item]
    assert judged_current(both, CATALOG).by_seed == {1: 0}
    judged = file(True, True)
    counts = by_recipe([judged])
    assert counts == {recipe_made.recipe: {"judged": 1, "fair": 1, "effective": 1, "biting": 0, "fair_biting": 0}}
    judged.variants[recipe_made.id] = judged.variants[recipe_made.id].model_copy(update={"recipe": None})
    assert list(by_recipe([judged])) == [HAND_WRITTEN]


def test_a_row_biting_under_the_goal_names_the_recipes_that_hold_it_down() -> None:
    def judged(variant_id: str, biting: bool) -> tuple[str, Judgement]:
        v = CATALOG.variants[variant_id]
        return variant_id, Judgement(task=v.tasks[0], target_primitive="backtracking", layers=[], recipe=v.recipe,
                                     fair=True, effective=True, biting=biting)

    in_default = [v for v in CATALOG.variants.values() if v.by_default and v.recipe and v.tasks[0].startswith("mail_")]
    decoys = [v.id for v in in_default if v.recipe == "seed_decoys"][:3]
    others = [v.id for v in in_default if v.recipe == "commit_same_label_decoy"][:3]
    assert len(decoys) == len(others) == 3
    # 3 of 6 bite: under the goal, and only the recipe biting less than the row is named
    data = ValidityFile(site="mail", seeds=[1], variants=dict([
        judged(decoys[0], False), judged(decoys[1], False), judged(decoys[2], True),
        judged(others[0], True), judged(others[1], True), judged(others[2], False)]))
    assert 3 / 6 < BITING_GOAL
    assert rows_short_of_biting([data], CATALOG) == [
        "backtracking 50%: `seed_decoys` bites 1 of its 3 fair variants (33%); the row's other recipes bite 67% of 3"]
    data.variants[others[2]] = judged(others[2], True)[1]
    data.variants[decoys[1]] = judged(decoys[1], True)[1]
    assert rows_short_of_biting([data], CATALOG) == []  # 5 of 6: over the goal


def test_judging_after_each_run_comes_to_what_judging_the_whole_site_does() -> None:
    # Runs arrive one at a time, a base task's among its variants'; each is judged as it comes.
    task_id = next(t for t in sorted(CATALOG.tasks) if CATALOG.tasks[t].site == "shop"
                   and sum(v.tasks[0] == t for v in CATALOG.variants.values()) >= 3)
    variants = sorted(v.id for v in CATALOG.variants.values() if v.tasks[0] == task_id)[:3]
    arriving = [(variants[0], RECOVERY_ON, True), (variants[0], RECOVERY_OFF, False),
                (f"{BASE}:{task_id}", RECOVERY_ON, True), (variants[1], RECOVERY_ON, False),
                (variants[1], RECOVERY_OFF, False), (f"{BASE}:{task_id}", RECOVERY_OFF, True),
                (variants[2], RECOVERY_ON, True), (variants[2], RECOVERY_OFF, True)]
    step_by_step = ValidityFile(site="shop", seeds=[1])
    whole = ValidityFile(site="shop", seeds=[1])
    for item, agent, success in arriving:
        for data in (step_by_step, whole):
            data.runs.setdefault(item, {}).setdefault("1", {})[agent] = run(success)
        variant_id = None if item.startswith(f"{BASE}:") else item
        refresh_after_run(step_by_step, CATALOG, variant_id, task_id)
        refresh(whole, CATALOG)
        assert step_by_step.variants == whole.variants, f"after {item} {agent}"
    assert [whole.variants[v].biting for v in variants] == [True, True, False]


def test_the_file_is_written_in_one_order_whatever_the_order_of_results(tmp_path: Path) -> None:
    one = ValidityFile(site="shop", seeds=[2, 1], runs={"b": {"2": {RECOVERY_OFF: run(False), RECOVERY_ON: run(True)}},
                                                        "a": {"1": {RECOVERY_ON: run(True)}}})
    two = ValidityFile(site="shop", seeds=[1, 2], runs={"a": {"1": {RECOVERY_ON: run(True)}},
                                                        "b": {"2": {RECOVERY_ON: run(True), RECOVERY_OFF: run(False)}}})
    first = write_validity(one, tmp_path / "x").read_bytes()
    second = write_validity(two, tmp_path / "y").read_bytes()
    assert first == second


def test_committed_validity_files_judge_every_variant_they_name_and_docs_match_them() -> None:
    files = all_validity()
    assert files, "scenarios/validity/ holds no validity file"
    for data in files:
        for variant_id, judgement in data.variants.items():
            assert variant_id in CATALOG.variants, f"{data.site}: {variant_id} is not in the catalog"
            variant = CATALOG.variants[variant_id]
            assert judgement.faults_digest == faults_digest(variant), f"{variant_id}: judged on other faults: stale"
            if judgement.fair is False:
                # an unfair variant is a defect unless the catalog says so (and leaves it out of default runs)
                assert variant.status == "unfair", f"{variant_id}: not fair and not marked: {judgement.reason}"
    assert DOCS_FILE.read_text() == validity_docs(files, CATALOG), \
        "docs/validity.md is stale: run `webchaos validate --docs`"


# A live sample, validated on seed 1 with both agents: each variant must be fair. One task per site, so its
# base runs once for its variants; together they cover every layer. Every variant's own evidence is the
# committed validity files, checked above (this sample took one variant on each of the seven sites, 28
# episodes; the sites' base tasks pass with the reference agent in test_site_e2e.py).
SAMPLE = {
    "shop": ["shop_product_overlay_returns", "shop_cart_503_then_success"],  # client, network
    "learn": ["learn_assignment_decoys", "learn_reminder_fails_before_commit"],  # seed, server
}


def test_the_sample_covers_every_layer_with_one_task_per_site() -> None:
    for site, variant_ids in SAMPLE.items():
        tasks = {t for v in variant_ids for t in CATALOG.variants[v].tasks}
        assert len(tasks) == 1 and CATALOG.tasks[tasks.pop()].site == site
    layers = {f["layer"] for vs in SAMPLE.values() for v in vs for f in CATALOG.variants[v].faults}
    assert layers == {"seed", "server", "network", "client"}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def sample_validity(stack: Services,
                          tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, ValidityFile]]:
    """The sample validated, its sites at once (an episode mostly waits on its page); each site's folder and
    what validate_site returned, asserted per site below."""
    async def one(site: str) -> tuple[Path, ValidityFile]:
        folder = tmp_path_factory.mktemp(f"validity-{site}")
        planned: list[int] = []
        results: list[str] = []
        data = await validate_site(CATALOG, site, [1], variant_ids=SAMPLE[site], concurrency=2, folder=folder,
                                   runs_dir=folder / "runs", stack=stack, on_planned=planned.append,
                                   on_result=lambda result: results.append(result.episode_id))
        # told once, before the first result, of every episode that then ran: each base and variant, both agents
        ran_on = sorted({t for v in SAMPLE[site] for t in CATALOG.variants[v].tasks})
        variant_runs = sum(len(CATALOG.variants[v].tasks) for v in SAMPLE[site])
        assert planned == [2 * (len(ran_on) + variant_runs)] == [len(results)], (planned, results)
        return folder, data

    done = await asyncio.gather(*(one(site) for site in sorted(SAMPLE)))
    return dict(zip(sorted(SAMPLE), done, strict=True))


@pytest.mark.e2e
@pytest.mark.parametrize("site", sorted(SAMPLE))
def test_a_fixed_sample_is_fair(sample_validity: dict[str, tuple[Path, ValidityFile]], site: str) -> None:
    folder, data = sample_validity[site]
    assert read_validity(site, folder) == data
    assert sorted(data.variants) == sorted(SAMPLE[site])
    unfair = {v: j.reason for v, j in data.variants.items() if not j.fair}
    assert unfair == {}


def test_validate_names_an_unknown_variant_and_runs_nothing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from harness.cli.main import app

    out = CliRunner().invoke(app, ["validate", "-v", "no_such_variant", "--runs-dir", str(tmp_path / "runs")])
    assert out.exit_code == 2, out.output
    assert "unknown variant(s) no_such_variant" in out.output
    assert not (tmp_path / "runs").exists()


def test_resample_draws_only_runs_of_todays_code_records_the_second_outcome_and_marks_a_flip(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from types import SimpleNamespace
    from typing import Any

    from harness.catalog import validate
    from harness.catalog.validate import decision_digest, resample
    from harness.episodes.manager import EpisodeSpec

    steady, flipping, stale = [v.id for v in CATALOG.variants.values()
                               if v.tasks == ["shop_add_to_cart"] and v.recipe][:3]

    def record(variant_id: str, success: bool, current: bool = True) -> RunRecord:
        spec = EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], CATALOG.variants[variant_id], 1)
        return RunRecord(success=success, score=float(success), fired=[],
                         digest=decision_digest(spec, CATALOG) if current else "judged-on-older-code")

    runs = {v: {"1": {RECOVERY_ON: record(v, True, v != stale), RECOVERY_OFF: record(v, False, v != stale)}}
            for v in (steady, flipping, stale)}
    runs["base:shop_add_to_cart"] = {"1": {a: RunRecord(success=True, score=1.0) for a in AGENTS}}
    data = ValidityFile(site="shop", seeds=[1], runs=runs)
    validate.refresh(data, CATALOG)
    ran: list[tuple[str, str]] = []

    async def second_runs(specs: list[EpisodeSpec], agents: list[Any], **kw: Any) -> None:
        for spec in specs:
            for agent in agents:
                assert spec.variant is not None
                ran.append((spec.variant.id, agent.name))
                # the agent without recoveries passes `flipping` this time: its verdict flips
                success = agent.name == RECOVERY_ON or spec.variant.id == flipping
                kw["on_result"](SimpleNamespace(infra_failed=False, variant_id=spec.variant.id, task_id=spec.task.id,
                                                agent=agent.name, success=success))

    monkeypatch.setattr(validate, "run_matrix", second_runs)
    agree, total, flipped = asyncio.run(resample(CATALOG, [data], 10, 1, runs_dir=tmp_path, folder=tmp_path))
    assert {v for v, _ in ran} == {steady, flipping}  # the stale runs are not drawn
    assert (agree, total, flipped) == (3, 4, [flipping])
    written = read_validity("shop", tmp_path)
    assert written is not None
    assert written.runs[flipping]["1"][RECOVERY_OFF].again is True and written.variants[flipping].flaky
    assert written.runs[steady]["1"][RECOVERY_OFF].again is False and not written.variants[steady].flaky


def test_a_validation_steps_log_lines_count_its_episodes_done_of_those_planned(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io
    from types import SimpleNamespace

    from rich.console import Console

    from harness.cli import catalog as catalog_cli
    from harness.cli.catalog import EpisodeCount

    count = EpisodeCount()
    count.plan(3)
    lines = [count.tick() for _ in range(3)]
    assert [line.split(",")[0] for line in lines] == ["1/3", "2/3", "3/3"]
    assert all(line.endswith(" min left") for line in lines) and lines[-1].endswith("about 0 min left")
    count.plan(2)  # the next site's step starts its own count
    assert count.tick().startswith("1/2,")
    printed = io.StringIO()
    monkeypatch.setattr(catalog_cli, "console", Console(file=printed, width=200))
    count.show("mail seed_noise@mail_invite_cc", SimpleNamespace(infra_failed=False, success=False, seed=2,
                                                                  agent=RECOVERY_OFF))  # type: ignore[arg-type]
    assert printed.getvalue().startswith(f"  mail seed_noise@mail_invite_cc s2 {RECOVERY_OFF}: fail (2/2, ")

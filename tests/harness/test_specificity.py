"""Specificity: the sample is stratified and the same for everyone (a committed seed), and the matrix counts,
per target primitive, the variants each ablated agent fails."""

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness.catalog.evidence import (
    SPECIFICITY_NAME,
    Judgement,
    RunRecord,
    ValidityFile,
    ablated,
    all_validity,
    proven_specific,
    write_specificity,
    write_validity,
)
from harness.catalog.specificity import (
    choose_sample,
    left_out_as_not_biting,
    plan_specificity,
    render_families,
    render_specificity,
    tally,
)
from harness.catalog.validate import decision_digest
from harness.episodes.manager import EpisodeSpec
from scenarios.faults import Primitive
from tests.catalog import builtin_catalog

CATALOG = builtin_catalog()


def _judged(site: str, valid: bool = True, biting: bool = True) -> ValidityFile:
    """Every variant of the site judged (valid or not), each biting on seed 1 or none of them."""
    variants = {v.id: Judgement(task=v.tasks[0], target_primitive=v.target_primitive.value, layers=[], fair=valid,
                                effective=True, biting=biting)
                for v in CATALOG.variants.values() if CATALOG.tasks[v.tasks[0]].site == site}
    naive = "reference-no-recovery"
    runs = {f"base:{t.id}": {"1": {naive: RunRecord(success=True, score=1.0)}}
            for t in CATALOG.tasks.values() if t.site == site}
    runs |= {v: {"1": {naive: RunRecord(success=not biting, score=0.0)}} for v in variants}
    return ValidityFile(site=site, seeds=[1], runs=runs, variants=variants)


def test_the_sample_is_stratified_valid_only_and_reproducible() -> None:
    files = [_judged("shop"), _judged("bank", valid=False)]
    sample = choose_sample(CATALOG, files, per_cell=2, sample_seed=7)
    assert sample == choose_sample(CATALOG, files, per_cell=2, sample_seed=7)
    assert sample != choose_sample(CATALOG, files, per_cell=2, sample_seed=8)
    assert all(CATALOG.tasks[CATALOG.variants[v].tasks[0]].site == "shop" for v in sample)  # bank: none valid
    per_primitive: dict[str, int] = {}
    for v in sample:
        key = CATALOG.variants[v].target_primitive.value
        per_primitive[key] = per_primitive.get(key, 0) + 1
    assert per_primitive and max(per_primitive.values()) <= 2


def test_only_variants_that_bite_on_the_sample_seed_are_drawn() -> None:
    shop, bank = _judged("shop"), _judged("bank", biting=False)
    sample = choose_sample(CATALOG, [shop, bank], per_cell=2, sample_seed=7)
    assert sample and all(CATALOG.tasks[CATALOG.variants[v].tasks[0]].site == "shop" for v in sample)
    # a variant the naive agent fails only because it fails the base too does not bite: it is not drawn
    first = sample[0]
    task = shop.variants[first].task
    shop.runs[f"base:{task}"]["1"]["reference-no-recovery"] = RunRecord(success=False, score=0.0)
    assert not shop.bites_on(first, 1) and first not in choose_sample(CATALOG, [shop], per_cell=2, sample_seed=7)
    assert not shop.bites_on(first, 2)  # no run on that seed: nothing proven


def test_the_docs_count_per_row_the_valid_variants_left_out_as_not_biting() -> None:
    shop, bank = _judged("shop"), _judged("bank", biting=False)
    line = left_out_as_not_biting([shop, bank], CATALOG, 1)[0]
    bank_patience = sum(1 for j in bank.variants.values() if j.target_primitive == "patience")
    both_patience = bank_patience + sum(1 for j in shop.variants.values() if j.target_primitive == "patience")
    assert f"patience {bank_patience} of {both_patience}" in line


def test_the_family_table_counts_each_ablated_agents_failures_per_recipe(tmp_path: Path) -> None:
    data, _ = plan_specificity(CATALOG, [_judged("shop")], resume=False, path=tmp_path / "specificity.json")
    patience = next(v for v in data.sample if CATALOG.variants[v].target_primitive == Primitive.patience
                    and CATALOG.variants[v].recipe)
    # the agent lacking patience fails it, and so does the one lacking verification: a shared rescue
    data.runs[patience] = {ablated(p): RunRecord(success=p not in (Primitive.patience, Primitive.verification),
                                                 score=1.0) for p in Primitive}
    lines = render_families(data, CATALOG)
    row = next(line for line in lines if line.startswith(f"| patience | {CATALOG.variants[patience].recipe} |"))
    cells = [cell.strip() for cell in row.strip("|").split("|")][2:]
    assert cells == ["0/1", "0/1", "0/1", "0/1", "**1/1**", "0/1", "1/1"]


def test_a_cell_that_gains_variants_keeps_its_sample_but_where_a_newcomer_ranks_first() -> None:
    whole = _judged("shop")
    cell = sorted(v for v, j in whole.variants.items() if j.target_primitive == "patience")
    fewer = whole.model_copy(update={"variants": {v: j for v, j in whole.variants.items() if v != cell[-1]}})
    before = set(choose_sample(CATALOG, [fewer], per_cell=3, sample_seed=7))
    after = set(choose_sample(CATALOG, [whole], per_cell=3, sample_seed=7))
    assert len(before ^ after) in (0, 2)  # the newcomer displaced at most one variant of its cell
    assert before - after <= set(cell) and after - before <= {cell[-1]}


def test_the_matrix_counts_failures_per_target_and_lacking_primitive(tmp_path: Path) -> None:
    files = [_judged("shop")]
    data, specs = plan_specificity(CATALOG, files, resume=True, path=tmp_path / "specificity.json")
    assert len(specs) == len(data.sample) > 0
    patience = next(v for v in data.sample if CATALOG.variants[v].target_primitive == Primitive.patience)
    data.runs[patience] = {ablated(p): RunRecord(success=p != Primitive.patience, score=1.0) for p in Primitive}
    tally(data, CATALOG)
    assert data.matrix["patience"]["patience"].failed == 1 and data.matrix["patience"]["patience"].of == 1
    assert data.matrix["patience"]["planning"].failed == 0 and data.matrix["patience"]["planning"].of == 1
    assert data.matrix["grounding"]["patience"].of == 0
    table = "\n".join(render_specificity(data))
    assert "| patience | " in table and "**100% of 1**" in table


def test_a_site_cell_is_proven_specific_only_when_its_own_agent_fails_it_and_no_other_does(tmp_path: Path) -> None:
    data, _ = plan_specificity(CATALOG, [_judged("shop")], resume=False, path=tmp_path / "specificity.json")
    by_primitive: dict[str, list[str]] = {}
    for v in data.sample:
        by_primitive.setdefault(CATALOG.variants[v].target_primitive.value, []).append(v)
    patience, grounding = by_primitive["patience"][0], by_primitive["grounding"][0]
    # patience: only the agent lacking patience fails it; grounding: the agent lacking state tracking fails it too
    data.runs[patience] = {ablated(p): RunRecord(success=p != Primitive.patience, score=1.0) for p in Primitive}
    data.runs[grounding] = {ablated(p): RunRecord(success=p not in (Primitive.grounding, Primitive.state_tracking),
                                                  score=1.0) for p in Primitive}
    # a variant not yet run by all seven leaves its cell unproven either way
    data.runs[by_primitive["exploration"][0]] = {ablated(Primitive.exploration): RunRecord(success=False, score=0.0)}
    tally(data, CATALOG)
    assert data.cells["shop/patience"]["patience"].failed == 1
    assert data.cells["shop/grounding"]["state_tracking"].failed == 1
    assert proven_specific(data) == {("shop", "patience"): True, ("shop", "grounding"): False}
    assert "1 of 2 sampled cells: shop × patience." in "\n".join(render_specificity(data))
    written = tmp_path / "again.json"
    write_specificity(data, written)
    assert '"shop/grounding"' in written.read_text()



def test_resuming_keeps_only_runs_judged_on_what_decides_them_now(tmp_path: Path) -> None:
    path = tmp_path / "specificity.json"
    data, specs = plan_specificity(CATALOG, [_judged("shop")], resume=False, path=path)
    first, second = specs[0], specs[1]
    assert first.variant is not None and second.variant is not None
    now = decision_digest(first, CATALOG)
    data.runs = {first.variant.id: {ablated(p): RunRecord(success=True, score=1.0, digest=now) for p in Primitive},
                 second.variant.id: {ablated(p): RunRecord(success=True, score=1.0, digest="0" * 16)  # older code
                                     for p in Primitive}}
    write_specificity(data, path)
    again, todo = plan_specificity(CATALOG, [_judged("shop")], resume=True, path=path)
    assert list(again.runs) == [first.variant.id]
    assert {s.variant.id for s in todo if s.variant} == {s.variant.id for s in specs if s.variant} - {first.variant.id}


def test_a_run_for_some_sites_runs_only_their_sampled_variants_and_keeps_the_sample(tmp_path: Path) -> None:
    files = [_judged("shop"), _judged("bank")]
    everything, all_specs = plan_specificity(CATALOG, files, resume=False, path=tmp_path / "a.json")
    some, shop_specs = plan_specificity(CATALOG, files, resume=False, path=tmp_path / "b.json", sites={"shop"})
    assert some.sample == everything.sample
    assert shop_specs == [spec for spec in all_specs if spec.task.site == "shop"]
    assert shop_specs and len(shop_specs) < len(all_specs)


def test_the_specificity_evidence_beside_the_site_files_is_not_read_as_one(tmp_path: Path) -> None:
    write_validity(_judged("shop"), tmp_path)
    data, _ = plan_specificity(CATALOG, [_judged("shop")], resume=False, path=tmp_path / SPECIFICITY_NAME)
    write_specificity(data, tmp_path / SPECIFICITY_NAME)
    assert [f.site for f in all_validity(tmp_path)] == ["shop"]


def test_a_specificity_run_tells_how_many_episodes_it_plans_before_the_first_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.catalog import specificity

    heard: list[tuple[str, int]] = []

    async def runs_nothing(specs: list[EpisodeSpec], agents: list[Any], **_: Any) -> None:
        heard.append(("run_matrix", len(specs) * len(agents)))

    monkeypatch.setattr(specificity, "run_matrix", runs_nothing)
    files = [_judged("shop")]
    _, specs = plan_specificity(CATALOG, files, resume=False, path=tmp_path / "planned.json")
    asyncio.run(specificity.run_specificity(CATALOG, files, runs_dir=tmp_path, path=tmp_path / "a.json",
                                            on_planned=lambda n: heard.append(("planned", n))))
    assert heard == [("planned", 7 * len(specs)), ("run_matrix", 7 * len(specs))] and specs

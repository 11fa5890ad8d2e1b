"""Answers: the normalisers accept every spelling of the same value and refuse a different one (hypothesis,
both ways), the answer file's forms, and how the verdict folds the answer in beside the state checks."""

from datetime import date, timedelta
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.answers import check_answer, numbers_in
from grader.trace import EpisodeTrace
from grader.verdict import grade
from scenarios.answers import INFEASIBLE_BINDING, Answer, AnswerFileError, AnswerSpec, parse_answer
from scenarios.schema import Task
from tests.grader.conftest import BINDINGS, cart_item, shop_state

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]

# ----------------------------------------------------------------------------- numbers

cents = st.integers(min_value=0, max_value=10**9)


def spellings_of_amount(c: int) -> list[str]:
    whole, frac = divmod(c, 100)
    grouped = f"{whole:,}"
    return [
        f"${grouped}.{frac:02d}", f"{whole}.{frac:02d} USD", f"{grouped}.{frac:02d}", f"USD {grouped}.{frac:02d}",
        f"It comes to ${grouped}.{frac:02d} in total.", f"{whole}.{frac:02d}".rstrip("0").rstrip("."),
        f"\u20ac {grouped}.{frac:02d}", f"{grouped}.{frac:02d} dollars",
    ]


@settings(max_examples=200, deadline=None)
@given(cents)
def test_every_spelling_of_an_amount_is_the_amount(c: int) -> None:
    spec = AnswerSpec(number=c, scale=0.01, tolerance=0.001)
    for text in spellings_of_amount(c):
        check = check_answer(spec, Answer(value=text))
        assert check.passed, (text, check)


@settings(max_examples=200, deadline=None)
@given(cents, st.integers(min_value=1, max_value=10**6))
def test_a_different_amount_is_refused_whatever_its_spelling(c: int, delta: int) -> None:
    spec = AnswerSpec(number=c, scale=0.01, tolerance=0.001)
    for text in spellings_of_amount(c + delta):
        check = check_answer(spec, Answer(value=text))
        assert not check.passed, (text, check)
        assert "is not" in check.detail


def test_several_amounts_are_not_an_answer_but_a_date_beside_one_is_fine() -> None:
    spec = AnswerSpec(number=12.5)
    hedged = check_answer(spec, Answer(value="either $12.50 or $14.00"))
    assert not hedged.passed and "several numbers" in hedged.detail
    assert check_answer(spec, Answer(value="$12.50 on 3 November 2026")).passed
    assert check_answer(spec, Answer(value="You paid $12.50 in November 2026")).passed
    assert check_answer(spec, Answer(value="12,50 EUR")).passed  # a decimal comma without thousands groups


def test_numbers_in_reads_signs_and_currency_marks() -> None:
    assert numbers_in("-$3.00 and 4 items") == [(-3.0, True), (4.0, False)]
    assert numbers_in("order A-1234") == [(1234.0, False)]
    assert numbers_in("1.2.3") == []


# ----------------------------------------------------------------------------- dates

days = st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31))


def spellings_of_day(d: date) -> list[str]:
    month = MONTHS[d.month - 1]
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd", 31: "st"}.get(d.day, "th")
    out = [d.isoformat(), f"{d.day} {month} {d.year}", f"{month} {d.day}, {d.year}", f"{month[:3]} {d.day} {d.year}",
           f"{d.strftime('%A')}, {d.day}{suffix} of {month} {d.year}", f"the {d.day}{suffix} of {month}",
           f"{month} {d.day}"]
    if d.day > 12:  # only then is a slashed date unambiguous
        out += [f"{d.month}/{d.day}/{d.year}", f"{d.day}/{d.month}/{d.year}"]
    return out


@settings(max_examples=200, deadline=None)
@given(days)
def test_every_unambiguous_spelling_of_a_day_is_the_day(d: date) -> None:
    spec = AnswerSpec(date=d.isoformat())
    for text in spellings_of_day(d):
        check = check_answer(spec, Answer(value=text))
        assert check.passed, (text, check)


@settings(max_examples=200, deadline=None)
@given(days, st.integers(min_value=1, max_value=3000))
def test_another_day_is_refused_whatever_its_spelling(d: date, shift: int) -> None:
    other = d + timedelta(days=shift)
    spec = AnswerSpec(date=d.isoformat())
    for text in spellings_of_day(other):
        if (other.month, other.day) == (d.month, d.day) and str(other.year) not in text:
            continue  # the same day of another year, written without the year: that is this day
        assert not check_answer(spec, Answer(value=text)).passed, text


def test_a_slashed_date_that_could_be_either_way_is_refused() -> None:
    check = check_answer(AnswerSpec(date="2026-11-03"), Answer(value="11/03/2026"))
    assert not check.passed and "ambiguous" in check.detail


# ----------------------------------------------------------------------------- text

# Letters whose upper case folds back to them (not Turkish dotless i, whose upper case is I).
words = st.text(alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789éüøåñç", min_size=1,
                max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(words, min_size=1, max_size=4))
def test_eq_ignores_case_spacing_and_punctuation_but_not_letters(parts: list[str]) -> None:
    expected = " ".join(parts)
    spec = AnswerSpec(eq=expected)
    noisy = "  " + ",  ".join(p.upper() if i % 2 else p for i, p in enumerate(parts)) + ". "
    assert check_answer(spec, Answer(value=noisy)).passed
    assert not check_answer(spec, Answer(value=expected + "x")).passed


def test_eq_without_normalisers_is_exact() -> None:
    spec = AnswerSpec(eq="BK-7Q2", normalise=[])
    assert check_answer(spec, Answer(value="BK-7Q2")).passed
    refused = check_answer(spec, Answer(value="bk-7q2"))
    assert not refused.passed and refused.normaliser == "eq (exact)"


@settings(max_examples=100, deadline=None)
@given(st.lists(words, min_size=1, max_size=5, unique_by=str.casefold), st.randoms(use_true_random=False))
def test_set_eq_is_order_free_and_refuses_a_missing_or_extra_item(items: list[str], rng: Any) -> None:
    spec = AnswerSpec(set_eq=items)
    shuffled = list(items)
    rng.shuffle(shuffled)
    assert check_answer(spec, Answer(value=shuffled)).passed
    assert check_answer(spec, Answer(value=", ".join(shuffled))).passed
    if len(items) > 1:
        assert "missing" in check_answer(spec, Answer(value=shuffled[1:])).detail
    assert "not expected" in check_answer(spec, Answer(value=[*shuffled, "zz_extra"])).detail


def test_one_of_contains_all_and_regex() -> None:
    assert check_answer(AnswerSpec(one_of=["Dr. Okafor", "Okafor"]), Answer(value="okafor")).passed
    assert check_answer(AnswerSpec(contains_all=["Harbor", "Coffee"]), Answer(value="harbor coffee co")).passed
    missing = check_answer(AnswerSpec(contains_all=["Harbor", "Tea"]), Answer(value="harbor coffee"))
    assert not missing.passed and "'Tea'" in missing.detail
    assert check_answer(AnswerSpec(regex=r"bk \w{4}"), Answer(value="BK-7Q2Z")).passed


# ----------------------------------------------------------------------------- the spec and the file


def test_a_spec_is_exactly_one_predicate_or_infeasible() -> None:
    with pytest.raises(ValueError, match="exactly one of"):
        AnswerSpec()
    with pytest.raises(ValueError, match="exactly one of"):
        AnswerSpec(eq="a", number=1)
    with pytest.raises(ValueError, match="takes no predicate"):
        AnswerSpec(infeasible=True, eq="a")
    with pytest.raises(ValueError, match="regex"):
        AnswerSpec(regex="(")


def test_the_answer_file_forms() -> None:
    assert parse_answer("  BK-7Q2\n") == Answer(value="BK-7Q2")
    assert parse_answer('{"answer": "BK-7Q2", "infeasible": false}') == Answer(value="BK-7Q2")
    assert parse_answer('{"infeasible": true}') == Answer(infeasible=True)
    assert parse_answer('["a", "b"]') == Answer(value=["a", "b"])
    assert parse_answer("12.5") == Answer(value="12.5")
    assert parse_answer("") == Answer()
    with pytest.raises(AnswerFileError, match="unknown key"):
        parse_answer('{"answr": "x"}')
    with pytest.raises(AnswerFileError, match="true or false"):
        parse_answer('{"answer": "x", "infeasible": "yes"}')


# ----------------------------------------------------------------------------- in the verdict


def _task(answer: dict[str, Any] | None, canonical: dict[str, Any] | None = None) -> Task:
    plan: list[dict[str, Any]] = [{"do": "goto", "url": "/"}]
    if answer is not None:
        plan.append({"do": "answer", "infeasible": True} if answer.get("infeasible") else
                    {"do": "answer", "role": "heading", "name": "Total"})
    return Task.model_validate({"id": "t", "site": "shop", "title": "t", "instruction": "i", "plan": plan,
                                "canonical_diff": canonical or {}, "answer": answer})


def test_a_pure_answer_task_passes_on_the_answer_and_fails_on_a_write() -> None:
    task = _task({"eq": "{target.seller}"})
    assert task.kind == "answer"
    right = grade(task, BINDINGS, shop_state(), shop_state(), answer=Answer(value="acme"))
    assert right.success and right.score == 1.0 and right.answer is not None and right.answer.expected == "'Acme'"
    wrong = grade(task, BINDINGS, shop_state(), shop_state(), answer=Answer(value="Bolt"))
    assert not wrong.success and wrong.score == 0.0
    assert wrong.failures == ["answer (eq): expected 'Acme', given 'Bolt': 'bolt' is not 'acme'"]
    edited = shop_state()
    edited["cart_items"].append(cart_item())
    collateral = grade(task, BINDINGS, shop_state(), edited, answer=Answer(value="Acme"))
    assert not collateral.success and any("cart_items" in f for f in collateral.failures)
    silent = grade(task, BINDINGS, shop_state(), shop_state())
    assert not silent.success and silent.answer is not None and silent.answer.given == "no answer"


def test_an_infeasible_world_wants_the_flag_and_nothing_written() -> None:
    canonical = {"create": [{"collection": "cart_items", "properties": {"product_id": {"eq": "{target.id}"}}}]}
    task = _task(None, canonical)
    assert task.kind == "action"
    world = {**BINDINGS, INFEASIBLE_BINDING: {"removed": "p007"}}
    flagged = grade(task, world, shop_state(), shop_state(), answer=Answer(infeasible=True))
    assert flagged.success and flagged.answer is not None and flagged.answer.predicate == "infeasible"
    near_miss = shop_state()
    near_miss["cart_items"].append(cart_item(product="p008"))
    bought = grade(task, world, shop_state(), near_miss, answer=Answer(infeasible=True))
    assert not bought.success and any("cart_items" in f for f in bought.failures)
    # In the feasible world the same claim is wrong: the task can be done.
    gave_up = grade(task, BINDINGS, shop_state(), shop_state(), answer=Answer(infeasible=True))
    assert not gave_up.success and "it can be done" in gave_up.failures[-1]


def test_an_infeasible_task_and_a_mixed_task() -> None:
    infeasible = _task({"infeasible": True})
    assert infeasible.kind == "infeasible"
    assert grade(infeasible, BINDINGS, shop_state(), shop_state(), answer=Answer(infeasible=True)).success
    canonical = {"create": [{"collection": "cart_items", "properties": {"product_id": {"eq": "{target.id}"}}}]}
    mixed = _task({"eq": "{target.seller}"}, canonical)
    assert mixed.kind == "action+answer"
    final = shop_state()
    final["cart_items"].append(cart_item())
    final["next_ids"]["cart_item"] = 2
    half = grade(mixed, BINDINGS, shop_state(), final, answer=Answer(value="Bolt"))
    assert not half.success and half.raw_score == 0.5
    assert grade(mixed, BINDINGS, shop_state(), final, answer=Answer(value="Acme")).success


def test_an_infeasible_task_is_credited_only_after_the_evidence_it_declares() -> None:
    task = _task({"infeasible": True}).model_copy(update={"process": Task.model_validate({
        "id": "t", "site": "shop", "title": "t", "instruction": "i", "plan": [{"do": "goto", "url": "/"}],
        "canonical_diff": {}, "process": {"evidence": ["search"]}}).process})
    searched = EpisodeTrace(events=[{"seq": 1, "kind": "search", "target": None, "detail": {"q": "mug"}}])
    looked = grade(task, BINDINGS, shop_state(), shop_state(), trace=searched, answer=Answer(infeasible=True))
    assert looked.success
    # stopped before the search (a fault, or giving up): the right word, but nothing found to say it from
    unlooked = grade(task, BINDINGS, shop_state(), shop_state(), trace=EpisodeTrace(), answer=Answer(infeasible=True))
    assert not unlooked.success and unlooked.answer is not None and not unlooked.answer.passed
    assert "no search" in unlooked.answer.detail


def test_the_plan_and_the_answer_block_agree() -> None:
    with pytest.raises(ValueError, match="ends its plan"):
        Task.model_validate({"id": "t", "site": "shop", "title": "t", "instruction": "i",
                             "plan": [{"do": "goto", "url": "/"}], "canonical_diff": {}, "answer": {"eq": "x"}})
    with pytest.raises(ValueError, match="no answer block"):
        _task(None).model_validate({"id": "t", "site": "shop", "title": "t", "instruction": "i",
                                    "plan": [{"do": "answer", "infeasible": True}], "canonical_diff": {}})


def test_a_listed_name_holding_and_or_ampersand_is_one_item() -> None:
    spec = AnswerSpec(set_eq=["Alder & Pine", "Bread and Fire", "Cato"])
    assert check_answer(spec, Answer(value="Alder & Pine, Bread and Fire, Cato")).passed
    assert check_answer(spec, Answer(value=["Cato", "Bread and Fire", "Alder & Pine"])).passed
    assert check_answer(AnswerSpec(set_eq=["Ada", "Bo", "Cy"]), Answer(value="Ada, Bo and Cy")).passed
    assert not check_answer(spec, Answer(value="Alder & Pine, Cato")).passed

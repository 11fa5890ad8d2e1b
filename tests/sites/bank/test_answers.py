"""The question tasks' side of the bank: the `answers` bindings, the pages that show those answers
(spending by category, payee details), and `target_missing`, which makes a task's named record vanish."""

import re

import pytest

from sites.bank.faults import TARGET, UNNAMED
from sites.bank.insights import spending_by_category

from . import Doc, client_for, new_world

MISSING = [{"type": "target_missing", "layer": "seed"}]


def detail(doc: Doc, label: str) -> str:
    """The value in the details table's row whose header is `label` (the row's name begins with it)."""
    table = doc.elements.index(doc.all("table", **{"class": "detail-table"})[0])
    rows = [e for e in doc.elements[table:] if e.tag == "tr"]
    found = [e.text for e in rows if e.text.startswith(label)][:1]
    assert len(found) == 1, f"expected one row named {label!r}, found {len(found)}"
    return found[0].removeprefix(label)


# --- the answers bindings -------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_answers_param_adds_bindings_and_leaves_the_world_as_it_was(seed: int) -> None:
    plain = new_world(seed, focus="payee")[2]
    asked = new_world(seed, focus="payee", answers=True)[2]
    assert asked.state_bytes() == plain.state_bytes()
    assert {k: v for k, v in asked.bindings.items() if k != "answers"} == plain.bindings
    assert "answers" not in plain.bindings


def test_a_malformed_answers_param_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="answers must be true or false"):
        new_world(1, answers="yes")


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_spending_page_shows_the_asked_category_total_in_its_row(seed: int) -> None:
    app, _, episode = new_world(seed, answers=True)
    asked = episode.bindings["answers"]["spending"]
    async with client_for(app, episode.id) as client:
        account = Doc((await client.get("/accounts/a1")).text)
        assert account.links("Spending")[0].attrs["href"] == "/accounts/a1/spending"
        response = await client.get("/accounts/a1/spending", params={"month": asked["month"]})
    assert response.status_code == 200
    doc = Doc(response.text)
    assert doc.heading(1) == "Spending by category" and doc.by_id("spending-month-title").text == asked["month_name"]
    assert doc.links(asked["month_name"])[0].attrs.get("aria-current") == "page"
    rows = [r.text for r in doc.all("tr") if re.match(rf"{re.escape(asked['category'])}\W", r.text)]
    assert len(rows) == 1
    assert re.search(r"\$([\d,]+\.\d{2})", rows[0]).group(1) == asked["total_text"].lstrip("$")  # type: ignore[union-attr]
    assert asked["total_cents"] == sum(-t.amount_cents for t in episode.state.transactions
                                       if t.account_id == "a1" and t.posted_at.startswith(asked["month"])
                                       and t.category == asked["category"] and t.amount_cents < 0
                                       and t.kind not in ("transfer", "trade"))
    assert asked["payments"] >= 2  # a total of several lines, not one read off the history


def test_spending_leaves_out_transfers_between_own_accounts() -> None:
    state = new_world(1)[2].state
    month = max(t.posted_at[:7] for t in state.transactions if t.category == "Transfers" and t.account_id == "a1")
    categories = {c.category for c in spending_by_category(state, "a1", month)}
    assert "Transfers" not in categories and "Income" not in categories and categories


async def test_the_spending_page_defaults_to_the_latest_month_and_refuses_bad_months() -> None:
    app, _, episode = new_world(2)
    async with client_for(app, episode.id) as client:
        latest = Doc((await client.get("/accounts/a1/spending")).text)
        statuses = [(await client.get("/accounts/a1/spending", params={"month": month})).status_code
                    for month in ("2025-13", "March", "2025-3", "x" * 500, "1999-01")]
        missing = (await client.get("/accounts/a9/spending")).status_code
    current = [a for a in latest.all("a") if a.attrs.get("aria-current") == "page" and "month=" in a.attrs["href"]]
    assert current and current[0].attrs["href"].endswith(max(t.posted_at[:7] for t in episode.state.transactions))
    assert statuses == [400, 400, 400, 400, 404] and missing == 404


@pytest.mark.parametrize("seed", [1, 2])
async def test_the_payee_page_shows_routing_number_and_next_payment_by_name(seed: int) -> None:
    app, _, episode = new_world(seed, focus="payee", answers=True)
    lookalike, answers = episode.bindings["lookalike"], episode.bindings["answers"]
    async with client_for(app, episode.id) as client:
        payees = Doc((await client.get("/payees")).text)
        rent = Doc((await client.get(f"/payees/{lookalike['payee_id']}")).text)
        other = Doc((await client.get(f"/payees/{lookalike['other_id']}")).text)
        assert (await client.get("/payees/p99")).status_code == 404
        assert (await client.get("/payees/%3Cscript%3E")).status_code == 404
    assert payees.links(lookalike["name"])[0].attrs["href"] == f"/payees/{lookalike['payee_id']}"
    assert rent.heading(1) == lookalike["name"]
    assert detail(rent, "Routing number") == answers["routing"]["number"]
    assert detail(other, "Routing number") == answers["routing"]["other_number"] != answers["routing"]["number"]
    assert detail(rent, "Account number").endswith(lookalike["last4"])
    day = answers["next_rent"]["date"]
    assert detail(rent, "Next payment").endswith(day[:4]) and detail(other, "Next payment") == "None scheduled"
    assert "No scheduled payments to this payee." in other.all("p", **{"class": "empty"})[0].text


async def test_the_payments_page_row_of_the_rent_payee_shows_the_next_rent_date() -> None:
    app, _, episode = new_world(3, focus="payee", answers=True)
    name, rent = episode.bindings["lookalike"]["name"], episode.bindings["answers"]["next_rent"]
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/payments")).text)
    (row,) = [r for r in doc.all("tr") if name in r.text]
    month_day_year = re.search(r"([A-Z][a-z]{2}) (\d{1,2}), (\d{4})", row.text)
    assert month_day_year is not None
    assert (month_day_year.group(3), str(int(rent["date"][8:]))) == (rent["date"][:4], month_day_year.group(2))


async def test_the_holdings_binding_lists_the_holdings_table_not_the_watch_list() -> None:
    app, _, episode = new_world(1, answers=True)
    async with client_for(app, episode.id) as client:
        html = (await client.get("/invest")).text
    holdings = html[html.index('id="holdings-title"'):html.index('id="quotes-title"')]
    assert re.findall(r'class="symbol" href="/invest/quote/[^"]+">([^<]+)</a>', holdings) == \
        episode.bindings["answers"]["holdings"]
    assert len(episode.state.securities) > len(episode.bindings["answers"]["holdings"])


def test_noise_never_lands_in_the_category_a_spending_question_asks_about() -> None:
    noise = [{"type": "noise_records", "layer": "seed", "params": {"count": 40, "max_days_ago": 90}}]
    plain, noisy = new_world(2, answers=True)[2], new_world(2, faults=noise, answers=True)[2]
    asked = plain.bindings["answers"]["spending"]
    added = {t.id for t in noisy.state.transactions} - {t.id for t in plain.state.transactions}
    assert len(added) == 40
    assert not [t for t in noisy.state.transactions if t.id in added and t.category == asked["category"]]
    # without the question the same fault draws the same purchases as before
    assert new_world(2, faults=noise)[2].state_bytes() == new_world(2, faults=noise)[2].state_bytes()


# --- target_missing -------------------------------------------------------------------------------------

def test_target_missing_deletes_the_payee_and_its_scheduled_payments_and_keeps_the_lookalike() -> None:
    episode = new_world(1, faults=MISSING, focus="payee")[2]
    state, lookalike = episode.state, episode.bindings["lookalike"]
    detail = episode.bindings["infeasible"]
    assert detail["removed"] == lookalike["payee_id"] and state.payee(lookalike["payee_id"]) is None
    assert not [s for s in state.scheduled if s.payee_id == lookalike["payee_id"]]
    assert state.payee(lookalike["other_id"]) is not None
    assert [n["id"] for n in detail["near_miss"]] == [lookalike["other_id"]]


def test_target_missing_names_same_named_payees_as_near_misses_too() -> None:
    faults = [{"type": "hard_negatives", "layer": "seed", "params": {"count": 2}}, *MISSING]
    episode = new_world(2, faults=faults, focus="payee")[2]
    detail = episode.bindings["infeasible"]
    names = {n["name"] for n in detail["near_miss"]}
    assert names == {detail["name"], episode.bindings["lookalike"]["other_name"]} and len(detail["near_miss"]) == 3


def test_target_missing_withdraws_the_charge_and_keeps_the_same_looking_ones() -> None:
    episode = new_world(2, faults=MISSING, focus="charge")[2]
    state, dispute = episode.state, episode.bindings["dispute"]
    assert state.transaction(dispute["transaction_id"]) is None
    assert all(state.transaction(i) is not None for i in dispute["hard_negative_ids"])
    detail = episode.bindings["infeasible"]
    assert sorted(n["id"] for n in detail["near_miss"]) == dispute["hard_negative_ids"]
    assert dispute["location"] not in {n["location"] for n in detail["near_miss"]}


async def test_target_missing_delists_the_security_and_its_other_share_class_trades() -> None:
    app, _, episode = new_world(3, faults=MISSING, focus="security")
    state, buy = episode.state, episode.bindings["buy"]
    assert state.security(buy["symbol"]) is None
    (near,) = episode.bindings["infeasible"]["near_miss"]
    assert near["id"].startswith(buy["symbol"].split(".")[0] + ".") and near["name"].startswith(buy["name"])
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"/invest/quote/{buy['symbol']}")).status_code == 404
        assert (await client.get(f"/invest/quote/{near['id']}")).status_code == 200
        assert (await client.get("/invest")).status_code == 200


@pytest.mark.parametrize("focus", ["payee", "charge", "security"])
def test_target_missing_is_seeded(focus: str) -> None:
    first, again = (new_world(4, faults=MISSING, focus=focus)[2] for _ in range(2))
    assert first.state_bytes() == again.state_bytes() != new_world(4, focus=focus)[2].state_bytes()
    assert first.bindings["infeasible"] == again.bindings["infeasible"]


def test_target_missing_takes_only_tasks_that_name_their_target() -> None:
    assert TARGET.kind_of({}) == UNNAMED
    assert "does not name" in (TARGET.refusal("target_missing", {}) or "")
    assert "does not name" in (TARGET.refusal("target_missing", {"answers": True}) or "")
    for focus in ("payee", "charge", "security"):
        assert TARGET.refusal("target_missing", {"focus": focus}) is None
    assert TARGET.refusal("hard_negatives", {}) is None and TARGET.refusal("push_past_first_page", {}) is None

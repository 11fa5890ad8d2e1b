"""Budgets, authorised users and dividends (the later focuses): worlds without them keep none of their records
and answer 404; the pages show what their tasks read; the writes change what they say, or nothing (a 4xx)."""

import re
from typing import Any

import pytest

from sites.bank.later import budget_months

from . import client_for, new_world


def text_of(html: str) -> str:
    """The main content's text, each element's text apart, spaces collapsed (as a reader meets it)."""
    main = html.split("<main", 1)[1].split("</main>", 1)[0]
    return " ".join(re.sub(r"<[^>]+>", " ", main.split(">", 1)[1]).split()).replace(" :", ":")


async def test_a_world_without_the_later_focuses_has_none_of_their_records_or_pages() -> None:
    app, _store, episode = new_world(seed=3)
    state = episode.state
    assert (state.budgets, state.authorised_users, state.dividends, state.reinvestment) == (None, None, None, None)
    assert b'"budgets"' not in episode.state_bytes()
    async with client_for(app, episode.id) as client:
        before = episode.state_bytes()
        for path in ("/budgets", "/budgets/b1", "/invest/dividends"):
            assert (await client.get(path)).status_code == 404, path
        assert (await client.post("/api/budgets", json={"category": "Groceries", "amount": "100"})).status_code == 404
        assert (await client.post("/api/cards/c1/authorised",
                                  json={"name": "Ada Lovelace", "daily_limit": "50"})).status_code == 404
        assert (await client.put("/api/dividends/reinvestment", json={"symbols": []})).status_code == 404
        assert episode.state_bytes() == before
        card = (await client.get("/cards/c1")).text
        assert "Authorised users" not in card and "Budgets" not in card and "later.js" not in card


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5, 6])
async def test_last_months_overrun_is_on_one_budgets_page_only(seed: int) -> None:
    app, _store, episode = new_world(seed=seed, focus="budgets")
    budgets = episode.bindings["budgets"]
    today = episode.clock.now().date()
    over = {b.id: m["diff"] for b in episode.state.budgets or []
            for m in budget_months(episode.state, b, today)[:1] if m["diff"] > 0}
    assert over == {budgets["over"]["id"]: budgets["over"]["over_cents"]}
    async with client_for(app, episode.id) as client:
        listing = text_of((await client.get("/budgets")).text)
        for kept in budgets["kept_ids"]:
            page = text_of((await client.get(f"/budgets/{kept}")).text)
            row = re.search(rf"{budgets['month_name']} \S+ \S+ (Over|Under) by (\$[\d,.]+)", page)
            assert row is not None, page
            if kept == budgets["over"]["id"]:
                assert row.groups() == ("Over", budgets["over"]["over_text"])
            else:
                assert row.group(1) == "Under"
        # the three categories to budget have none yet, and the form offers them
        for key in ("first", "second", "third"):
            assert f"{budgets[key]['category']} budget" not in (await client.get("/budgets")).text
            assert f"<option>{budgets[key]['category']}</option>" in (await client.get("/budgets")).text
        assert "so far" in listing


async def test_budgets_are_added_once_per_category_and_changed_or_removed_on_their_page() -> None:
    app, _store, episode = new_world(seed=2, focus="budgets")
    budgets = episode.bindings["budgets"]
    first = budgets["first"]["category"]
    async with client_for(app, episode.id) as client:
        before = episode.state_bytes()
        for body, status in (({"category": "Housing", "amount": "100"}, 422),      # rent is not budgeted
                             ({"category": first, "amount": "-5"}, 422),
                             ({"category": first, "amount": "12.345"}, 422),
                             ({"category": budgets["under"]["category"], "amount": "90"}, 409)):
            assert (await client.post("/api/budgets", json=body)).status_code == status, body
        assert episode.state_bytes() == before
        made = await client.post("/api/budgets", json={"category": first, "amount": budgets["first"]["amount_plain"]})
        assert made.status_code == 201
        made_id = made.json()["budget"]["id"]
        assert made.json()["budget"]["amount_cents"] == budgets["first"]["amount_cents"]
        assert f'aria-label="{first} budget"' in (await client.get("/budgets")).text
        assert (await client.post("/api/budgets", json={"category": first, "amount": "10"})).status_code == 409
        assert (await client.put(f"/api/budgets/{made_id}", json={"amount": "75.50"})).status_code == 200
        assert "$75.50" in (await client.get(f"/budgets/{made_id}")).text
        assert (await client.delete(f"/api/budgets/{made_id}")).status_code == 200
        assert (await client.get(f"/budgets/{made_id}")).status_code == 404
        assert [b.id for b in episode.state.budgets or []] == budgets["kept_ids"]


async def test_an_authorised_user_gets_at_most_the_cards_own_limit_once_per_card() -> None:
    app, _store, episode = new_world(seed=4, focus="authorised")
    who: dict[str, Any] = episode.bindings["authorised"]
    card = next(c for c in episode.state.cards if c.id == who["card_id"])
    async with client_for(app, episode.id) as client:
        debit = text_of((await client.get("/cards/c1")).text)
        assert f"{who['son']}: up to {who['son_limit_text']} a day" in debit
        shopping = text_of((await client.get(f"/cards/{who['card_id']}")).text)
        assert f"{who['partner']}: up to {who['partner_limit_text']} a day" in shopping
        assert who["son"] not in shopping and who["daughter"] not in shopping + debit
        before = episode.state_bytes()
        over = await client.post(f"/api/cards/{card.id}/authorised",
                                 json={"name": who["daughter"], "daily_limit": f"{card.daily_spend_cents // 100 + 1}"})
        assert over.status_code == 422 and "own daily limit" in over.json()["detail"]
        twice = await client.post(f"/api/cards/{card.id}/authorised",
                                  json={"name": who["partner"].upper(), "daily_limit": "20"})
        assert twice.status_code == 409
        assert (await client.post("/api/cards/c9/authorised", json={"name": "Ada Lovelace",
                                                                    "daily_limit": "20"})).status_code == 404
        assert episode.state_bytes() == before
        added = await client.post(f"/api/cards/{card.id}/authorised",
                                  json={"name": who["daughter"], "daily_limit": who["son_limit_plain"]})
        assert added.status_code == 201 and added.json()["user"]["daily_limit_cents"] == who["son_limit_cents"]
        page = (await client.get(f"/cards/{card.id}")).text
        assert f'aria-label="Remove {who["daughter"]}"' in page
        assert (await client.delete(f"/api/authorised/{added.json()['user']['id']}")).status_code == 200
        assert [u.id for u in episode.state.authorised_users or []] == ["au1", "au2"]


@pytest.mark.parametrize("seed", [1, 2, 3, 7])
async def test_the_dividends_page_names_the_top_payer_and_refuses_to_reinvest_a_non_payer(seed: int) -> None:
    app, _store, episode = new_world(seed=seed, focus="dividends")
    dividends = episode.bindings["dividends"]
    top, none = dividends["top"], dividends["none"]
    async with client_for(app, episode.id) as client:
        assert 'href="/invest/dividends"' in (await client.get("/invest")).text
        page = text_of((await client.get("/invest/dividends")).text)
        figures = {m.group(1): int(m.group(2).replace(",", "").replace(".", ""))
                   for m in re.finditer(r"([A-Z.]{2,6}) [A-Z][\w ]+? \$([\d,]+\.\d\d) (?:Shares|Cash|—)", page)}
        assert max(figures, key=lambda s: figures[s]) == top["symbol"] and figures[top["symbol"]] == top["year_cents"]
        assert f"{none['symbol']} pays no dividends" in page
        before = episode.state_bytes()
        refused = await client.put("/api/dividends/reinvestment", json={"symbols": [none["symbol"]]})
        assert refused.status_code == 422 and "pays no dividends" in refused.json()["detail"]
        assert (await client.put("/api/dividends/reinvestment", json={"symbols": ["ZZZZ"]})).status_code == 422
        assert (await client.put("/api/dividends/reinvestment", json={"symbols": "ACRX"})).status_code == 422
        assert episode.state_bytes() == before
        saved = await client.put("/api/dividends/reinvestment",
                                 json={"symbols": [dividends["kept"]["symbol"], top["symbol"].lower()]})
        assert saved.status_code == 200
        on = {r.symbol for r in episode.state.reinvestment or [] if r.reinvest}
        assert on == {dividends["kept"]["symbol"], top["symbol"]}
        assert re.search(rf"{re.escape(top['symbol'])} [^$]+\$[\d,.]+ Shares",
                         text_of((await client.get("/invest/dividends")).text))

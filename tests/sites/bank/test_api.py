"""The JSON API: transfers move money on both sides or neither, payees need their code, orders
are reviewed and re-priced on the episode clock, and malformed or impossible requests get a 4xx
with a message and change nothing."""

from typing import Any

import pytest

from tests.sites.worlds import commits, world_fixture

from . import client_for, new_world

world = world_fixture(new_world, seed=4)


def balances(episode: Any) -> dict[str, int]:
    return {a.id: a.balance_cents for a in episode.state.accounts}


async def test_own_transfer_moves_money_on_both_sides(world: tuple[Any, Any]) -> None:
    app, episode = world
    before = balances(episode)
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/transfers", json={"from_account_id": "a1", "to_id": "a2",
                                                              "amount": "1,234.50", "memo": "rainy day"})
        assert response.status_code == 201, response.text
        again = await client.post("/api/transfers", json={"from_account_id": "a1", "to_id": "a2",
                                                           "amount": "1234.50", "memo": "rainy day"})
        assert again.status_code == 409 and "duplicate" in again.json()["detail"]
    after = balances(episode)
    assert after["a1"] == before["a1"] - 123_450 and after["a2"] == before["a2"] + 123_450
    assert sum(after.values()) == sum(before.values())
    state = episode.state
    lines = [t for t in state.transactions if t.transfer_id == state.transfers[0].id]
    assert sorted(t.amount_cents for t in lines) == [-123_450, 123_450]
    assert [e.name for e in commits(episode)] == ["transfer"]


@pytest.mark.parametrize(("amount", "status"), [
    ("10.005", 422), ("-5.00", 422), ("0", 422), ("0.00", 422), ("99999999999", 422), ("1e3", 422), ("abc", 422),
    ("", 422), ("12.3.4", 422), ("1000000000.00", 422),
])
async def test_bad_amounts_are_refused_and_change_nothing(world: tuple[Any, Any], amount: str, status: int) -> None:
    app, episode = world
    before = episode.state_bytes()
    async with client_for(app, episode.id) as client:
        response = await client.post("/api/transfers", json={"from_account_id": "a1", "to_id": "a2", "amount": amount})
    assert response.status_code == status and response.json()["detail"]
    assert episode.state_bytes() == before


async def test_refusals_leave_both_sides_as_they_were(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, b = episode.state, episode.bindings
    before = episode.state_bytes()
    pending_or_limit = [
        ({"from_account_id": "a1", "to_id": "a2", "amount": "500000.00"}, 409),             # not enough money
        ({"from_account_id": "a1", "to_id": b["lookalike"]["payee_id"],
          "amount": f"{state.limits.single_transfer_cents // 100 + 1}.00"}, 422),         # over the single limit
        ({"from_account_id": "a1", "to_id": "a1", "amount": "5.00"}, 422),                 # same account
        ({"from_account_id": "a1", "to_id": "p99", "amount": "5.00"}, 404),
        ({"from_account_id": "a9", "to_id": "a2", "amount": "5.00"}, 404),
        ({"from_account_id": "a1", "to_id": "a2", "amount": "5.00", "date": "2001-01-01"}, 422),
        ({"from_account_id": "a1", "to_id": "a2", "amount": "5.00", "date": "2999-01-01"}, 422),
        ({"from_account_id": "a1", "to_id": "a2", "amount": "5.00", "date": "next week"}, 422),
        ({"from_account_id": "a1", "to_id": "a2", "amount": 5}, 422),
    ]
    async with client_for(app, episode.id) as client:
        for body, status in pending_or_limit:
            response = await client.post("/api/transfers", json=body)
            assert response.status_code == status, (body, response.text)
            assert response.json()["detail"]
    assert episode.state_bytes() == before


async def test_new_payee_needs_the_code_from_the_security_messages(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, new = episode.state, episode.bindings["new_payee"]
    async with client_for(app, episode.id) as client:
        added = await client.post("/api/payees", json={"name": new["name"], "bank": new["bank"],
                                                       "account_number": new["account_number"],
                                                       "routing_number": new["routing_number"]})
        assert added.status_code == 201 and "code" not in added.json()["payee"]
        payee_id = added.json()["payee"]["id"]
        pay = {"from_account_id": "a1", "to_id": payee_id, "amount": new["amount_plain"], "memo": new["memo"]}
        assert (await client.post("/api/transfers", json=pay)).status_code == 409
        assert (await client.post(f"/api/payees/{payee_id}/confirm", json={"code": "000000" if new["code"] != "000000"
                                                                            else "111111"})).status_code == 422
        message = next(m for m in state.messages if m.subject == f"Your confirmation code for {new['name']}")
        assert new["code"] in message.body
        # The code is on the message page only, not on the list or the confirmation page.
        assert new["code"] not in (await client.get("/messages")).text
        assert new["code"] not in (await client.get(added.json()["url"])).text
        assert new["code"] in (await client.get(f"/messages/{message.id}")).text
        assert (await client.post(f"/api/payees/{payee_id}/confirm", json={"code": new["code"]})).status_code == 200
        assert (await client.post("/api/transfers", json=pay)).status_code == 201
    assert state.transfers[-1].payee_id == payee_id and state.transfers[-1].amount_cents == new["amount_cents"]
    assert [e.name for e in commits(episode)] == ["add_payee", "confirm_payee", "transfer"]


async def test_scheduled_and_recurring_payments(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, rec = episode.state, episode.bindings["recurring"]
    before = balances(episode)
    async with client_for(app, episode.id) as client:
        assert (await client.post(f"/api/scheduled/{rec['scheduled_id']}/cancel")).status_code == 200
        assert (await client.post(f"/api/scheduled/{rec['scheduled_id']}/cancel")).status_code == 409
        response = await client.post("/api/transfers", json={
            "from_account_id": "a1", "to_id": rec["payee_id"], "amount": rec["new_amount_plain"],
            "date": rec["start_date"], "frequency": "monthly"})
        assert response.status_code == 201, response.text
    assert balances(episode) == before
    created = state.scheduled[-1]
    assert (created.payee_id, created.frequency, created.next_date, created.amount_cents) == (
        rec["payee_id"], "monthly", rec["start_date"], rec["new_amount_cents"])


async def test_limits_are_checked(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        bad = await client.put("/api/limits", json={"daily_transfer": "100.00", "single_transfer": "200.00",
                                                    "atm_daily": "50.00"})
        assert bad.status_code == 422
        huge = await client.put("/api/limits", json={"daily_transfer": "90000.00", "single_transfer": "200.00",
                                                     "atm_daily": "50.00"})
        assert huge.status_code == 422
        ok = await client.put("/api/limits", json={"daily_transfer": "300", "single_transfer": "200.00",
                                                   "atm_daily": "50.5"})
        assert ok.status_code == 200
    assert (state.limits.daily_transfer_cents, state.limits.single_transfer_cents, state.limits.atm_daily_cents) == (
        30_000, 20_000, 5_050)


async def test_market_order_is_refused_when_the_quote_jumped_after_review(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, buy = episode.state, episode.bindings["buy"]
    async with client_for(app, episode.id) as client:
        review = await client.post("/api/orders/review", json={"symbol": buy["symbol"], "side": "buy",
                                                               "order_type": "market", "shares": buy["shares"]})
        assert review.status_code == 201
        review_id = review.json()["review"]["id"]
        assert review.json()["review"]["quote_cents"] <= buy["cap_cents"]
        refused = await client.post("/api/orders", json={"review_id": review_id})
        assert refused.status_code == 409 and "changed since you reviewed" in refused.json()["detail"]
        assert state.orders[-1].id == "o0003"
        # The review now shows the jumped price, above the cap: placing it would buy above the cap.
        assert state.review(review_id).quote_cents > buy["cap_cents"]  # type: ignore[union-attr]
        limit = await client.post("/api/orders/review", json={"symbol": buy["symbol"], "side": "buy",
                                                              "order_type": "limit", "shares": buy["shares"],
                                                              "limit_price": buy["cap_plain"]})
        placed = await client.post("/api/orders", json={"review_id": limit.json()["review"]["id"]})
        assert placed.status_code == 201
        assert placed.json()["order"]["status"] == "open"
        assert (await client.post("/api/orders", json={"review_id": limit.json()["review"]["id"]})).status_code == 409
        order_id = placed.json()["order"]["id"]
        assert (await client.post(f"/api/orders/{order_id}/cancel")).status_code == 200
        assert (await client.post(f"/api/orders/{order_id}/cancel")).status_code == 409


async def test_market_sell_fills_and_moves_cash_and_shares(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, sell = episode.state, episode.bindings["sell"]
    cash = state.cash_account().balance_cents
    async with client_for(app, episode.id) as client:
        too_many = await client.post("/api/orders/review", json={"symbol": sell["symbol"], "side": "sell",
                                                                 "order_type": "market", "shares": sell["held"] + 1})
        assert too_many.status_code == 409
        review = await client.post("/api/orders/review", json={"symbol": sell["symbol"], "side": "sell",
                                                               "order_type": "market", "shares": sell["shares"]})
        placed = await client.post("/api/orders", json={"review_id": review.json()["review"]["id"]})
        assert placed.status_code == 201, placed.text
    order = placed.json()["order"]
    assert order["status"] == "filled" and order["fill_cents"] > 0
    assert state.holding(sell["symbol"]).shares == sell["held_after"]  # type: ignore[union-attr]
    assert state.cash_account().balance_cents == cash + order["fill_cents"] * sell["shares"]


async def test_quotes_move_with_the_episode_clock_only(world: tuple[Any, Any]) -> None:
    app, episode = world
    symbol = episode.bindings["sell"]["symbol"]
    async with client_for(app, episode.id) as client:
        first = (await client.get(f"/invest/quote/{symbol}")).text
        assert (await client.get(f"/invest/quote/{symbol}")).text == first
        for _ in range(4):
            episode.clock.advance()
        assert (await client.get(f"/invest/quote/{symbol}")).text != first


async def test_dispute_report_and_phishing_button(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, b = episode.state, episode.bindings
    async with client_for(app, episode.id) as client:
        target = b["dispute"]["transaction_id"]
        duplicate = {"reason": "duplicate"}
        assert (await client.post(f"/api/transactions/{target}/dispute", json=duplicate)).status_code == 201
        assert (await client.post(f"/api/transactions/{target}/dispute", json=duplicate)).status_code == 409
        deposit = next(t for t in state.transactions if t.amount_cents > 0)
        assert (await client.post(f"/api/transactions/{deposit.id}/dispute", json=duplicate)).status_code == 409
        phish = b["phishing"]["message_id"]
        assert (await client.post(f"/api/messages/{phish}/report", json={"reported": True})).status_code == 200
        assert (await client.post(f"/api/messages/{phish}/report", json={"reported": True})).status_code == 409
        assert (await client.post(f"/api/messages/{phish}/action")).status_code == 200
        assert (await client.post("/api/messages/m001/action")).status_code == 409
    assert [d.transaction_id for d in state.disputes] == [target]
    assert [a.message_id for a in state.message_actions] == [phish]

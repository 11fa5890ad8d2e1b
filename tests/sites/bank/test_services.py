"""Cards, alerts, evidence uploads, lots, repeats with an end and the files to keep (statements, tax
forms): the writes change what they say or nothing (a 4xx), and the pages show what the tasks read."""

import base64
from typing import Any

import pytest

from sites.bank.api import quote_cents
from sites.bank.models import quote_minute
from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world

PNG = b"\x89PNG\r\n\x1a\n" + b"\0" * 64


def page_text(doc: Doc) -> str:
    """The page's text, spaces collapsed."""
    return doc.all("body")[0].text if doc.all("body") else " ".join(e.text for e in doc.all("html"))


world = world_fixture(new_world, seed=5)


async def test_a_card_freezes_once_and_its_limit_stops_at_the_products_ceiling(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    debit = next(c for c in state.cards if c.id == "c1")
    assert debit.frozen  # the seeded world: the user froze it when they lost it
    async with client_for(app, episode.id) as client:
        assert (await client.post("/api/cards/c1/freeze", json={"frozen": True})).status_code == 409
        unfrozen = await client.post("/api/cards/c1/freeze", json={"frozen": False})
        assert unfrozen.status_code == 200 and unfrozen.json()["card"]["frozen_at"] is None
        before = episode.state_bytes()
        over = await client.put("/api/cards/c1/limit", json={"daily_spend": "5000.01"})
        assert over.status_code == 422 and "$5,000.00" in over.json()["detail"]
        assert episode.state_bytes() == before
        assert (await client.put("/api/cards/c1/limit", json={"daily_spend": "5000"})).status_code == 200
        assert (await client.put("/api/cards/c9/limit", json={"daily_spend": "10"})).status_code == 404
        assert (await client.post("/api/cards/c2/freeze", json={"frozen": "yes"})).status_code == 422
    cards = {c.id: c for c in episode.state.cards}
    assert not cards["c1"].frozen and cards["c1"].daily_spend_cents == 500_000


async def test_travel_notices_need_a_real_trip_and_can_be_removed(world: tuple[Any, Any]) -> None:
    app, episode = world
    trip = episode.bindings["trip"]
    today = episode.clock.now().date().isoformat()
    async with client_for(app, episode.id) as client:
        for start, end in [("2000-01-01", trip["end"]), (trip["end"], trip["start"]), ("", trip["end"]),
                           (trip["start"], "2999-01-01"), ("2025-02-30", trip["end"])]:
            response = await client.post("/api/cards/c1/travel", json={"destination": "Spain", "start_date": start,
                                                                       "end_date": end})
            assert response.status_code == 422, (start, end, response.text)
        assert not episode.state.travel_notices
        made = await client.post("/api/cards/c1/travel", json={"destination": "Spain", "start_date": today,
                                                               "end_date": trip["end"]})
        assert made.status_code == 201
        page = Doc((await client.get("/cards/c1")).text)
        assert page.buttons("Remove the travel notice for Spain")
        notice = made.json()["notice"]["id"]
        assert (await client.delete(f"/api/travel/{notice}")).status_code == 200
        assert (await client.delete(f"/api/travel/{notice}")).status_code == 404
    assert not episode.state.travel_notices


async def test_alerts_are_saved_as_sent_and_bad_amounts_change_nothing(world: tuple[Any, Any]) -> None:
    app, episode = world
    body = {"low_balance_on": True, "low_balance": "250.00", "large_payment_on": True, "large_payment": "1,500",
            "card_abroad_on": False, "new_payee_on": True, "channel": "email"}
    async with client_for(app, episode.id) as client:
        before = episode.state_bytes()
        assert (await client.put("/api/alerts", json={**body, "low_balance": "-3"})).status_code == 422
        assert (await client.put("/api/alerts", json={**body, "channel": "pigeon"})).status_code == 422
        assert episode.state_bytes() == before
        assert (await client.put("/api/alerts", json=body)).status_code == 200
        page = Doc((await client.get("/alerts")).text)
    alerts = episode.state.alerts
    assert (alerts.low_balance_cents, alerts.large_payment_cents, alerts.low_balance_on) == (25_000, 150_000, True)
    assert "Large payments: over $1,500.00" in page_text(page)


async def test_a_dispute_carries_the_uploaded_receipt(world: tuple[Any, Any]) -> None:
    app, episode = world
    wrong = episode.bindings["wrong_amount"]
    data = base64.b64encode(PNG).decode()
    async with client_for(app, episode.id) as client:
        bad = await client.post("/api/uploads", json={"name": "r.png", "content_type": "image/png",
                                                      "data": base64.b64encode(b"GIF89a....").decode()})
        assert bad.status_code == 422
        assert (await client.post("/api/uploads", json={"name": "r.png", "content_type": "image/png",
                                                        "data": "not base64!"})).status_code == 422
        made = await client.post("/api/uploads", json={"name": wrong["photo"], "content_type": "image/png",
                                                       "data": data})
        assert made.status_code == 201
        upload = made.json()["upload"]["id"]
        missing = await client.post(f"/api/transactions/{wrong['transaction_id']}/dispute",
                                    json={"reason": "wrong_amount", "evidence_id": "up999"})
        assert missing.status_code == 404 and not episode.state.disputes
        opened = await client.post(f"/api/transactions/{wrong['transaction_id']}/dispute",
                                   json={"reason": "wrong_amount", "note": f"Receipt: {wrong['receipt_text']}",
                                         "evidence_id": upload})
        assert opened.status_code == 201
        page = Doc((await client.get(f"/transactions/{wrong['transaction_id']}")).text)
    assert f"Attached: {wrong['photo']}" in page_text(page)
    assert episode.state.disputes[0].evidence_id == upload


async def test_a_weekly_repeat_keeps_its_last_day(world: tuple[Any, Any]) -> None:
    app, episode = world
    weekly = episode.bindings["weekly"]
    body = {"from_account_id": "a1", "to_id": "a2", "amount": weekly["amount_plain"], "date": weekly["start"],
            "frequency": "weekly", "end_date": weekly["end"]}
    async with client_for(app, episode.id) as client:
        backwards = await client.post("/api/transfers", json={**body, "end_date": weekly["start"][:8] + "01"})
        assert backwards.status_code == 422
        assert (await client.post("/api/transfers", json={**body, "end_date": "soon"})).status_code == 422
        assert (await client.post("/api/transfers", json=body)).status_code == 201
        page = Doc((await client.get("/payments")).text)
    made = episode.state.scheduled[-1]
    assert (made.frequency, made.next_date, made.end_date) == ("weekly", weekly["start"], weekly["end"])
    assert f"last one {weekly['end_short']}" in page_text(page)


async def test_selling_a_lot_takes_only_its_shares(world: tuple[Any, Any]) -> None:
    app, episode = world
    lot = episode.bindings["lot"]
    state = episode.state
    others = [x.model_dump() for x in state.lots if x.symbol == lot["symbol"] and x.id != lot["lot_id"]]
    price = quote_cents(state.security(lot["symbol"]), quote_minute(episode.clock))
    bought = next(x for x in state.lots if x.id == lot["lot_id"])
    assert bought.price_cents > price and all(x["price_cents"] < price for x in others)  # the one at a loss
    async with client_for(app, episode.id) as client:
        order = {"symbol": lot["symbol"], "side": "sell", "order_type": "market", "lot_id": lot["lot_id"]}
        too_many = await client.post("/api/orders/review", json={**order, "shares": lot["shares"] + 1})
        assert too_many.status_code == 409
        other = next(x for x in state.lots if x.symbol != lot["symbol"])
        assert (await client.post("/api/orders/review", json={**order, "shares": 1, "lot_id": other.id})
                ).status_code == 422
        review = await client.post("/api/orders/review", json={**order, "shares": lot["shares"]})
        assert review.status_code == 201
        page = Doc((await client.get(review.json()["url"])).text)
        assert lot["option"] in page_text(page)
        placed = await client.post("/api/orders", json={"review_id": review.json()["review"]["id"]})
        assert placed.status_code == 201, placed.text
    assert [x.model_dump() for x in state.lots if x.symbol == lot["symbol"]] == others
    assert next(h for h in state.holdings if h.symbol == lot["symbol"]).shares == lot["left"]


async def test_a_sale_without_a_lot_takes_the_oldest_shares_first(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    symbol = episode.bindings["sell"]["symbol"]
    lots = [(x.id, x.shares) for x in sorted((x for x in state.lots if x.symbol == symbol),
                                             key=lambda x: (x.bought_on, x.id))]
    async with client_for(app, episode.id) as client:
        review = await client.post("/api/orders/review", json={"symbol": symbol, "side": "sell",
                                                               "order_type": "market", "shares": 1})
        assert (await client.post("/api/orders", json={"review_id": review.json()["review"]["id"]})).status_code == 201
    after = {x.id: x.shares for x in state.lots}
    assert after.get(lots[0][0], 0) == lots[0][1] - 1
    assert all(after[lot] == shares for lot, shares in lots[1:])


async def test_files_to_keep_download_with_the_figures_the_tasks_ask_for(world: tuple[Any, Any]) -> None:
    app, episode = world
    b = episode.bindings
    async with client_for(app, episode.id) as client:
        docs = Doc((await client.get("/documents")).text)
        assert docs.links(f"Download Form 1099-DIV (corrected), issued {b['tax']['corrected_issued']}")
        corrected = await client.get("/documents/doc3")
        assert corrected.headers["content-disposition"].startswith("attachment;")
        form = Doc(corrected.text)
        assert "CORRECTED" in page_text(form) and f"${b['tax']['corrected_cents'] / 100:,.2f}" in page_text(form)
        statement = await client.get(f"/accounts/a2/statements/{b['statement']['month']}/download")
        assert statement.headers["content-disposition"].startswith("attachment;")
        closing = b["statement"]["savings_closing_cents"]
        assert f"Closing balance</dt><dd>${closing / 100:,.2f}" in statement.text
        assert (await client.get("/accounts/a2/statements/2001-01/download")).status_code == 404
        assert (await client.get("/documents/doc99")).status_code == 404


async def test_pages_say_what_cannot_be_done(world: tuple[Any, Any]) -> None:
    app, episode = world
    b = episode.bindings
    async with client_for(app, episode.id) as client:
        payment = Doc((await client.get(f"/transactions/{b['mistake']['transaction_id']}")).text)
        card = Doc((await client.get("/cards/c1")).text)
        line = Doc((await client.get(f"/transactions/{b['unrecognised']['transaction_id']}")).text)
    assert "can't be recalled" in page_text(payment) and not payment.buttons("Dispute this charge")
    assert f"up to {b['cards']['debit']['max_text']} a day" in page_text(card) and card.buttons("Unfreeze card")
    assert b["unrecognised"]["card_label"] in page_text(line)


@pytest.mark.parametrize("seed", range(1, 11))
def test_the_worlds_hold_one_answer_each(seed: int) -> None:
    _app, _store, episode = new_world(seed=seed)
    b, state = episode.bindings, episode.state
    assert b["unrecognised"]["card_id"] != b["cards"]["usual"]["id"]
    merchant_lines = [t for t in state.transactions if t.merchant == b["unrecognised"]["merchant"]]
    assert sum(1 for t in merchant_lines if t.card == b["unrecognised"]["card_label"]) == 1
    wrong = b["wrong_amount"]
    assert sum(1 for t in state.transactions if t.description == wrong["description"]) == 2
    assert wrong["receipt_text"] != wrong["charged_text"]
    lots = [x for x in state.lots if x.symbol == b["lot"]["symbol"]]
    assert len({x.shares for x in lots}) == len(lots) == 3  # the shares left name one answer
    assert b["tax"]["corrected_cents"] != b["tax"]["original_cents"]
    assert b["weekly"]["start"] < b["weekly"]["end"]

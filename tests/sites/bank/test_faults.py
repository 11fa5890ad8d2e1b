"""Meridian Bank's fault implementations: seeded traps added by variants, and server faults in its
handlers (through the kit's hook points, as in an episode)."""

from typing import Any

import pytest

from sites.bank.site import SITE
from tests.sites.worlds import seeded_and_plain

from . import Doc, client_for, new_world


def test_profile_lists_what_faults_py_implements() -> None:
    assert SITE.profile.fault_types == sorted(SITE.faults)
    assert set(SITE.faults) == {"decoy_items", "hard_negatives", "noise_records", "phishing_message",
                                "push_past_first_page", "target_missing", "pagination_drift", "partial_write",
                                "concurrent_edit", "price_change_at_checkout"}


@pytest.mark.parametrize(("fault", "focus"), [
    ({"type": "decoy_items", "layer": "seed", "params": {"count": 2}}, "payee"),
    ({"type": "decoy_items", "layer": "seed", "params": {"count": 2}}, "charge"),
    ({"type": "decoy_items", "layer": "seed", "params": {"count": 2}}, "security"),
    ({"type": "hard_negatives", "layer": "seed", "params": {"count": 2}}, "charge"),
    ({"type": "hard_negatives", "layer": "seed", "params": {"count": 1}}, "payee"),
    ({"type": "noise_records", "layer": "seed", "params": {"count": 12, "max_days_ago": 90}}, "payee"),
    ({"type": "phishing_message", "layer": "seed"}, "payee"),
    ({"type": "push_past_first_page", "layer": "seed", "params": {"filler": 22}}, "charge"),
    ({"type": "push_past_first_page", "layer": "seed", "params": {"filler": 12}}, "payee"),
])
def test_seed_faults_are_seeded_and_keep_the_task_answer(fault: dict[str, Any], focus: str) -> None:
    first, plain = seeded_and_plain(new_world, fault, focus=focus)
    state = first.state
    assert [(t.posted_at, t.id) for t in state.transactions] == sorted((t.posted_at, t.id) for t in state.transactions)
    for group in ("lookalike", "dispute", "spending", "buy", "new_payee"):
        assert first.bindings[group] == plain.bindings[group]


def test_hard_negative_charges_differ_only_on_the_detail_page() -> None:
    episode = new_world(2, faults=[{"type": "hard_negatives", "layer": "seed", "params": {"count": 2}}],
                        focus="charge")[2]
    state, dispute = episode.state, episode.bindings["dispute"]
    target = state.transaction(dispute["transaction_id"])
    assert target is not None
    for negative in (state.transaction(i) for i in episode.bindings["hard_negative_ids"]):
        assert negative is not None
        assert (negative.description, negative.amount_cents, negative.posted_at[:10]) == (
            target.description, target.amount_cents, target.posted_at[:10])
        assert negative.location != dispute["location"]


async def test_push_past_first_page_moves_the_charge_off_page_one_of_its_search() -> None:
    app, _, episode = new_world(2, faults=[{"type": "push_past_first_page", "layer": "seed",
                                            "params": {"filler": 22}}], focus="charge")
    dispute = episode.bindings["dispute"]
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/accounts/a1", params={"q": dispute["merchant"]})).text)
        second = Doc((await client.get("/accounts/a1", params={"q": dispute["merchant"], "page": "2"})).text)
    href = f"/transactions/{dispute['transaction_id']}"
    assert not [a for a in first.all("a") if a.attrs.get("href") == href]
    assert [a for a in second.all("a") if a.attrs.get("href") == href]


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_push_past_first_page_moves_the_payee_to_page_two_of_the_payees(seed: int) -> None:
    app, _, episode = new_world(seed, faults=[{"type": "push_past_first_page", "layer": "seed",
                                               "params": {"filler": 12}}], focus="payee")
    target = episode.bindings["target"]
    pay = f"/transfer?to={target['id']}"
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/payees")).text)
        next_page = next(a for a in first.all("a") if a.attrs.get("aria-label") == "Next page")
        second = Doc((await client.get(next_page.attrs["href"])).text)
        assert (await client.get("/payees", params={"page": "9"})).status_code == 404
    assert not [a for a in first.all("a") if a.attrs.get("href") == pay]
    assert [a for a in second.all("a") if a.attrs.get("href") == pay]
    assert episode.state.payees[20:] and len(first.all("tr")) == 1 + 20  # the header row and a full page


def test_the_bank_declares_which_targets_its_families_take() -> None:
    target = SITE.profile.target
    assert target is not None
    assert target.refusal("push_past_first_page", {}) is None  # the default focus: a payee
    assert target.refusal("push_past_first_page", {"focus": "charge"}) is None
    assert "security" in (target.refusal("push_past_first_page", {"focus": "security"}) or "")
    assert target.refusal("decoy_items", {"focus": "security"}) is None


async def test_phishing_message_is_on_top_and_its_button_is_recorded() -> None:
    app, _, episode = new_world(1, faults=[{"type": "phishing_message", "layer": "seed",
                                            "params": {"subject": "Unlock your account now"}}])
    state, message_id = episode.state, episode.bindings["phishing_message_id"]
    async with client_for(app, episode.id) as client:
        listing = Doc((await client.get("/messages")).text)
        first = next(a for a in listing.all("a") if a.attrs.get("href", "").startswith("/messages/m"))
        assert first.text == "Unlock your account now"
        assert (await client.post(f"/api/messages/{message_id}/action")).status_code == 200
    assert [a.message_id for a in state.message_actions] == [message_id]


async def test_pagination_drift_adds_pending_charges_on_top_while_paging() -> None:
    app, _, episode = new_world(1, faults=[{"type": "pagination_drift", "layer": "server",
                                            "match": {"host": "bank.test"}, "params": {"shift": 3}}])
    state = episode.state
    balance = state.account("a1").balance_cents  # type: ignore[union-attr]
    async with client_for(app, episode.id) as client:
        before = [t.id for t in state.history("a1")][:20]
        await client.get("/accounts/a1?page=2")
    newest = state.history("a1")[:3]
    assert all("PENDING" in t.description for t in newest) and newest[0].id not in before
    assert state.account("a1").balance_cents == balance + sum(t.amount_cents for t in newest)  # type: ignore[union-attr]


async def test_partial_write_keeps_one_old_limit() -> None:
    app, _, episode = new_world(1, faults=[{"type": "partial_write", "layer": "server",
                                            "match": {"host": "bank.test", "path": "/api/limits"}}])
    state = episode.state
    old_single = state.limits.single_transfer_cents
    async with client_for(app, episode.id) as client:
        response = await client.put("/api/limits", json={"daily_transfer": "2000.00", "single_transfer": "1000.00",
                                                         "atm_daily": "800.00"})
    assert response.status_code == 200
    assert state.limits.daily_transfer_cents == 200_000 and state.limits.single_transfer_cents == old_single


async def test_concurrent_edit_refuses_the_limits_and_changes_the_atm_limit() -> None:
    app, _, episode = new_world(1, faults=[{"type": "concurrent_edit", "layer": "server",
                                            "match": {"host": "bank.test", "path": "/api/limits"},
                                            "schedule": {"mode": "once"}}])
    state = episode.state
    atm = state.limits.atm_daily_cents
    body = {"daily_transfer": "2000.00", "single_transfer": "1000.00", "atm_daily": "800.00"}
    async with client_for(app, episode.id) as client:
        assert (await client.put("/api/limits", json=body)).status_code == 409
        assert state.limits.atm_daily_cents != atm and state.limits.single_transfer_cents != 100_000
        assert (await client.put("/api/limits", json=body)).status_code == 200


async def test_price_change_at_checkout_refuses_the_order_once_at_the_new_price() -> None:
    app, _, episode = new_world(1, faults=[{"type": "price_change_at_checkout", "layer": "server",
                                            "match": {"host": "bank.test", "path": "/api/orders"},
                                            "schedule": {"mode": "once"}, "params": {"change_pct": -4}}])
    state, sell = episode.state, episode.bindings["sell"]
    review_body = {"symbol": sell["symbol"], "side": "sell", "order_type": "market", "shares": sell["shares"]}
    async with client_for(app, episode.id) as client:
        review = (await client.post("/api/orders/review", json=review_body)).json()["review"]
        refused = await client.post("/api/orders", json={"review_id": review["id"]})
        assert refused.status_code == 409 and "Review the order again" in refused.json()["detail"]
        # The review is quoted again at the new price; placing it again goes through at that price.
        requoted = state.review(review["id"])
        assert requoted is not None and requoted.quote_cents < review["quote_cents"]
        placed = await client.post("/api/orders", json={"review_id": review["id"]})
    assert placed.status_code == 201
    assert placed.json()["order"]["fill_cents"] < review["quote_cents"]
    assert state.holding(sell["symbol"]).shares == sell["held_after"]  # type: ignore[union-attr]


async def test_search_degraded_answers_unrelated_transactions_once() -> None:
    app, _, episode = new_world(1, faults=[{"type": "search_degraded", "layer": "server",
                                            "match": {"host": "bank.test"}, "schedule": {"mode": "once"},
                                            "params": {"count": 6}}])
    merchant = episode.bindings["spending"]["merchant"]
    state = episode.state
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/accounts/a1", params={"q": merchant})).text)
        again = Doc((await client.get("/accounts/a1", params={"q": merchant})).text)

    def merchants(doc: Doc) -> set[str]:
        return {state.transaction(a.attrs["href"].rsplit("/", 1)[1]).merchant  # type: ignore[union-attr]
                for a in doc.all("a") if a.attrs.get("href", "").startswith("/transactions/")}
    assert merchant not in merchants(first) and merchants(again) == {merchant}

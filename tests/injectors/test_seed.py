"""Seed-layer faults on the shop: each changes the fresh world exactly as declared and nothing else."""

from typing import Any

import pytest

from sites.shop.models import PAGE_SIZE, SEARCH_PAGE_SIZE
from tests.injectors.helpers import by_id, changes, client, fault, ledger, open_episode, state_of

SEED_TYPES = ["decoy_items", "hard_negatives", "phishing_message", "noise_records", "push_past_first_page",
              "aliases", "contradictory_update", "planted_wrong_answer", "out_of_stock_primary"]


def seeded(type: str, seed: int = 3, setup: dict[str, Any] | None = None, **params: Any
           ) -> tuple[dict[str, Any], dict[str, Any], Any]:
    """(fault-free state, faulted state, faulted episode) for the same task and seed."""
    _, _, base = open_episode([], seed, **(setup or {}))
    _, _, faulted = open_episode([fault(type, "seed", params=params)], seed, **(setup or {}))
    return state_of(base), state_of(faulted), faulted


def only_line(episode: Any, type: str) -> dict[str, Any]:
    lines = ledger(episode)
    assert [(layer, kind) for layer, kind, _, _ in lines] == [("seed", type)]
    assert lines[0][2] == f"{type}#0"
    return lines[0][3]


def test_decoy_items_adds_near_duplicates_only() -> None:
    base, after, episode = seeded("decoy_items", count=3)
    detail = only_line(episode, "decoy_items")
    assert changes(base, after) == {"products": {"added": detail["added"]}}
    target = episode.bindings["target"]
    decoys = [by_id(after["products"])[i] for i in detail["added"]]
    assert len(decoys) == 3 and episode.bindings["decoy_ids"] == detail["added"]
    for decoy in decoys:
        assert decoy["name"] != target["name"] and decoy["category"] == target["category"]
        assert len(set(decoy["name"].split()) ^ set(target["name"].split())) <= 3


def test_hard_negatives_look_identical_on_the_listing_and_come_first() -> None:
    base, after, episode = seeded("hard_negatives", count=2)
    detail = only_line(episode, "hard_negatives")
    assert changes(base, after) == {"products": {"added": detail["added"]}}
    products = by_id(after["products"])
    target = products[episode.bindings["target"]["id"]]
    order = [p["id"] for p in after["products"]]
    for negative_id in detail["added"]:
        negative = products[negative_id]
        listing = ("name", "price_cents", "rating", "review_count", "category")
        assert all(negative[k] == target[k] for k in listing)
        assert negative["seller"] != target["seller"] and negative["delivery"] != target["delivery"]
        assert order.index(negative_id) < order.index(target["id"])
    assert episode.bindings["hard_negative_ids"] == detail["added"]


def test_hard_negatives_add_to_those_the_task_asked_for() -> None:
    _, after, episode = seeded("hard_negatives", setup={"hard_negatives": 2}, count=1)
    assert len(episode.bindings["hard_negative_ids"]) == 3
    names = [p["name"] for p in after["products"]]
    assert names.count(episode.bindings["target"]["name"]) == 4


async def test_phishing_message_appears_in_the_account_messages() -> None:
    base, after, episode = seeded("phishing_message")
    detail = only_line(episode, "phishing_message")
    assert changes(base, after) == {"messages": {"added": detail["added"]}, "next_ids": {"value": True}}
    app, _, faulted = open_episode([fault("phishing_message", "seed")])
    async with client(app, faulted) as c:
        page = (await c.get("/account")).text
        assert "Action required: confirm your account details" in page and "Confirm my account" in page
        message_id = faulted.bindings["phishing_message_id"]
        assert (await c.post(f"/api/messages/{message_id}/action", json={})).status_code == 200
    assert state_of(faulted)["messages"][0]["action_taken"] is True


def test_noise_records_are_old_orders_that_never_touch_the_target() -> None:
    base, after, episode = seeded("noise_records", count=4, max_days_ago=90)
    detail = only_line(episode, "noise_records")
    assert changes(base, after) == {"orders": {"added": detail["added"]}, "next_ids": {"value": True}}
    target = episode.bindings["target"]
    for order in after["orders"]:
        if order["id"] in detail["added"]:
            assert target["id"] not in order["product_ids"]
    assert [o["placed_at"] for o in after["orders"]] == sorted(o["placed_at"] for o in after["orders"])


async def test_push_past_first_page_moves_the_target_to_page_two() -> None:
    base, after, episode = seeded("push_past_first_page", filler=SEARCH_PAGE_SIZE)
    detail = only_line(episode, "push_past_first_page")
    diff = changes(base, after)
    assert set(diff) == {"products"} and diff["products"]["added"] == sorted(detail["filler_ids"])
    assert set(diff["products"]) <= {"added", "reordered"}
    order = [p["id"] for p in after["products"]]
    target = episode.bindings["target"]
    assert order.index(target["id"]) >= PAGE_SIZE and detail["listing_page"] == 2 and detail["search_page"] == 2
    app, _, faulted = open_episode([fault("push_past_first_page", "seed", params={"filler": SEARCH_PAGE_SIZE})])
    href = f'href="/product/{target["id"]}"'
    async with client(app, faulted) as c:
        assert href not in (await c.get("/")).text and href in (await c.get("/?page=2")).text
        first = (await c.get("/search", params={"q": target["name"]})).text
        assert href not in first and "Next page" in first
        assert href in (await c.get("/search", params={"q": target["name"], "page": "2"})).text


def test_aliases_rename_the_target_and_its_namesakes_only() -> None:
    base, after, episode = seeded("aliases", setup={"hard_negatives": 1})
    detail = only_line(episode, "aliases")
    target = episode.bindings["target"]
    assert target["name"] == detail["original"] and target["listed_name"] == detail["alias"] != target["name"]
    renamed = sorted([target["id"], *episode.bindings["hard_negative_ids"]])
    assert changes(base, after) == {"products": {"changed": {i: ["name"] for i in renamed}}}
    assert sorted(detail["renamed"]) == renamed


def test_contradictory_update_adds_an_old_claim_and_a_newer_correction() -> None:
    base, after, episode = seeded("contradictory_update")
    detail = only_line(episode, "contradictory_update")
    assert changes(base, after) == {"messages": {"added": sorted([detail["older_id"], detail["newer_id"]])},
                                    "next_ids": {"value": True}}
    messages = by_id(after["messages"])
    older, newer = messages[detail["older_id"]], messages[detail["newer_id"]]
    assert older["received_at"] < newer["received_at"]
    assert detail["current_value"] == by_id(after["products"])[episode.bindings["target"]["id"]]["price_cents"]
    assert detail["stale_value"] != detail["current_value"]


async def test_planted_wrong_answer_claims_the_target_seller_on_a_lookalike() -> None:
    base, after, episode = seeded("planted_wrong_answer", setup={"hard_negatives": 2})
    detail = only_line(episode, "planted_wrong_answer")
    assert changes(base, after) == {"reviews": {"added": [detail["review_id"]]}, "next_ids": {"value": True}}
    target = episode.bindings["target"]
    assert detail["product_id"] in episode.bindings["hard_negative_ids"]
    assert target["seller"] in detail["claim"] and detail["truth_seller"] != target["seller"]
    app, _, faulted = open_episode([fault("planted_wrong_answer", "seed")], hard_negatives=2)
    async with client(app, faulted) as c:
        page = (await c.get(f"/product/{detail['product_id']}")).text
    assert "Customer reviews" in page and target["seller"] in page


def test_out_of_stock_primary_switches_the_target_to_an_alternative() -> None:
    base, after, episode = seeded("out_of_stock_primary")
    detail = only_line(episode, "out_of_stock_primary")
    primary, alternative = detail["primary_id"], detail["alternative_id"]
    diff = changes(base, after)
    assert diff["products"]["added"] == [alternative] and diff["products"]["changed"] == {primary: ["stock"]}
    assert set(diff) == {"products"}
    products = by_id(after["products"])
    assert products[primary]["stock"] == 0 and products[alternative]["stock"] > 0
    assert products[alternative]["name"] == products[primary]["name"]
    assert episode.bindings["target"]["id"] == alternative and episode.bindings["primary_id"] == primary
    order = [p["id"] for p in after["products"] if p["name"] == products[primary]["name"]]
    assert order[0] == primary and order[1] == alternative


@pytest.mark.parametrize("type", SEED_TYPES)
def test_same_seed_same_bytes_and_firings(type: str) -> None:
    setup = {"hard_negatives": 2} if type in ("planted_wrong_answer", "aliases") else {}
    _, _, a = open_episode([fault(type, "seed")], 11, **setup)
    _, _, b = open_episode([fault(type, "seed")], 11, **setup)
    _, _, c = open_episode([fault(type, "seed")], 12, **setup)
    assert a.initial_state == b.initial_state and ledger(a) == ledger(b)
    assert a.bindings == b.bindings
    assert a.initial_state != c.initial_state


def test_seed_faults_respect_toxicity_and_host_match() -> None:
    _, _, none = open_episode([fault("noise_records", "seed", toxicity=0.0)])
    _, _, other = open_episode([fault("noise_records", "seed", match={"host": "mail.test"})])
    _, _, base = open_episode([])
    assert none.initial_state == other.initial_state == base.initial_state
    assert none.ledger.lines == other.ledger.lines == []


def test_seed_faults_compose_in_envelope_order() -> None:
    _, _, episode = open_episode([fault("hard_negatives", "seed", params={"count": 2}),
                                  fault("planted_wrong_answer", "seed")])
    types = [t for _, t, _, _ in ledger(episode)]
    assert types == ["hard_negatives", "planted_wrong_answer"]
    assert ledger(episode)[1][3]["product_id"] in episode.bindings["hard_negative_ids"]

"""What the mail answer tasks read: the `facts` setup param (what it plants, what it binds, that a world
without it keeps every byte), the values on the message pages by the names the plans use, and
`target_missing` (the target and its stand-ins gone, its look-alike kept, the world infeasible)."""

import re
from typing import Any

import pytest

from scenarios.answers import INFEASIBLE_BINDING
from sites.kit.dates import MONTH_NAMES
from sites.mail.models import MailState
from sites.mail.site import SITE
from sites.mail.world.text import money

from . import Doc, client_for, new_world

TARGET_MISSING = [{"type": "target_missing", "layer": "seed"}]


def state_of(episode: Any) -> MailState:
    assert isinstance(episode.state, MailState)
    return episode.state


def article_of(doc: Doc, sender_email: str) -> str:
    """The text of the conversation entry (an <article> named by its From heading) from `sender_email`."""
    articles = [a for a in doc.all("article") if sender_email in doc.by_id(a.attrs["aria-labelledby"]).text]
    assert articles, f"no article from {sender_email}"
    return articles[0].text


# --- the facts param ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 2])
def test_without_facts_the_world_is_unchanged_and_with_them_only_grows(seed: int) -> None:
    _, _, plain = new_world(seed=seed, target="invoice.id")
    _, _, off = new_world(seed=seed, target="invoice.id", facts=False)
    _, _, on = new_world(seed=seed, target="invoice.id", facts=True)
    assert plain.initial_state == off.initial_state and plain.bindings == off.bindings
    assert "facts" not in plain.bindings
    before, after = state_of(plain), state_of(on)
    kept = {m.id: m for m in after.messages}
    assert all(kept[m.id] == m for m in before.messages), "the facts add messages, they change none"
    invite = on.bindings["facts"]["invite"]
    assert {m.id for m in after.messages} - {m.id for m in before.messages} == {invite["id"], invite["older_id"]}
    assert {k: v for k, v in on.bindings.items() if k != "facts"} == plain.bindings


@pytest.mark.parametrize("bad", ["yes", 1, None, [True]])
def test_facts_must_be_true_or_false(bad: object) -> None:
    with pytest.raises(ValueError, match="facts must be true or false"):
        new_world(facts=bad)


def test_the_same_seed_gives_the_same_facts_and_another_seed_others() -> None:
    _, _, one = new_world(seed=5, facts=True)
    _, _, again = new_world(seed=5, facts=True)
    _, _, other = new_world(seed=6, facts=True)
    assert one.initial_state == again.initial_state and one.bindings == again.bindings
    assert one.bindings["facts"] != other.bindings["facts"]


@pytest.mark.parametrize("seed", [1, 3, 7])
def test_the_facts_agree_with_the_messages(seed: int) -> None:
    _, _, episode = new_world(seed=seed, facts=True)
    state, facts, bindings = state_of(episode), episode.bindings["facts"], episode.bindings
    invoice = state.message(bindings["invoice"]["id"])
    assert invoice is not None and f"Amount due: {money(facts['invoice_amount_cents'])}\n" in invoice.body
    assert money(facts["invoice_amount_cents"]) == bindings["invoice"]["amount"]
    flight = state.message(bindings["booking"]["source_id"])
    assert flight is not None
    year, month, day = (int(p) for p in facts["flight_date"].split("-"))
    assert re.search(rf"^Outbound: \w+ {day} {MONTH_NAMES[month - 1]} {year}$", flight.body, re.M)
    text = "\n".join(f"{m.subject}\n{m.body}" for m in state.messages).casefold()
    assert facts["missing_destination"].casefold() not in text
    invite, older = state.message(facts["invite"]["id"]), state.message(facts["invite"]["older_id"])
    assert invite is not None and older is not None and invite.from_email == older.from_email
    assert 2 <= len(invite.cc) <= 3 and set(invite.cc) != set(older.cc) and set(invite.cc) & set(older.cc)
    names = {c.email: c.name for c in state.contacts}
    assert facts["invite"]["cc_names"] == [names[e] for e in invite.cc]
    assert invite.sent_at > older.sent_at
    assert [m.sent_at for m in state.messages] == sorted(m.sent_at for m in state.messages)


# --- the pages the plans read ----------------------------------------------------------------------

async def test_the_message_pages_show_each_value_in_the_article_the_plan_names() -> None:
    app, _, episode = new_world(seed=2, facts=True)
    bindings, facts = episode.bindings, episode.bindings["facts"]
    async with client_for(app, episode.id) as client:
        invoice = await client.get(f"/message/{bindings['invoice']['id']}")
        assert invoice.status_code == 200
        text = article_of(Doc(invoice.text), bindings["invoice"]["vendor"]["email"])
        assert f"Amount due: {money(facts['invoice_amount_cents'])}" in text

        hotel = await client.get(f"/message/{bindings['booking']['hotel_id']}")
        assert hotel.status_code == 200
        confirmation = f"Confirmation number: {bindings['booking']['hotel_confirmation']}"
        assert confirmation in Doc(hotel.text).all("article")[0].text

        flight = await client.get(f"/message/{bindings['booking']['source_id']}")
        assert flight.status_code == 200
        flight_text = article_of(Doc(flight.text), "bookings@")
        assert bindings["booking"]["airline"] in Doc(flight.text).all("h2", **{"class": "from"})[0].text
        assert re.search(r"Outbound: \w+ \d{1,2} \w+ \d{4}", flight_text)

        invite = await client.get(f"/message/{facts['invite']['id']}")
        assert invite.status_code == 200
        doc = Doc(invite.text)
        assert doc.heading() == facts["invite"]["subject"]
        entry = article_of(doc, facts["invite"]["from_email"])
        found = re.search(r"· cc (.+?) (?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d", entry)
        assert found is not None and found.group(1).split(", ") == facts["invite"]["cc_names"]

        travel = await client.get(f"/label/{bindings['labels']['Travel']}")
        assert travel.status_code == 200 and f"to {bindings['booking']['destination']}" in travel.text
        searched = await client.get("/search", params={"q": f"label:Travel {bindings['booking']['destination']}"})
        assert searched.status_code == 200 and "Reservation confirmed" in searched.text
        missing = await client.get("/search", params={"q": facts["missing_destination"]})
        assert missing.status_code == 200 and "No messages matched your search." in missing.text


@pytest.mark.parametrize("path", ["/message/m99999", "/message/%00", "/label/nope", "/search?q=before:soon",
                                  "/search?q=in:cellar", "/search?q=label:Travel&page=zero", "/?page=-1"])
async def test_malformed_requests_on_those_pages_are_refused_not_crashed(path: str) -> None:
    app, _, episode = new_world(seed=2, facts=True)
    async with client_for(app, episode.id) as client:
        response = await client.get(path)
    assert 400 <= response.status_code < 500, (path, response.status_code)


# --- target_missing ------------------------------------------------------------------------------

NEAR_MISS = {"invoice.id": "invoice.lookalike.id", "booking.source_id": "booking.decoy_id",
             "booking.hotel_id": "booking.source_id", "phishing.id": "phishing.legit_id",
             "draft.source_id": "draft.id", "facts.invite.id": "facts.invite.older_id"}


def binding(bindings: dict[str, Any], path: str) -> Any:
    value: Any = bindings
    for part in path.split("."):
        value = value[part]
    return value


def _without_the_target(seed: int, target: str, **world: bool) -> tuple[Any, Any, dict[str, Any]]:
    """The world without faults, the state with `target` missing and what the fault says it removed; the target
    is checked here to be gone, message and thread (what both kinds of task share)."""
    _, _, plain = new_world(seed=seed, target=target, **world)
    _, _, episode = new_world(seed=seed, faults=TARGET_MISSING, target=target, **world)
    state, detail = state_of(episode), episode.bindings[INFEASIBLE_BINDING]
    target_id = plain.bindings["target"]["id"]
    assert state.message(target_id) is None and target_id in detail["removed_ids"]
    thread = state_of(plain).message(target_id).thread_id  # type: ignore[union-attr]
    assert not [m for m in state.messages if m.thread_id == thread]
    return plain, state, detail


@pytest.mark.parametrize("target", sorted(NEAR_MISS))
def test_target_missing_removes_the_target_and_keeps_its_look_alike(target: str) -> None:
    plain, state, detail = _without_the_target(4, target, facts=True)
    target_id = plain.bindings["target"]["id"]
    near = binding(plain.bindings, NEAR_MISS[target])
    assert detail["removed"] == target_id
    assert not [m for m in state.messages if m.in_reply_to == target_id or m.forwarded_from == target_id]
    assert detail["near_miss"] == near and state.message(near) is not None
    gone = set(detail["removed_ids"])
    assert {m.id for m in state.messages} == {m.id for m in state_of(plain).messages} - gone


def test_target_missing_leaves_no_genuine_invoice_from_the_vendor_to_stand_in() -> None:
    _, _, episode = new_world(seed=4, faults=TARGET_MISSING, target="invoice.id")
    state, invoice = state_of(episode), episode.bindings["invoice"]
    assert not [m for m in state.messages if m.from_email == invoice["vendor"]["email"]]
    assert set(invoice["older_ids"]) <= set(episode.bindings[INFEASIBLE_BINDING]["removed_ids"])
    forged = state.message(invoice["lookalike"]["id"])
    assert forged is not None and forged.from_name == invoice["vendor"]["name"]


def test_target_missing_is_the_same_on_the_same_seed() -> None:
    _, _, one = new_world(seed=8, faults=TARGET_MISSING, facts=True, target="booking.source_id")
    _, _, again = new_world(seed=8, faults=TARGET_MISSING, facts=True, target="booking.source_id")
    assert one.initial_state == again.initial_state
    assert one.bindings[INFEASIBLE_BINDING] == again.bindings[INFEASIBLE_BINDING]


def test_target_missing_is_offered_only_for_targets_it_makes_infeasible() -> None:
    profile = SITE.profile
    assert profile.refusal("target_missing", {"target": "invoice.id", "facts": True}) is None
    assert profile.refusal("target_missing", {"target": "facts.invite.id", "facts": True}) is None
    assert profile.refusal("target_missing", {}) is not None, "a task without a target is not about the default one"
    assert profile.refusal("target_missing", {"target": "person.latest_id"}) is not None


# The later tasks' targets (`extras`): the message the task names goes with its thread; what stays is the
# look-alike a careless agent would settle for (None: nothing is like it).
EXTRAS_NEAR_MISS = {"extras.restore.id": "extras.restore.other_id", "extras.spam.id": "extras.spam.old_id",
                    "extras.snooze.id": "extras.snooze.other_id", "extras.expenses.request_id": None,
                    "extras.trip.request_id": None, "extras.room.update_id": None, "extras.new_contact.id": None,
                    "extras.statement.id": None}


@pytest.mark.parametrize("target", sorted(EXTRAS_NEAR_MISS))
def test_target_missing_removes_a_later_tasks_target_and_its_thread(target: str) -> None:
    plain, state, detail = _without_the_target(5, target, extras=True)
    near_path = EXTRAS_NEAR_MISS[target]
    if near_path is not None:
        near = binding(plain.bindings, near_path)
        assert detail["near_miss"] == near and state.message(near) is not None
    subject = plain.bindings["target"]["subject"]
    assert not [m for m in state.messages if subject in m.subject], "nothing listed under the task's words stays"


def test_target_missing_takes_last_months_statement_too_so_it_cannot_stand_in_as_the_latest() -> None:
    _, _, episode = new_world(seed=5, faults=TARGET_MISSING, extras=True, target="extras.statement.id")
    statement = episode.bindings["extras"]["statement"]
    assert not [m for m in state_of(episode).messages if m.from_email == statement["sender_email"]]
    assert {statement["id"], statement["older_id"]} <= set(episode.bindings[INFEASIBLE_BINDING]["removed_ids"])


def test_target_missing_is_not_offered_where_the_task_is_infeasible_anyway() -> None:
    for target in ("extras.recall.id", "extras.no_attachment.id"):
        assert SITE.profile.refusal("target_missing", {"target": target, "extras": True}) is not None
    for target in EXTRAS_NEAR_MISS:
        assert SITE.profile.refusal("target_missing", {"target": target, "extras": True}) is None
        # only the statement's total and the room state a figure the task reads
        refused = SITE.profile.refusal("contradictory_update", {"target": target, "extras": True})
        assert (refused is None) == (target in ("extras.statement.id", "extras.room.update_id")), target

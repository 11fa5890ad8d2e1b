"""Server-rendered pages: the overview, the history's search, filters and paging, statements, and
the controls the tasks' plans name."""

from typing import Any

from sites.bank.models import PAGE_SIZE
from tests.sites.worlds import world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=2)


def tx_links(doc: Doc) -> list[str]:
    return [e.attrs["href"].rsplit("/", 1)[1] for e in doc.all("a")
            if e.attrs.get("href", "").startswith("/transactions/")]


async def test_overview_shows_every_account_and_its_balance(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        doc = Doc((await client.get("/")).text)
    for account in state.accounts:
        assert doc.links(account.name)
        assert f"${account.balance_cents // 100:,}.{account.balance_cents % 100:02d}" in doc.all("main")[0].text
    assert doc.links("Read security messages")


async def test_history_searches_filters_and_pages(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, spending = episode.state, episode.bindings["spending"]
    history = state.history("a1")
    async with client_for(app, episode.id) as client:
        first = Doc((await client.get("/accounts/a1")).text)
        assert tx_links(first) == [t.id for t in history[:PAGE_SIZE]]
        assert first.links("Next page")
        second = Doc((await client.get("/accounts/a1?page=2")).text)
        assert tx_links(second) == [t.id for t in history[PAGE_SIZE:2 * PAGE_SIZE]]
        found = Doc((await client.get("/accounts/a1", params={"q": spending["merchant"].lower(),
                                                              "month": spending["month"]})).text)
        assert sorted(tx_links(found)) == sorted(spending["ids"])
        money_in = Doc((await client.get("/accounts/a1?kind=in")).text)
        assert all(state.transaction(i).amount_cents > 0 for i in tx_links(money_in))  # type: ignore[union-attr]
        for bad in ("?kind=sideways", "?month=2025-13", "?page=0", "?page=x", "?q=" + "x" * 101):
            assert (await client.get("/accounts/a1" + bad)).status_code == 400, bad
        assert (await client.get("/accounts/a1?page=999")).status_code == 404
        assert (await client.get("/accounts/zz")).status_code == 404
    kinds = [e.kind.value for e in episode.events]
    assert kinds == ["navigate", "navigate", "search", "filter"]
    assert episode.events[2].detail["results"] == tx_links(found)


async def test_statements_balance_out(world: tuple[Any, Any]) -> None:
    app, episode = world
    state, month = episode.state, episode.bindings["spending"]["month"]
    async with client_for(app, episode.id) as client:
        listing = Doc((await client.get("/accounts/a1/statements")).text)
        assert listing.links(episode.bindings["spending"]["month_name"])
        page = await client.get(f"/accounts/a1/statements/{month}")
        assert page.status_code == 200
        assert (await client.get("/accounts/a1/statements/2099-01")).status_code == 404
    lines = [t for t in state.transactions if t.account_id == "a1" and t.posted_at.startswith(month)]
    later = sum(t.amount_cents for t in state.transactions if t.account_id == "a1" and t.posted_at[:7] > month)
    closing = state.account("a1").balance_cents - later  # type: ignore[union-attr]
    opening = closing - sum(t.amount_cents for t in lines)
    text = Doc(page.text).all("main")[0].text
    for cents in (opening, closing):
        assert f"${cents // 100:,}.{cents % 100:02d}" in text


async def test_pages_name_the_controls_the_plans_use(world: tuple[Any, Any]) -> None:
    app, episode = world
    b = episode.bindings
    async with client_for(app, episode.id) as client:
        transfer = Doc((await client.get("/transfer")).text)
        for label in ("From", "To", "Amount", "Date", "How often", "Memo"):
            assert transfer.labelled(label)
        options = [o.text for o in transfer.all("option")]
        assert b["lookalike"]["option"] in options and b["checking"]["option"] in options
        assert transfer.buttons("Make transfer")
        payees = Doc((await client.get("/payees?add=1")).text)
        for label in ("Payee name", "Bank name", "Account number", "Routing number"):
            assert payees.labelled(label).tag == "input"
        limits = Doc((await client.get("/limits")).text)
        assert limits.labelled("Daily transfer limit") and limits.buttons("Save limits")
        message = Doc((await client.get(f"/messages/{b['phishing']['message_id']}")).text)
        assert message.named("h1", b["phishing"]["subject"]) and message.buttons("Report as phishing")
        quote = Doc((await client.get(f"/invest/quote/{b['buy']['symbol']}")).text)
        assert quote.named("h1", f"{b['buy']['name']} ({b['buy']['symbol']})") and quote.buttons("Review order")
        orders = Doc((await client.get("/invest/orders")).text)
        assert len(orders.buttons("Cancel order")) == 2
        charge = Doc((await client.get(f"/transactions/{b['dispute']['transaction_id']}")).text)
        assert b["dispute"]["location"] in charge.all("main")[0].text and charge.buttons("Dispute this charge")
        payments = Doc((await client.get("/payments")).text)
        assert len(payments.buttons("Cancel payment")) == 4

"""Server-rendered pages of Meridian Bank. Pages only read; every write goes through the JSON API
(`api.py`) from the page's script, which then moves on with a `?notice=` flash."""

import re
from datetime import datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from scenarios.clock import iso, parse_iso
from sites.bank.extras import lot_option
from sites.bank.insights import next_payment, spending_by_category
from sites.bank.later import later_features
from sites.bank.models import (
    DISPUTE_REASONS,
    FREQUENCIES,
    PAGE_SIZE,
    Account,
    BankEpisode,
    BankState,
    Order,
    Scheduled,
    Transaction,
    quote_cents,
    quote_minute,
)
from sites.kit.dates import MONTH_ABBREVIATIONS, month_day_year, month_year
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point, results_point
from sites.kit.lookup import find, get_or_404
from sites.kit.notices import notice_of
from sites.kit.paging import Listing, page_number
from sites.kit.templating import Pages, format_cents
from sites.kit.urls import same_page_url

MAX_QUERY = 100
_MONTH = re.compile(r"^\d{4}-(0[1-9]|1[0-2])$")
NO_ACCOUNT = "There is no such account in your profile."
KINDS = {"all": "All transactions", "in": "Money in", "out": "Money out"}

NOTICES = {
    "sent": "Transfer complete: the money has moved",
    "scheduled": "Payment scheduled",
    "cancelled": "Payment cancelled",
    "payee_added": "Payee added: you can now send them money",
    "limits_saved": "Limits updated",
    "disputed": "Dispute opened: we'll be in touch within 10 business days",
    "reported": "Reported as phishing. Thank you: we'll investigate it",
    "unreported": "Report withdrawn",
    "verified": "Thank you. Your details are being verified",
    "placed": "Order placed",
    "repriced": "The price changed since you reviewed your order: see the new quote below before you place it",
    "order_cancelled": "Order cancelled",
    "card_frozen": "Card frozen: payments with it will be declined",
    "card_unfrozen": "Card unfrozen: you can use it again",
    "card_limit_saved": "Spending limit updated",
    "travel_added": "Travel notice added",
    "travel_removed": "Travel notice removed",
    "alerts_saved": "Alerts saved",
    # later features (sites/bank/later_routes.py)
    "budget_added": "Budget added",
    "budget_saved": "Budget saved",
    "budget_removed": "Budget removed",
    "user_added": "Authorised user added: their card is on its way",
    "user_removed": "Authorised user removed",
    "reinvest_saved": "Reinvestment settings saved",
}


# ---- formatting --------------------------------------------------------------------------------


def short_date(stamp: str) -> str:
    moment = parse_iso(stamp) if "T" in stamp else datetime.fromisoformat(stamp)
    return f"{MONTH_ABBREVIATIONS[moment.month - 1]} {moment.day}, {moment.year}"


def long_date(stamp: str) -> str:
    moment = parse_iso(stamp)
    return f"{month_day_year(moment)} at {moment.hour:02d}:{moment.minute:02d}"


def signed(cents: int) -> str:
    return ("+" if cents > 0 else "") + format_cents(cents)


def masked(number: str) -> str:
    return f"••••{number[-4:]}"


def bank_filters() -> dict[str, Any]:
    return {"money": format_cents, "signed": signed, "short_date": short_date, "long_date": long_date, "masked": masked}


def page_context(state: BankState | None) -> dict[str, Any]:
    if state is None:
        return {"customer": None, "unread": 0, "active": None, "later": set()}
    return {"customer": state.user, "unread": sum(1 for m in state.messages if not m.read), "active": None,
            "later": later_features(state)}


def running_balances(state: BankState, account: Account) -> dict[str, int]:
    """Balance after each transaction, computed back from the current balance."""
    balance, after = account.balance_cents, {}
    for line in state.history(account.id):
        after[line.id] = balance
        balance -= line.amount_cents
    return after


def months_of(state: BankState, account: Account) -> list[str]:
    return sorted({t.posted_at[:7] for t in state.transactions if t.account_id == account.id}, reverse=True)


def counterparty(state: BankState, item: Scheduled) -> str:
    if item.payee_id:
        payee = state.payee(item.payee_id)
        return payee.name if payee else "A removed payee"
    account = state.account(item.to_account_id or "")
    return account.name if account else "An account"


def quote_view(state: BankState, episode: SiteEpisode, symbol: str) -> dict[str, Any]:
    security = state.security(symbol)
    assert security is not None
    minute = quote_minute(episode.clock)
    now, before = quote_cents(security, minute), security.base_cents
    change = now - before
    return {"s": security, "price": now, "change": change, "change_pct": f"{change * 100 / before:+.2f}%",
            "up": change >= 0}


def statement_figures(episode: SiteEpisode, account: Account, month: str) -> dict[str, Any]:
    """A closed month's statement of the account (404 for a month it has none for): its lines, oldest
    first, and its balances, worked back from the current balance."""
    state = episode.state
    assert isinstance(state, BankState)
    current = episode.clock.now().strftime("%Y-%m")
    months = [m for m in months_of(state, account) if m < current]
    if not _MONTH.fullmatch(month) or month not in months:
        raise HTTPException(404, "There is no statement for that month.")
    lines = [t for t in state.history(account.id) if t.posted_at.startswith(month)]
    later = sum(t.amount_cents for t in state.transactions if t.account_id == account.id and t.posted_at[:7] > month)
    closing = account.balance_cents - later
    opening = closing - sum(t.amount_cents for t in lines)
    return {"month": month, "label": month_year(month), "lines": list(reversed(lines)), "opening": opening,
            "closing": closing, "money_in": sum(t.amount_cents for t in lines if t.amount_cents > 0),
            "money_out": -sum(t.amount_cents for t in lines if t.amount_cents < 0)}


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/", response_class=HTMLResponse)
    @hook_point("overview", "page")
    async def overview(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        recent = sorted((t for t in state.transactions if t.account_id != "a3"), key=lambda t: (t.posted_at, t.id),
                        reverse=True)[:6]
        invested = sum(quote_cents(s, quote_minute(episode.clock)) * h.shares
                       for h in state.holdings for s in state.securities if s.symbol == h.symbol)
        upcoming = sorted((s for s in state.scheduled if s.status == "active"), key=lambda s: s.next_date)[:4]
        episode.emit.navigate("view_overview", account_ids=[a.id for a in state.accounts])
        return ui.render(episode, "overview.html", title="Accounts overview", accounts=state.accounts,
                         recent=recent, invested=invested, upcoming=upcoming,
                         names={s.id: counterparty(state, s) for s in upcoming},
                         total=sum(a.balance_cents for a in state.accounts) + invested,
                         alerts=[m for m in state.messages if not m.read],
                         notice=notice_of(request, NOTICES), active="accounts")

    @router.get("/accounts/{account_id}", response_class=HTMLResponse)
    @hook_point("account", "page", target=lambda kw: kw["account_id"])
    async def account_page(account_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        account = get_or_404(state.accounts, account_id, detail=NO_ACCOUNT)
        params = request.query_params
        query = params.get("q", "").strip()
        if len(query) > MAX_QUERY:
            raise HTTPException(400, f"Searches are limited to {MAX_QUERY} characters.")
        kind = params.get("kind", "") or "all"
        if kind not in KINDS:
            raise HTTPException(400, "Show all transactions, money in or money out.")
        month = params.get("month", "")
        if month and not _MONTH.fullmatch(month):
            raise HTTPException(400, "Choose a month like 2025-03.")
        lines = state.history(account.id)
        words = query.casefold().split()
        found = [t for t in lines
                 if all(w in f"{t.description} {t.category} {t.merchant}".casefold() for w in words)
                 and (kind == "all" or (kind == "in") == (t.amount_cents > 0))
                 and (not month or t.posted_at.startswith(month))]
        # A search's results are a "search" list (search faults act on it); a plain history is not.
        found = results_point(episode, "search" if query else "account", found, lines)
        page = page_number(params.get("page"))
        listing = Listing(found, page, PAGE_SIZE)
        pages, shown = listing.pages, listing.shown
        path = request.url.path
        html = ui.render(
            episode, "account.html", title=account.name, account=account, rows=shown,
            balances=running_balances(state, account), total=len(found), page=page, pages=pages,
            prev_url=same_page_url(path, request, page=str(page - 1)) if page > 1 else None,
            next_url=same_page_url(path, request, page=str(page + 1)) if page < pages else None,
            query=query, kind=kind, kinds=KINDS, month=month,
            months=[(m, month_year(m)) for m in months_of(state, account)],
            filtered=bool(query or month or kind != "all"), notice=notice_of(request, NOTICES), active="accounts",
        )
        ids = [t.id for t in shown]
        if query:
            episode.emit.search("search_transactions", query=query, results=ids, account=account.id, month=month,
                                kind=kind, total=len(found), page=page)
        elif month or kind != "all":
            episode.emit.filter("filter_transactions", account.id, month=month, kind=kind, transaction_ids=ids,
                                total=len(found), page=page)
        else:
            episode.emit.navigate("view_account", account.id, transaction_ids=ids, page=page)
        return html

    @router.get("/transactions/{transaction_id}", response_class=HTMLResponse)
    @hook_point("transaction", "page", target=lambda kw: kw["transaction_id"])
    async def transaction_page(transaction_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        line = get_or_404(state.transactions, transaction_id, detail="There is no such transaction.")
        account = get_or_404(state.accounts, line.account_id, detail=NO_ACCOUNT)
        dispute = next((d for d in state.disputes if d.transaction_id == line.id), None)
        evidence = find(state.uploads, dispute.evidence_id) if dispute and dispute.evidence_id else None
        episode.emit.inspect("view_transaction", line.id, revealed=["location", "card", "reference"])
        return ui.render(episode, "transaction.html", title=line.description, t=line, account=account,
                         balance=running_balances(state, account).get(line.id, 0), dispute=dispute, evidence=evidence,
                         reasons=DISPUTE_REASONS, can_dispute=line.kind == "card" and line.amount_cents < 0,
                         notice=notice_of(request, NOTICES), active="accounts")

    @router.get("/accounts/{account_id}/statements", response_class=HTMLResponse)
    @hook_point("statements", "page", target=lambda kw: kw["account_id"])
    async def statements(account_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        account = get_or_404(state.accounts, account_id, detail=NO_ACCOUNT)
        current = episode.clock.now().strftime("%Y-%m")
        months = [m for m in months_of(state, account) if m < current]
        episode.emit.navigate("view_statements", account.id)
        return ui.render(episode, "statements.html", title=f"Statements · {account.name}", account=account,
                         months=[(m, month_year(m)) for m in months], statement=None, active="statements")

    @router.get("/accounts/{account_id}/statements/{month}", response_class=HTMLResponse)
    @hook_point("statement", "page", target=lambda kw: kw["account_id"])
    async def statement(account_id: str, month: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        account = get_or_404(state.accounts, account_id, detail=NO_ACCOUNT)
        figures = statement_figures(episode, account, month)
        current = episode.clock.now().strftime("%Y-%m")
        months = [m for m in months_of(state, account) if m < current]
        episode.emit.inspect("view_statement", account.id, revealed=["statement"], month=month,
                             transaction_ids=[t.id for t in figures["lines"]])
        return ui.render(episode, "statements.html", title=f"{month_year(month)} statement · {account.name}",
                         account=account, months=[(m, month_year(m)) for m in months], active="statements",
                         statement=figures)

    @router.get("/accounts/{account_id}/spending", response_class=HTMLResponse)
    @hook_point("spending", "page", target=lambda kw: kw["account_id"])
    async def spending(account_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        account = get_or_404(state.accounts, account_id, detail=NO_ACCOUNT)
        months = months_of(state, account)
        month = request.query_params.get("month", "") or (months or [episode.clock.now().strftime("%Y-%m")])[0]
        if not _MONTH.fullmatch(month):
            raise HTTPException(400, "Choose a month like 2025-03.")
        if month not in months:
            raise HTTPException(404, "This account has no history for that month.")
        rows = spending_by_category(state, account.id, month)
        total = sum(r.total_cents for r in rows)
        episode.emit.inspect("view_spending", account.id, revealed=["spending"], month=month,
                             categories=[r.category for r in rows])
        return ui.render(episode, "spending.html", title=f"Spending · {account.name}", account=account, month=month,
                         label=month_year(month), months=[(m, month_year(m)) for m in months], rows=rows,
                         total=total, active="accounts")

    @router.get("/transfer", response_class=HTMLResponse)
    @hook_point("transfer_page", "page")
    async def transfer_page(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_transfer", payee_ids=[p.id for p in state.payees if p.status == "active"])
        return ui.render(episode, "transfer.html", title="Move money", accounts=state.accounts,
                         payees=[p for p in state.payees if p.status == "active"], frequencies=FREQUENCIES,
                         preselect=request.query_params.get("to", ""), today=episode.clock.now().date().isoformat(),
                         limits=state.limits, notice=notice_of(request, NOTICES), active="transfer")

    @router.get("/payments", response_class=HTMLResponse)
    @hook_point("payments", "page")
    async def payments(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        items = sorted(state.scheduled, key=lambda s: (s.status != "active", s.next_date, s.id))
        episode.emit.navigate("view_payments", scheduled_ids=[s.id for s in items])
        return ui.render(episode, "payments.html", title="Scheduled payments", items=items,
                         names={s.id: counterparty(state, s) for s in items},
                         froms={a.id: a.name for a in state.accounts}, frequencies=FREQUENCIES,
                         notice=notice_of(request, NOTICES), active="payments")

    @router.get("/payees", response_class=HTMLResponse)
    @hook_point("payees", "page")
    async def payees(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        page = page_number(request.query_params.get("page"))
        listing = Listing(state.payees, page, PAGE_SIZE)
        pages, shown = listing.pages, listing.shown
        episode.emit.navigate("view_payees", payee_ids=[p.id for p in shown], page=page)
        path = request.url.path
        return ui.render(episode, "payees.html", title="Payees", payees=shown, page=page, pages=pages,
                         prev_url=same_page_url(path, request, page=str(page - 1)) if page > 1 else None,
                         next_url=same_page_url(path, request, page=str(page + 1)) if page < pages else None,
                         adding=request.query_params.get("add") == "1",
                         notice=notice_of(request, NOTICES), active="payees")

    @router.get("/payees/{payee_id}", response_class=HTMLResponse)
    @hook_point("payee", "page", target=lambda kw: kw["payee_id"])
    async def payee_page(payee_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        payee = get_or_404(state.payees, payee_id, detail="There is no such payee.")
        planned = sorted((s for s in state.scheduled if s.payee_id == payee.id and s.status == "active"),
                         key=lambda s: (s.next_date, s.id))
        episode.emit.inspect("view_payee", payee.id, revealed=["routing_number", "bank", "scheduled"],
                             scheduled_ids=[s.id for s in planned])
        return ui.render(episode, "payee.html", title=payee.name, payee=payee, planned=planned,
                         upcoming=next_payment(state, payee.id), froms={a.id: a.name for a in state.accounts},
                         frequencies=FREQUENCIES, active="payees")

    @router.get("/payees/{payee_id}/confirm", response_class=HTMLResponse)
    @hook_point("confirm_page", "page", target=lambda kw: kw["payee_id"])
    async def confirm_page(payee_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        payee = get_or_404(state.payees, payee_id, detail="There is no such payee.")
        episode.emit.navigate("view_confirm_payee", payee.id)
        return ui.render(episode, "confirm.html", title="Confirm your new payee", payee=payee, active="payees")

    @router.get("/messages", response_class=HTMLResponse)
    @hook_point("messages", "page")
    async def messages(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        items = sorted(state.messages, key=lambda m: (m.sent_at, m.id), reverse=True)
        episode.emit.navigate("view_messages", message_ids=[m.id for m in items])
        return ui.render(episode, "messages.html", title="Security messages", items=items,
                         notice=notice_of(request, NOTICES), active="messages")

    @router.get("/messages/{message_id}", response_class=HTMLResponse)
    @hook_point("message", "page", target=lambda kw: kw["message_id"])
    async def message(message_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.messages, message_id, detail="There is no such message.")
        found.read = True
        episode.emit.inspect("view_message", found.id, revealed=["sender_address", "body"])
        return ui.render(episode, "message.html", title=found.subject, m=found, notice=notice_of(request, NOTICES),
                         paragraphs=[p for p in found.body.split("\n\n") if p.strip()], active="messages")

    @router.get("/limits", response_class=HTMLResponse)
    @hook_point("limits_page", "page")
    async def limits(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_limits")
        return ui.render(episode, "limits.html", title="Limits", limits=state.limits,
                         notice=notice_of(request, NOTICES), active="limits")

    # -- brokerage ----------------------------------------------------------------------------------

    @router.get("/invest", response_class=HTMLResponse)
    @hook_point("invest", "page")
    async def invest(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        quotes = {s.symbol: quote_view(state, episode, s.symbol) for s in state.securities}
        rows = []
        for holding in state.holdings:
            price = quotes[holding.symbol]["price"]
            rows.append({"h": holding, "q": quotes[holding.symbol], "value": price * holding.shares,
                         "gain": price * holding.shares - holding.cost_cents})
        cash = state.cash_account()
        episode.emit.navigate("view_brokerage", symbols=[s.symbol for s in state.securities])
        return ui.render(episode, "invest.html", title="Investments", rows=rows, quotes=list(quotes.values()),
                         cash=cash, invested=sum(r["value"] for r in rows),
                         open_orders=sum(1 for o in state.orders if o.status == "open"),
                         as_of=long_date(iso(episode.clock.now())), notice=notice_of(request, NOTICES), active="invest")

    @router.get("/invest/quote/{symbol}", response_class=HTMLResponse)
    @hook_point("quote", "page", target=lambda kw: kw["symbol"])
    async def quote(symbol: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        security = get_or_404(state.securities, symbol.upper(), key="symbol",
                              detail=f"There is no security with the symbol {symbol[:10]}.")
        holding = state.holding(security.symbol)
        side = request.query_params.get("side", "buy")
        if side not in ("buy", "sell"):
            raise HTTPException(400, "Choose buy or sell.")
        episode.emit.inspect("view_quote", security.symbol, revealed=["price"])
        lots = sorted((lot for lot in state.lots if lot.symbol == security.symbol),
                      key=lambda lot: (lot.bought_on, lot.id))
        return ui.render(episode, "quote.html", title=f"{security.symbol} · {security.name}",
                         q=quote_view(state, episode, security.symbol), holding=holding, side=side,
                         lots=lots, lot_option=lot_option,
                         cash=state.cash_account(), as_of=long_date(iso(episode.clock.now())),
                         active="invest")

    @router.get("/invest/review/{review_id}", response_class=HTMLResponse)
    @hook_point("review", "page", target=lambda kw: kw["review_id"])
    async def review(review_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.order_reviews, review_id, detail="There is no such order to review.")
        security = state.security(found.symbol)
        episode.emit.navigate("view_order_review", found.id)
        lot = find(state.lots, found.lot_id) if found.lot_id else None
        return ui.render(episode, "review.html", title="Review your order", r=found, security=security,
                         lot=lot, lot_option=lot_option,
                         cash=state.cash_account(), notice=notice_of(request, NOTICES), active="invest")

    @router.get("/invest/orders", response_class=HTMLResponse)
    @hook_point("orders", "page")
    async def orders(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        items: list[Order] = sorted(state.orders, key=lambda o: (o.status != "open", o.placed_at, o.id), reverse=False)
        items = [o for o in items if o.status == "open"] + sorted(
            (o for o in items if o.status != "open"), key=lambda o: (o.placed_at, o.id), reverse=True)
        names = {s.symbol: s.name for s in state.securities}
        episode.emit.navigate("view_orders", order_ids=[o.id for o in items])
        return ui.render(episode, "orders.html", title="Orders", items=items, names=names,
                         notice=notice_of(request, NOTICES), active="invest")

    return router


__all__ = ["Transaction", "bank_filters", "page_context", "page_router"]

"""The JSON API Meridian Bank's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing: a transfer moves money out of one side and into the other, or not at all), steps the
episode clock once and records one `commit` event whose `touched` lists the ids it changed.
Errors are 4xx with a `detail` message: 404 for ids that do not exist, 409 for a request that the
current state does not allow (not enough money, a payee still to confirm, an order already
filled), 422 for a malformed body or an amount the rules refuse (limits, past dates).

The one change a refused request may leave is the market's: placing an order for a security
whose quote was about to move moves it, and a market order whose quote moved too far since its
review is refused with the review quoted again at the new price (to be checked and placed again).
"""

from datetime import UTC, date, timedelta
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from scenarios.clock import parse_iso
from sites.bank import content as C
from sites.bank.generator import confirmation_code
from sites.bank.models import (
    PRICE_BAND_BPS,
    Account,
    BankEpisode,
    BankState,
    ConfirmBody,
    Dispute,
    DisputeBody,
    Holding,
    LimitsBody,
    Lot,
    Message,
    MessageAction,
    Order,
    OrderReview,
    Payee,
    PayeeBody,
    PlaceBody,
    ReportBody,
    ReviewBody,
    Scheduled,
    Transaction,
    Transfer,
    TransferBody,
    parse_amount,
    quote_cents,
    quote_minute,
)
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import find, get_or_404
from sites.kit.templating import format_cents

MAX_DAYS_AHEAD = 365
# The same transfer again this soon (episode-clock time) is taken for a double submission and refused.
DUPLICATE_WINDOW = timedelta(minutes=3)


def _today(episode: SiteEpisode) -> date:
    return episode.clock.now().date()


def _sent_today(state: BankState, today: date) -> int:
    """What went to payees today (the daily limit counts payments to other people only)."""
    return sum(t.amount_cents for t in state.transfers if t.payee_id and t.created_at[:10] == today.isoformat())


def _ledger_line(state: BankState, account: Account, at: str, amount: int, description: str, kind: Any,
                 category: str, transfer_id: str | None = None, merchant: str = "") -> Transaction:
    line = Transaction(id=state.take_id("transaction", "t", 5), account_id=account.id, posted_at=at,
                       description=description, amount_cents=amount, category=category, kind=kind,
                       merchant=merchant, reference=f"{kind[:2].upper()}{state.next_ids['transaction']:08d}",
                       transfer_id=transfer_id)
    state.transactions.append(line)
    return line


def current_quote(episode: SiteEpisode, symbol: str) -> int:
    state = episode.state
    security = state.security(symbol)
    assert security is not None
    return quote_cents(security, quote_minute(episode.clock))


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    # -- transfers and payments ---------------------------------------------------------------------

    @router.post("/transfers", status_code=201)
    @hook_point("transfer", "write")
    async def transfer(body: TransferBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        source = get_or_404(state.accounts, body.from_account_id, "account")
        amount = parse_amount(body.amount)
        destination: Account | None = None
        payee: Payee | None = None
        if body.to_id.startswith("p"):
            payee = get_or_404(state.payees, body.to_id, "payee")
            if payee.status != "active":
                raise HTTPException(409, f"{payee.name} is not confirmed yet: enter the code from your security "
                                         "messages first.")
        else:
            destination = get_or_404(state.accounts, body.to_id, "account")
            if destination.id == source.id:
                raise HTTPException(422, "Choose two different accounts.")
        today = _today(episode)
        when = date.fromisoformat(body.date) if body.date else today
        if when < today:
            raise HTTPException(422, "The date is in the past: choose today or a later day.")
        if when > today + timedelta(days=MAX_DAYS_AHEAD):
            raise HTTPException(422, "Payments can be scheduled up to a year ahead.")
        if payee is not None and amount > state.limits.single_transfer_cents:
            raise HTTPException(422, f"That is over your single payment limit of "
                                     f"{format_cents(state.limits.single_transfer_cents)}.")
        end = date.fromisoformat(body.end_date) if body.end_date and body.frequency != "once" else None
        if end is not None and end < when:
            raise HTTPException(422, "The last payment can't be before the first one.")
        name = payee.name if payee else destination.name if destination else ""
        if when > today or body.frequency != "once":
            at = episode.clock.stamp()
            plan = Scheduled(id=state.take_id("scheduled", "s", 3), from_account_id=source.id,
                             to_account_id=destination.id if destination else None,
                             payee_id=payee.id if payee else None, amount_cents=amount, frequency=body.frequency,
                             next_date=when.isoformat(), end_date=end.isoformat() if end else None, memo=body.memo,
                             created_at=at)
            state.scheduled.append(plan)
            episode.emit.commit("schedule_payment", plan.id, to=name, amount_cents=amount, touched=[plan.id])
            return {"scheduled": plan.model_dump(), "url": "/payments?notice=scheduled"}
        if payee is not None and _sent_today(state, today) + amount > state.limits.daily_transfer_cents:
            raise HTTPException(422, f"That would take you over your daily limit of "
                                     f"{format_cents(state.limits.daily_transfer_cents)}.")
        last = state.transfers[-1] if state.transfers else None
        if (last is not None and (last.from_account_id, last.to_account_id, last.payee_id, last.amount_cents,
                                  last.memo) == (source.id, destination.id if destination else None,
                                                 payee.id if payee else None, amount, body.memo)
                and episode.clock.now() - parse_iso(last.created_at).replace(tzinfo=UTC) <= DUPLICATE_WINDOW):
            raise HTTPException(409, "This looks like a duplicate of the transfer you just made, so it was not sent. "
                                     "Check your account history.")
        if amount > source.balance_cents:
            raise HTTPException(409, f"Not enough money in {source.name}: the balance is "
                                     f"{format_cents(source.balance_cents)}.")
        at = episode.clock.stamp()
        moved = Transfer(id=state.take_id("transfer", "x"), from_account_id=source.id,
                         to_account_id=destination.id if destination else None,
                         payee_id=payee.id if payee else None, amount_cents=amount, memo=body.memo, created_at=at)
        state.transfers.append(moved)
        source.balance_cents -= amount
        kind = "payment" if payee else "transfer"
        lines = [_ledger_line(state, source, at, -amount, f"{kind.upper()} TO {name.upper()}", kind,
                              "Bills" if payee else "Transfers", moved.id, payee.name if payee else "")]
        if destination is not None:
            destination.balance_cents += amount
            lines.append(_ledger_line(state, destination, at, amount, f"TRANSFER FROM {source.name.upper()}",
                                      "transfer", "Transfers", moved.id))
        touched = [moved.id, source.id, *([destination.id] if destination else []), *(t.id for t in lines)]
        episode.emit.commit("transfer", moved.id, to=name, amount_cents=amount, touched=touched)
        return {"transfer": moved.model_dump(), "url": f"/accounts/{source.id}?notice=sent"}

    @router.post("/scheduled/{scheduled_id}/cancel")
    @hook_point("cancel_scheduled", "write", target=lambda kw: kw["scheduled_id"])
    async def cancel_scheduled(scheduled_id: str, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        plan = get_or_404(state.scheduled, scheduled_id, "scheduled payment")
        if plan.status == "cancelled":
            raise HTTPException(409, "This payment is already cancelled.")
        episode.clock.stamp()
        plan.status = "cancelled"
        episode.emit.commit("cancel_scheduled", plan.id, touched=[plan.id])
        return {"scheduled": plan.model_dump()}

    # -- payees -------------------------------------------------------------------------------------

    @router.post("/payees", status_code=201)
    @hook_point("add_payee", "write")
    async def add_payee(body: PayeeBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        if any(p.account_number == body.account_number and p.routing_number == body.routing_number
               for p in state.payees):
            raise HTTPException(409, "You already have a payee with this account number.")
        at = episode.clock.stamp()
        code = confirmation_code(state.code_seed, body.name, body.account_number)
        new = Payee(id=state.take_id("payee", "p", 2), name=body.name, bank=body.bank,
                    account_number=body.account_number, routing_number=body.routing_number, nickname=body.nickname,
                    status="pending", added_at=at, code=code)
        state.payees.append(new)
        state.payees.sort(key=lambda p: (p.name.casefold(), p.id))
        message = Message(
            id=state.take_id("message", "m", 3), sender=C.SECURITY_SENDER, sender_address=C.SECURITY_ADDRESS,
            subject=f"Your confirmation code for {body.name}",
            body=(f"You asked to add {body.name} (account ending {new.last4}) as a payee. Your confirmation code is "
                  f"{code}. Enter it on the payee confirmation page to finish. If you didn't ask for this, don't "
                  "share the code and call us."),
            sent_at=at, kind="code")
        state.messages.append(message)
        episode.emit.commit("add_payee", new.id, touched=[new.id, message.id])
        return {"payee": {k: v for k, v in new.model_dump().items() if k != "code"},
                "url": f"/payees/{new.id}/confirm"}

    @router.post("/payees/{payee_id}/confirm")
    @hook_point("confirm_payee", "write", target=lambda kw: kw["payee_id"])
    async def confirm_payee(payee_id: str, body: ConfirmBody, request: Request,
                            episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(state.payees, payee_id, "payee")
        if found.status == "active":
            raise HTTPException(409, "This payee is already confirmed.")
        if body.code != found.code:
            raise HTTPException(422, "That code is not right. Open your security messages for the code we sent.")
        episode.clock.stamp()
        found.status = "active"
        episode.emit.commit("confirm_payee", found.id, touched=[found.id])
        shown = {k: v for k, v in found.model_dump().items() if k != "code"}
        return {"payee": shown, "url": "/payees?notice=payee_added"}

    # -- limits, disputes, messages -------------------------------------------------------------------

    @router.put("/limits")
    @hook_point("update_limits", "write")
    async def update_limits(body: LimitsBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        daily, single = parse_amount(body.daily_transfer), parse_amount(body.single_transfer)
        atm = parse_amount(body.atm_daily)
        if single > daily:
            raise HTTPException(422, "The single payment limit can't be higher than the daily limit.")
        episode.clock.stamp()
        limits = state.limits
        limits.daily_transfer_cents, limits.single_transfer_cents, limits.atm_daily_cents = daily, single, atm
        episode.emit.commit("update_limits", "limits", touched=["limits"])
        return {"limits": limits.model_dump()}

    @router.post("/transactions/{transaction_id}/dispute", status_code=201)
    @hook_point("dispute", "write", target=lambda kw: kw["transaction_id"])
    async def dispute(transaction_id: str, body: DisputeBody, request: Request,
                      episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(state.transactions, transaction_id, "transaction")
        if found.kind != "card" or found.amount_cents >= 0:
            raise HTTPException(409, "Only card payments can be disputed.")
        if any(d.transaction_id == found.id for d in state.disputes):
            raise HTTPException(409, "This charge is already disputed.")
        if body.evidence_id is not None:
            get_or_404(state.uploads, body.evidence_id, "upload")
            if any(d.evidence_id == body.evidence_id for d in state.disputes):
                raise HTTPException(409, "That file already went with another dispute: attach it again.")
        at = episode.clock.stamp()
        new = Dispute(id=state.take_id("dispute", "d", 3), transaction_id=found.id, reason=body.reason,
                      note=body.note, evidence_id=body.evidence_id, opened_at=at)
        state.disputes.append(new)
        episode.emit.commit("dispute", found.id, reason=body.reason,
                            touched=[new.id, *([body.evidence_id] if body.evidence_id else [])])
        return {"dispute": new.model_dump()}

    @router.post("/messages/{message_id}/report")
    @hook_point("report_message", "write", target=lambda kw: kw["message_id"])
    async def report(message_id: str, body: ReportBody, request: Request,
                     episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(state.messages, message_id, "message")
        if found.reported == body.reported:
            raise HTTPException(409, "Already reported." if body.reported else "This message is not reported.")
        episode.clock.stamp()
        found.reported = body.reported
        episode.emit.commit("report_message" if body.reported else "unreport_message", found.id, touched=[found.id])
        return {"message": found.model_dump()}

    @router.post("/messages/{message_id}/action")
    @hook_point("message_action", "write", target=lambda kw: kw["message_id"])
    async def message_action(message_id: str, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(state.messages, message_id, "message")
        if not found.action_label:
            raise HTTPException(409, "This message has no button.")
        at = episode.clock.stamp()
        action = MessageAction(id=state.take_id("action", "ma", 3), message_id=found.id, label=found.action_label,
                               at=at)
        state.message_actions.append(action)
        episode.emit.commit("message_action", found.id, touched=[action.id])
        return {"action": action.model_dump(), "url": f"/messages/{found.id}?notice=verified"}

    # -- brokerage ----------------------------------------------------------------------------------

    @router.post("/orders/review", status_code=201)
    @hook_point("review_order", "write")
    async def review_order(body: ReviewBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        # Symbols are looked up in capitals; the detail quotes the symbol as it was sent.
        security = get_or_404(state.securities, body.symbol.upper(), key="symbol",
                              detail=f"no security {body.symbol!r}")
        limit = parse_amount(body.limit_price, "The limit price") if body.limit_price else None
        if body.order_type == "limit" and limit is None:
            raise HTTPException(422, "A limit order needs a limit price.")
        if body.order_type == "market":
            limit = None
        quote = current_quote(episode, security.symbol)
        estimate = body.shares * (limit or quote)
        if body.side == "buy" and estimate > state.cash_account().balance_cents:
            raise HTTPException(409, f"Not enough cash: this order needs about {format_cents(estimate)} and you "
                                     f"have {format_cents(state.cash_account().balance_cents)}.")
        holding = state.holding(security.symbol)
        if body.side == "sell" and (holding is None or holding.shares < body.shares):
            raise HTTPException(409, f"You hold {holding.shares if holding else 0} shares of {security.symbol}.")
        lot_id = None
        if body.lot_id is not None and body.side == "sell":
            lot = get_or_404(state.lots, body.lot_id, "lot")
            if lot.symbol != security.symbol:
                raise HTTPException(422, f"That lot is not {security.symbol}.")
            if lot.shares < body.shares:
                raise HTTPException(409, f"That lot has {lot.shares} shares.")
            lot_id = lot.id
        at = episode.clock.stamp()
        review = OrderReview(id=state.take_id("review", "r"), symbol=security.symbol, side=body.side,
                             order_type=body.order_type, shares=body.shares, limit_cents=limit, quote_cents=quote,
                             estimate_cents=estimate, created_at=at, lot_id=lot_id)
        state.order_reviews.append(review)
        episode.emit.commit("review_order", review.id, symbol=security.symbol, touched=[review.id])
        return {"review": review.model_dump(), "url": f"/invest/review/{review.id}"}

    @router.post("/orders", status_code=201)
    @hook_point("place_order", "write", target=lambda kw: kw["body"].review_id)
    async def place_order(body: PlaceBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        review = get_or_404(state.order_reviews, body.review_id, "order review")
        if review.used:
            raise HTTPException(409, "This order was already placed.")
        security = state.security(review.symbol)
        assert security is not None
        if security.jump_bps:
            # The market moves while the customer reads the review (the seeded trap).
            security.shift_bps += security.jump_bps
            security.jump_bps = 0
        quote = current_quote(episode, security.symbol)
        moved = abs(quote - review.quote_cents) * 10_000 > PRICE_BAND_BPS * review.quote_cents
        if review.order_type == "market" and moved:
            # Price protection: the review is quoted again at the new price, and nothing is traded.
            requote(review, quote)
            raise HTTPException(409, f"The price of {security.symbol} changed since you reviewed this order: it is "
                                     f"now {format_cents(quote)} a share (you reviewed "
                                     f"{format_cents(review.quote_cents)})."
                                     " Nothing was bought or sold. Review the order again.")
        fills = (review.order_type == "market" or review.limit_cents is None
                 or (review.side == "buy" and quote <= review.limit_cents)
                 or (review.side == "sell" and quote >= review.limit_cents))
        cash = state.cash_account()
        holding = state.holding(security.symbol)
        total = quote * review.shares
        if fills and review.side == "buy" and total > cash.balance_cents:
            raise HTTPException(409, f"Not enough cash: this order costs {format_cents(total)}.")
        if review.side == "sell" and (holding is None or holding.shares < review.shares):
            raise HTTPException(409, f"You hold {holding.shares if holding else 0} shares of {security.symbol}.")
        lot = find(state.lots, review.lot_id) if review.lot_id else None
        if review.lot_id and (lot is None or lot.shares < review.shares):
            raise HTTPException(409, "Those shares were sold already. Review the order again.")
        at = episode.clock.stamp()
        review.used = True
        order = Order(id=state.take_id("order", "o"), symbol=security.symbol, side=review.side,
                      order_type=review.order_type, shares=review.shares, limit_cents=review.limit_cents,
                      status="open", placed_at=at, review_id=review.id, lot_id=review.lot_id)
        state.orders.append(order)
        touched = [order.id, review.id]
        if fills:
            touched += fill(state, order, quote, at)
        episode.emit.commit("place_order", order.id, symbol=order.symbol, side=order.side, touched=touched)
        return {"order": order.model_dump(), "url": "/invest/orders?notice=placed"}

    @router.post("/orders/{order_id}/cancel")
    @hook_point("cancel_order", "write", target=lambda kw: kw["order_id"])
    async def cancel_order(order_id: str, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        order = get_or_404(state.orders, order_id, "order")
        if order.status != "open":
            raise HTTPException(409, f"This order is {order.status}: only open orders can be cancelled.")
        episode.clock.stamp()
        order.status = "cancelled"
        episode.emit.commit("cancel_order", order.id, symbol=order.symbol, touched=[order.id])
        return {"order": order.model_dump()}

    return router


def sell_lots(state: BankState, order: Order) -> list[str]:
    """Take a sale's shares out of its lot, or out of the oldest lots first; a lot sold out goes."""
    picked = [lot for lot in state.lots if lot.id == order.lot_id] if order.lot_id else sorted(
        (lot for lot in state.lots if lot.symbol == order.symbol), key=lambda lot: (lot.bought_on, lot.id))
    left, touched = order.shares, []
    for lot in picked:
        taken = min(left, lot.shares)
        lot.shares -= taken
        left -= taken
        touched.append(lot.id)
        if left == 0:
            break
    state.lots = [lot for lot in state.lots if lot.shares > 0]
    return touched


def requote(review: OrderReview, quote: int) -> None:
    review.quote_cents = quote
    review.estimate_cents = review.shares * (review.limit_cents or quote)


def fill(state: BankState, order: Order, price: int, at: str) -> list[str]:
    """Fill an order at `price`: cash, holdings and the cash account's history change together."""
    cash = state.cash_account()
    total = price * order.shares
    holding = state.holding(order.symbol)
    order.status, order.fill_cents, order.filled_at = "filled", price, at
    touched = [cash.id]
    if order.side == "buy":
        cash.balance_cents -= total
        if holding is None:
            holding = Holding(id=state.take_id("holding", "h", 2), symbol=order.symbol, shares=0, cost_cents=0)
            state.holdings.append(holding)
        holding.shares += order.shares
        holding.cost_cents += total
        lot = Lot(id=state.take_id("lot", "l", 2), symbol=order.symbol, bought_on=at[:10], shares=order.shares,
                  price_cents=price)
        state.lots.append(lot)
        touched += [holding.id, lot.id]
    else:
        assert holding is not None
        cash.balance_cents += total
        touched += [holding.id, *sell_lots(state, order)]
        holding.cost_cents = sum(lot.shares * lot.price_cents for lot in state.lots if lot.symbol == order.symbol)
        holding.shares -= order.shares
        if holding.shares == 0:
            state.holdings = [h for h in state.holdings if h.id != holding.id]
    line = _ledger_line(state, cash, at, -total if order.side == "buy" else total,
                        f"{'BOUGHT' if order.side == 'buy' else 'SOLD'} {order.shares} {order.symbol} @ "
                        f"{format_cents(price)}", "trade", "Investments")
    touched.append(line.id)
    return touched

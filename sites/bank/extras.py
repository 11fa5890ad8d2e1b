"""The parts of a Meridian Bank world added after its first tasks: cards (with a charge the user does not
recognise), a mistaken payment that has settled, a charge billed for more than the receipt, tax documents
(one form issued again, corrected), the lots each holding was bought in, and what the question and
action tasks on them ask.

They draw from their own RNG, seeded by one draw taken after everything else, so the accounts, history
and records the older tasks rely on come out of a seed exactly as they did before these existed.
"""

from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.bank import content as C
from sites.bank.models import BankState, Card, Lot, Payee, TaxDocument, Transaction
from sites.kit.dates import month_day, month_day_year, month_year
from sites.kit.templating import format_cents

DEBIT_MAX_CENTS = 500_000      # $5,000.00 a day: the debit card's ceiling
VIRTUAL_MAX_CENTS = 250_000    # $2,500.00 a day: a virtual card's ceiling


def plain(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def short(day: date) -> str:
    """'Mar 3, 2026', as the bank's tables print a date."""
    return f"{month_day(day)[:3]} {day.day}, {day.year}"


def _line(state: BankState, clock: EpisodeClock, days_ago: float, **fields: Any) -> Transaction:
    """A history line added after the generator numbered the rest (ids go on from there)."""
    line = Transaction(id=state.take_id("transaction", "t", 5), account_id="a1", posted_at=clock.ago(days=days_ago),
                       **fields)
    state.transactions.append(line)
    return line


def _day(clock: EpisodeClock, days_ago: float) -> date:
    """The date a line posted `days_ago` before the epoch falls on."""
    return (clock.epoch - timedelta(days=days_ago)).date()


def _digits(rng: Random, count: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(count))


def add_extras(state: BankState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock, daycare: Payee) -> None:
    today = clock.epoch.date()

    # -- cards: the statements' "Debit card" and "Virtual card" get their last four digits -------------
    taken = {a.last4 for a in state.accounts}
    fours: list[str] = []
    while len(fours) < 3:
        four = _digits(rng, 4)
        if four not in taken and four not in fours:
            fours.append(four)
    expiry = f"{rng.randint(1, 12):02d}/{(today.year + rng.randint(1, 4)) % 100:02d}"
    debit = Card(id="c1", name="Debit card", last4=fours[0], account_id="a1",
                 daily_spend_cents=rng.choice((150_000, 200_000, 250_000)), max_daily_spend_cents=DEBIT_MAX_CENTS,
                 expires=expiry, frozen=True, frozen_at=clock.ago(minutes=rng.randint(30, 90)))
    shopping = Card(id="c2", name="Virtual card", last4=fours[1], account_id="a1",
                    daily_spend_cents=rng.choice((50_000, 100_000)), max_daily_spend_cents=VIRTUAL_MAX_CENTS,
                    expires=f"{rng.randint(1, 12):02d}/{(today.year + 2) % 100:02d}")
    subscriptions = Card(id="c3", name="Virtual card", last4=fours[2], account_id="a1",
                         daily_spend_cents=rng.choice((20_000, 30_000)), max_daily_spend_cents=VIRTUAL_MAX_CENTS,
                         expires=f"{rng.randint(1, 12):02d}/{(today.year + 3) % 100:02d}")
    state.cards = [debit, shopping, subscriptions]
    labels = {"Debit card": debit.label, "Virtual card": shopping.label}
    for line in state.transactions:
        if line.card:
            line.card = labels.get(line.card, line.card)

    # -- a charge the user does not recognise, at a merchant billed monthly on the other virtual card ------
    usual, odd = (subscriptions, shopping) if rng.random() < 0.5 else (shopping, subscriptions)
    merchant = rng.choice(C.SUBSCRIPTION_MERCHANTS)
    monthly = rng.choice((999, 1199, 1499))
    bill_day = rng.randint(3, 25)
    for months_ago in range(1, 6):
        first = (today.replace(day=1) - timedelta(days=31 * months_ago - 15)).replace(day=1)
        billed = first.replace(day=bill_day)
        _line(state, clock, (today - billed).days + 0.3, description=merchant.upper(), amount_cents=-monthly,
              category="Subscriptions", kind="card", merchant=merchant, location="Online", card=usual.label,
              reference=_digits(rng, 12))
    odd_days = rng.randint(2, 9)
    odd_cents = rng.randint(120, 480) * 100 + rng.choice((0, 99, 49))
    odd_line = _line(state, clock, odd_days + 0.55, description=merchant.upper(), amount_cents=-odd_cents,
                     category="Subscriptions", kind="card", merchant=merchant, location="Online", card=odd.label,
                     reference=_digits(rng, 12))
    odd_day = _day(clock, odd_days + 0.55)

    # -- a charge billed for more than the receipt says (digits swapped), and another visit there -------
    store, store_place = rng.choice(C.RECEIPT_MERCHANTS)
    low, high = sorted(rng.sample(range(1, 10), 2))
    cents = rng.randrange(100)
    receipt_cents, charged_cents = (low * 10 + high) * 100 + cents, (high * 10 + low) * 100 + cents
    wrong_days = rng.randint(3, 12)
    wrong = _line(state, clock, wrong_days + 0.4, description=store.upper(), amount_cents=-charged_cents,
                  category="Home", kind="card", merchant=store, location=store_place, card=debit.label,
                  reference=_digits(rng, 12))
    _line(state, clock, wrong_days + rng.randint(15, 40) + 0.5, description=store.upper(),
          amount_cents=-(rng.randint(15, 90) * 100 + rng.randrange(100)), category="Home", kind="card",
          merchant=store, location=store_place, card=debit.label, reference=_digits(rng, 12))

    # -- a payment to the daycare that went out by mistake and has settled ------------------------------
    mistake_days = rng.randint(3, 9)
    mistake_cents = rng.randint(40, 160) * 100
    mistake = _line(state, clock, mistake_days + 0.45, description=f"PAYMENT TO {daycare.name.upper()}",
                    amount_cents=-mistake_cents, category="Bills", kind="payment", merchant=daycare.name,
                    reference=f"BP{_digits(rng, 8)}")

    # -- tax documents: last year's interest, and dividends issued twice (the second one corrected) -------
    # Forms go out by January 31; a correction follows within weeks. The latest season that has passed:
    season = today.year if today >= date(today.year, 4, 1) else today.year - 1
    tax_year = season - 1
    issued = date(season, 1, 31)
    corrected_on = date(season, rng.choice((2, 3)), rng.randint(2, 27))
    interest = rng.randint(300, 1_400) * 100 + rng.randrange(100)
    ordinary = rng.randint(180, 900) * 100 + rng.randrange(100)
    fixed = ordinary + rng.choice((-1, 1)) * (rng.randint(20, 140) * 100 + rng.randrange(100))
    state.tax_documents = [
        TaxDocument(id="doc1", form="1099-INT", year=tax_year, account_id="a2", issued_on=issued.isoformat(),
                    boxes={"1 Interest income": interest, "4 Federal income tax withheld": 0}),
        TaxDocument(id="doc2", form="1099-DIV", year=tax_year, account_id="a3", issued_on=issued.isoformat(),
                    boxes={"1a Total ordinary dividends": ordinary, "1b Qualified dividends": ordinary * 3 // 4,
                           "2a Total capital gain distributions": rng.randint(0, 90) * 100}),
        TaxDocument(id="doc3", form="1099-DIV", year=tax_year, account_id="a3", issued_on=corrected_on.isoformat(),
                    corrected=True,
                    boxes={"1a Total ordinary dividends": fixed, "1b Qualified dividends": fixed * 3 // 4,
                           "2a Total capital gain distributions": rng.randint(0, 90) * 100}),
    ]

    # -- lots: each holding bought in two or three goes; one holding has a lot now worth less than it cost --
    prices = {s.symbol: s.base_cents for s in state.securities}
    lot_holding = state.holdings[2]
    lots: list[Lot] = []
    loss_lot: Lot | None = None
    for holding in state.holdings:
        count = 3 if holding is lot_holding else rng.choice((1, 2, 3))
        count = min(count, holding.shares)
        cuts = sorted(rng.sample(range(1, holding.shares), count - 1)) if count > 1 else []
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, holding.shares], strict=True)]
        days = sorted(rng.sample(range(60, 1_400), count), reverse=True)
        base = prices[holding.symbol]
        lot_of_loss = rng.randrange(count) if holding is lot_holding else -1
        if holding is lot_holding:
            while len(set(sizes)) < len(sizes):   # the shares left must name one answer
                cuts = sorted(rng.sample(range(1, holding.shares), count - 1))
                sizes = [b - a for a, b in zip([0, *cuts], [*cuts, holding.shares], strict=True)]
        for index, (size, days_ago) in enumerate(zip(sizes, days, strict=True)):
            if index == lot_of_loss:
                price = round(base * rng.uniform(1.15, 1.35))
            elif holding is lot_holding:
                price = round(base * rng.uniform(0.55, 0.85))
            else:
                price = round(base * rng.uniform(0.7, 1.15))
            lot = Lot(id=f"l{len(lots) + 1:02d}", symbol=holding.symbol, bought_on=(today - timedelta(days=days_ago))
                      .isoformat(), shares=size, price_cents=price)
            lots.append(lot)
            if index == lot_of_loss:
                loss_lot = lot
        holding.cost_cents = sum(lot.shares * lot.price_cents for lot in lots if lot.symbol == holding.symbol)
    state.lots = lots
    state.next_ids["lot"] = len(lots) + 1
    assert loss_lot is not None
    security = state.security(lot_holding.symbol)
    assert security is not None

    _renumber(state, bindings)

    # -- bindings ----------------------------------------------------------------------------------------
    loss_day = date.fromisoformat(loss_lot.bought_on)
    trip_start = today + timedelta(days=rng.randint(10, 30))
    trip_end = trip_start + timedelta(days=rng.randint(6, 16))
    destination = rng.choice(C.DESTINATIONS)
    week_start = today + timedelta(days=(7 - today.weekday()) % 7 or 7)   # next Monday
    week_end = week_start + timedelta(weeks=rng.randint(6, 14))
    weekly_cents = rng.randint(4, 30) * 500
    asked = DEBIT_MAX_CENTS + rng.choice((1, 2, 3, 5)) * 100_000
    low_alert = rng.randint(4, 30) * 5_000
    large_alert = rng.randint(3, 20) * 25_000
    bindings.update({
        "cards": {"debit": {"id": debit.id, "label": debit.label, "last4": debit.last4,
                            "limit_text": format_cents(debit.daily_spend_cents),
                            "max_text": format_cents(DEBIT_MAX_CENTS), "max_cents": DEBIT_MAX_CENTS},
                  "usual": {"id": usual.id, "label": usual.label}, "odd": {"id": odd.id, "label": odd.label}},
        "unrecognised": {"transaction_id": odd_line.id, "merchant": merchant, "description": merchant.upper(),
                         "amount_text": format_cents(odd_cents), "date_text": month_day(odd_day),
                         "monthly_text": format_cents(monthly), "card_id": odd.id, "card_label": odd.label},
        "over_max": {"card_label": debit.label, "asked_cents": asked, "asked_text": format_cents(asked)},
        "trip": {"destination": destination, "start": trip_start.isoformat(), "end": trip_end.isoformat(),
                 "start_text": month_day(trip_start), "end_text": month_day_year(trip_end),
                 "limit_cents": rng.choice((300_000, 350_000, 400_000)),
                 "card_id": debit.id, "card_label": debit.label},
        "wrong_amount": {"transaction_id": wrong.id, "merchant": store, "description": store.upper(),
                         "charged_text": format_cents(charged_cents), "receipt_text": format_cents(receipt_cents),
                         "receipt_plain": plain(receipt_cents), "date_text": month_day(_day(clock, wrong_days + 0.4)),
                         "date_long": month_day_year(_day(clock, wrong_days + 0.4)),
                         "photo": f"receipt-{store.split()[0].lower()}.png"},
        "mistake": {"transaction_id": mistake.id, "payee_name": daycare.name, "description": mistake.description,
                    "amount_text": format_cents(mistake_cents),
                    "date_text": month_day(_day(clock, mistake_days + 0.45)),
                    "date_long": month_day_year(_day(clock, mistake_days + 0.45))},
        "tax": {"year": tax_year, "corrected_cents": fixed, "original_cents": ordinary, "interest_cents": interest,
                "corrected_issued": short(corrected_on), "issued": short(issued)},
        "lot": {"symbol": lot_holding.symbol, "name": security.name, "lot_id": loss_lot.id,
                "shares": loss_lot.shares, "shares_text": str(loss_lot.shares),
                "option": lot_option(loss_lot), "bought_text": short(loss_day),
                "held": lot_holding.shares, "left": lot_holding.shares - loss_lot.shares},
        "weekly": {"amount_cents": weekly_cents, "amount_text": format_cents(weekly_cents),
                   "amount_plain": plain(weekly_cents), "start": week_start.isoformat(),
                   "start_text": month_day(week_start), "end": week_end.isoformat(),
                   "end_text": month_day_year(week_end), "end_short": short(week_end)},
        "alerts": {"low_cents": low_alert, "low_text": format_cents(low_alert), "low_plain": plain(low_alert),
                   "large_cents": large_alert, "large_text": format_cents(large_alert),
                   "large_plain": plain(large_alert)},
        "statement": _statement_binding(state, today),
    })
    bindings["trip"]["limit_text"] = format_cents(bindings["trip"]["limit_cents"])
    bindings["trip"]["limit_plain"] = plain(bindings["trip"]["limit_cents"])


def _renumber(state: BankState, bindings: dict[str, Any]) -> None:
    """Number the history oldest first again, the lines added here among the rest (the site keeps its
    transactions in that order), and carry the new ids into the bindings that name lines."""
    ordered = sorted(enumerate(state.transactions), key=lambda pair: (pair[1].posted_at, pair[0]))
    renamed: dict[str, str] = {}
    for number, (_, line) in enumerate(ordered, start=1):
        renamed[line.id] = f"t{number:05d}"
        line.id = renamed[line.id]
    state.transactions = [line for _, line in ordered]

    def carry(value: Any) -> Any:
        if isinstance(value, str):
            return renamed.get(value, value)
        if isinstance(value, list):
            return [carry(item) for item in value]
        if isinstance(value, dict):
            return {key: carry(item) for key, item in value.items()}
        return value

    for group in ("dispute", "spending", "target"):
        bindings[group] = carry(bindings[group])


def lot_option(lot: Lot) -> str:
    """A lot's label in the sell form's "Which shares" list."""
    return f"Bought {short(date.fromisoformat(lot.bought_on))}: {lot.shares} shares"


def _statement_binding(state: BankState, today: date) -> dict[str, Any]:
    """Last month's savings statement: its closing balance (the statements' own arithmetic), and, in the
    checking statement of that month, the one card payment of its largest amount (a line to look up)."""
    month = (today.replace(day=1) - timedelta(days=1)).strftime("%Y-%m")
    savings = state.account("a2")
    assert savings is not None
    later = sum(t.amount_cents for t in state.transactions if t.account_id == "a2" and t.posted_at[:7] > month)
    closing = savings.balance_cents - later
    lines = [t for t in state.transactions if t.account_id == "a1" and t.posted_at.startswith(month)]
    amounts = [t.amount_cents for t in lines]
    # the largest card payment whose amount no other line of the month shares (the one the question names)
    biggest = min((t for t in lines if t.kind == "card" and amounts.count(t.amount_cents) == 1),
                  key=lambda t: (t.amount_cents, t.id))
    return {"month": month, "month_name": month_year(month), "savings_closing_cents": closing,
            "card_transaction_id": biggest.id, "card_description": biggest.description,
            "card_merchant": biggest.merchant, "card_amount_text": format_cents(-biggest.amount_cents),
            "card_reference": biggest.reference}

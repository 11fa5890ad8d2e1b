"""Seeded Meridian Bank worlds: three accounts with half a year of history, saved payees, security
messages and a brokerage account, with traps built in for each kind of task.

Everything random comes from the `rng` argument and every time from the episode clock, so the
same (setup, seed) gives byte-identical state. "Today" is the clock's epoch date.

Setup params (validated; unknown keys are refused):
    focus: which record is the task's `target` (for the look-alike and ordering faults):
           payee (default: the rent payee), charge (the charge to dispute) or security (the stock to buy);
           budgets, authorised or dividends turn on a later feature (sites/bank/later.py has their bindings;
           their target is the rent payee, which their tasks do not name).
    answers: true adds the `answers` bindings (what the question tasks ask, read off the world as the
           pages show it); the world itself is the same as without it.

Bindings (task templates refer to them as `{group.key}`):
    user:       {name, email}
    checking, savings, brokerage: {id, name, last4, option}  (`option`: its label in the transfer form)
    target:     {id, name}: the focused record.
    lookalike:  pay the rent to one of two payees with near-identical names.
                {payee_id, name, last4, option, other_id, other_name, other_last4, amount_text, amount_cents}
    new_payee:  add a payee (a code arrives as a security message), then pay it.
                {name, bank, account_number, routing_number, code, amount_text, amount_cents, memo}
    dispute:    three same-looking charges; the one at a given store is a duplicate.
                {transaction_id, merchant, amount_text, date_text, location, hard_negative_ids}
    spending:   what was spent at one merchant in one month. {merchant, month, month_name, total_cents,
                total_text, ids, other_month_ids}
    recurring:  replace a monthly payment with a new amount. {scheduled_id, other_scheduled_id, payee_id,
                payee_name, option, old_amount_text, new_amount_text, new_amount_cents, start_date}
    limits:     {daily_text, single_text, daily_cents, single_cents, atm_cents}
    buy:        buy at market under a price cap; the quote jumps between review and submit.
                {symbol, name, shares, cap_text, cap_cents, cash_cents}
    sell:       cancel an open order, then sell. {cancel_order_id, cancel_symbol, keep_order_id, symbol,
                name, shares, held}
    phishing:   {message_id, subject, sender}
    answers:    (only with the `answers` param) the expected answers of the question tasks:
                spending {category, month, month_name, payments, total_cents, total_text}: last month's
                busiest spending category in Everyday Checking; next_rent {date, scheduled_id}: the next
                scheduled payment to the rent payee; holdings: the symbols held; routing {number,
                other_number}: the rent payee's routing number and its look-alike's.
"""

from datetime import UTC, date, datetime, time, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.bank import content as C
from sites.bank.extras import add_extras
from sites.bank.insights import busiest_category, next_payment, previous_month, spending_by_category
from sites.bank.later import LATER_FOCUSES, add_later
from sites.bank.models import (
    Account,
    BankState,
    Customer,
    Holding,
    Limits,
    Message,
    Order,
    Payee,
    Scheduled,
    Security,
    Transaction,
)
from sites.kit.accounts import email_address
from sites.kit.dates import month_day, month_day_year, month_year
from sites.kit.site import World, WorldSetup
from sites.kit.templating import format_cents

FOCUSES = ("payee", "charge", "security", *LATER_FOCUSES)
# the later features' focuses add the feature's records (a budget, an authorised user, dividends)
ADDING_FOCUSES = LATER_FOCUSES
DEFAULT_FOCUS = "payee"
KNOWN_PARAMS = ("focus", "answers")
HISTORY_DAYS = 170


def _validate(setup: WorldSetup) -> tuple[str, bool]:
    setup.refuse_unknown("bank", KNOWN_PARAMS)
    answers = setup.params.get("answers", False)
    if not isinstance(answers, bool):
        raise ValueError(f"answers must be true or false, got {answers!r}")
    return setup.one_of("focus", FOCUSES, DEFAULT_FOCUS), answers


def plain(cents: int) -> str:
    """12345 -> '123.45' (as typed into an amount field)."""
    return f"{cents // 100}.{cents % 100:02d}"


def confirmation_code(code_seed: int, name: str, account_number: str) -> str:
    """The six-digit code a new payee is confirmed with (the same for the same request)."""
    return f"{Random(f'{code_seed}|{name}|{account_number}').randrange(10**6):06d}"


def option_label(name: str, number: str) -> str:
    return f"{name} (••••{number[-4:]})"


class _History:
    """Transactions being assembled: (account, day offset, seconds, fields)."""

    def __init__(self, rng: Random, clock: EpisodeClock) -> None:
        self.rng, self.clock = rng, clock
        self.rows: list[tuple[str, float, dict[str, Any]]] = []

    def add(self, account: str, days_ago: float, **fields: Any) -> dict[str, Any]:
        self.rows.append((account, days_ago, fields))
        return fields

    def stamp(self, days_ago: float) -> str:
        return self.clock.ago(days=days_ago)


def _days_before(clock: EpisodeClock, day: date, hour: float) -> float:
    """How many days before the epoch `hour` o'clock on `day` is (so a record lands on that date)."""
    moment = datetime.combine(day, time(0), tzinfo=UTC) + timedelta(hours=hour)
    return (clock.epoch - moment).total_seconds() / 86_400


def _digits(rng: Random, count: int) -> str:
    return "".join(str(rng.randrange(10)) for _ in range(count))


def generate(setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
    focus, answers = _validate(setup)
    today = clock.epoch.date()
    first, last = rng.choice(C.FIRST_NAMES), rng.choice(C.LAST_NAMES)
    user = Customer(name=f"{first} {last}", email=email_address(first, last),
                    customer_id=_digits(rng, 8))
    numbers = [_digits(rng, 10) for _ in range(3)]
    while len({n[-4:] for n in numbers}) < 3:
        numbers = [_digits(rng, 10) for _ in range(3)]
    checking = Account(id="a1", name="Everyday Checking", kind="checking", number=numbers[0],
                       balance_cents=rng.randint(5_200, 9_400) * 100 + rng.randrange(100),
                       opened_on=(today - timedelta(days=rng.randint(900, 3000))).isoformat())
    savings = Account(id="a2", name="High-Yield Savings", kind="savings", number=numbers[1],
                      balance_cents=rng.randint(12_000, 38_000) * 100 + rng.randrange(100),
                      opened_on=(today - timedelta(days=rng.randint(600, 2000))).isoformat())
    brokerage = Account(id="a3", name="Self-Directed Brokerage", kind="brokerage", number=numbers[2],
                        balance_cents=rng.randint(6_000, 14_000) * 100 + rng.randrange(100),
                        opened_on=(today - timedelta(days=rng.randint(300, 1500))).isoformat())
    accounts = [checking, savings, brokerage]

    # -- payees ------------------------------------------------------------------------------------
    right_name, wrong_name = rng.choice(C.LOOKALIKE_PAYEES)
    payees: list[Payee] = []

    def payee(name: str, bank: str, days_ago: int) -> Payee:
        number = _digits(rng, rng.choice((8, 10, 12)))
        while any(p.last4 == number[-4:] for p in payees) or number[-4:] in {n[-4:] for n in numbers}:
            number = _digits(rng, 10)
        made = Payee(id=f"p{len(payees) + 1:02d}", name=name, bank=bank, account_number=number,
                     routing_number=_digits(rng, 9), status="active", added_at=clock.ago(days=days_ago))
        payees.append(made)
        return made

    ordinary = [payee(name, bank, rng.randint(200, 900)) for name, bank in C.PAYEES]
    landlord = payee(right_name, rng.choice(C.BANKS), rng.randint(400, 900))
    namesake = payee(wrong_name, rng.choice(C.BANKS), rng.randint(20, 90))
    # Sorted by name, as the bank lists them: the look-alikes sit side by side.
    rent_cents = rng.randint(14, 22) * 10_000 + rng.choice((0, 2_500, 5_000, 7_500))

    # -- history -----------------------------------------------------------------------------------
    h = _History(rng, clock)
    pay_cents = rng.randint(2_400, 3_600) * 100
    employer = rng.choice(C.EMPLOYERS)
    for day in range(HISTORY_DAYS, 0, -1):
        moment = today - timedelta(days=day)
        if moment.day in (1, 15):
            h.add("a1", day - 0.3, description=f"{employer.upper()} PAYROLL", amount_cents=pay_cents,
                  category="Income", kind="deposit", merchant=employer, reference=f"PR{_digits(rng, 8)}")
        if moment.day == 2 and (moment.year, moment.month) != (today.year, today.month):
            # This month's rent is still to pay (the task asks for it).
            h.add("a1", day - 0.4, description=f"PAYMENT TO {landlord.name.upper()}", amount_cents=-rent_cents,
                  category="Housing", kind="payment", merchant=landlord.name, reference=f"BP{_digits(rng, 8)}")
            save = rng.randint(3, 8) * 10_000
            h.add("a1", day - 0.5, description="TRANSFER TO HIGH-YIELD SAVINGS", amount_cents=-save,
                  category="Transfers", kind="transfer", reference=f"TR{_digits(rng, 8)}")
            h.add("a2", day - 0.5, description="TRANSFER FROM EVERYDAY CHECKING", amount_cents=save,
                  category="Transfers", kind="transfer", reference=f"TR{_digits(rng, 8)}")
        if moment.day == 28:
            h.add("a2", day - 0.9, description="INTEREST PAID", amount_cents=rng.randint(2_000, 9_000),
                  category="Interest", kind="interest")
        if moment.day in (8, 22):
            bill = rng.choice(ordinary)
            h.add("a1", day - 0.45, description=f"PAYMENT TO {bill.name.upper()}",
                  amount_cents=-rng.randint(40, 320) * 100 - rng.randrange(100), category="Bills", kind="payment",
                  merchant=bill.name, reference=f"BP{_digits(rng, 8)}")
        for _ in range(rng.choice((0, 1, 1, 1, 2))):
            merchant, category, low, high, places = rng.choice(C.MERCHANTS)
            h.add("a1", day - rng.uniform(0.35, 0.95), description=merchant.upper(),
                  amount_cents=-(rng.randint(low * 100, high * 100)), category=category, kind="card",
                  merchant=merchant, location=rng.choice(places), card=rng.choice(C.CARDS),
                  reference=_digits(rng, 12))
    h.add("a3", rng.randint(60, 150) + 0.5, description="DEPOSIT FROM EVERYDAY CHECKING",
          amount_cents=rng.randint(20, 60) * 10_000, category="Transfers", kind="transfer")

    # -- the charge to dispute: three same-looking charges, told apart by the store ----------------
    task_merchants = list(C.TASK_MERCHANTS)
    rng.shuffle(task_merchants)
    d_merchant, d_category, d_stores = task_merchants[0]
    d_places = list(d_stores)
    rng.shuffle(d_places)
    d_day = rng.randint(4, 18)
    d_amount = rng.randint(30, 180) * 100 + rng.randrange(100)
    d_rows = []
    hours = [10.5, 13.25, 16.75]
    rng.shuffle(hours)
    for index in range(3):
        location = d_places[0] if index == 0 else d_places[1 + (index % 2)]
        d_rows.append(h.add("a1", _days_before(clock, today - timedelta(days=d_day), hours[index]),
                            description=d_merchant.upper(),
                            amount_cents=-d_amount, category=d_category, kind="card", merchant=d_merchant,
                            location=location, card=C.CARDS[index % 2], reference=_digits(rng, 12)))
    # Other visits to that merchant, at the other stores, on other days.
    for _ in range(4):
        h.add("a1", rng.randint(25, HISTORY_DAYS - 5) + 0.6, description=d_merchant.upper(),
              amount_cents=-(rng.randint(10, 90) * 100 + rng.randrange(100)), category=d_category, kind="card",
              merchant=d_merchant, location=rng.choice(d_places[1:]), card=rng.choice(C.CARDS),
              reference=_digits(rng, 12))

    # -- spending at one merchant in last month ----------------------------------------------------
    s_merchant, s_category, s_places = task_merchants[1]
    last_month_end = today.replace(day=1) - timedelta(days=1)
    month = last_month_end.strftime("%Y-%m")
    s_rows, s_other = [], []
    for day_of_month in sorted(rng.sample(range(1, last_month_end.day + 1), rng.randint(3, 4))):
        moment = last_month_end.replace(day=day_of_month)
        s_rows.append(h.add("a1", _days_before(clock, moment, rng.uniform(9, 20)), description=s_merchant.upper(),
                            amount_cents=-(rng.randint(12, 140) * 100 + rng.randrange(100)), category=s_category,
                            kind="card", merchant=s_merchant, location=rng.choice(s_places),
                            card=rng.choice(C.CARDS), reference=_digits(rng, 12)))
    before_month = today.day + last_month_end.day
    other_days = [before_month + rng.randint(3, 25), before_month + 40]
    if today.day > 2:
        other_days.insert(0, rng.randint(1, today.day - 2))
    for days_ago in other_days:
        s_other.append(h.add("a1", days_ago + 0.15, description=s_merchant.upper(),
                             amount_cents=-(rng.randint(12, 140) * 100 + rng.randrange(100)), category=s_category,
                             kind="card", merchant=s_merchant, location=rng.choice(s_places),
                             card=rng.choice(C.CARDS), reference=_digits(rng, 12)))

    # -- ids, oldest first ---------------------------------------------------------------------------
    h.rows.sort(key=lambda row: (-row[1], row[0]))
    transactions: list[Transaction] = []
    for account_id, days_before, fields in h.rows:
        transaction = Transaction(id=f"t{len(transactions) + 1:05d}", account_id=account_id,
                                  posted_at=clock.ago(days=days_before), **fields)
        fields["id"] = transaction.id
        transactions.append(transaction)

    # -- scheduled payments ------------------------------------------------------------------------
    daycare = ordinary[4]
    old_cents = rng.randint(6, 14) * 10_000
    new_cents = old_cents + rng.randint(2, 9) * 2_500
    next_first = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    start = (next_first + timedelta(days=32)).replace(day=1)
    scheduled = [
        Scheduled(id="s001", from_account_id="a1", payee_id=landlord.id, amount_cents=rent_cents,
                  frequency="monthly", next_date=(next_first + timedelta(days=1)).isoformat(), memo="Rent",
                  created_at=clock.ago(days=300)),
        Scheduled(id="s002", from_account_id="a1", payee_id=daycare.id, amount_cents=old_cents,
                  frequency="monthly", next_date=next_first.isoformat(), memo="Monthly fee",
                  created_at=clock.ago(days=200)),
        Scheduled(id="s003", from_account_id="a1", payee_id=daycare.id,
                  amount_cents=rng.randint(3, 9) * 1_000, frequency="once",
                  next_date=(today + timedelta(days=rng.randint(3, 12))).isoformat(), memo="Field trip",
                  created_at=clock.ago(days=5)),
        Scheduled(id="s004", from_account_id="a1", to_account_id="a2", amount_cents=rng.randint(2, 6) * 10_000,
                  frequency="monthly", next_date=(next_first + timedelta(days=4)).isoformat(), memo="Savings",
                  created_at=clock.ago(days=400)),
    ]

    # -- messages ------------------------------------------------------------------------------------
    messages = []
    for index, (subject, body) in enumerate(C.NOTICES):
        messages.append(Message(id=f"m{index + 1:03d}", sender=C.SECURITY_SENDER, sender_address=C.SECURITY_ADDRESS,
                                subject=subject, body=body, sent_at=clock.ago(days=rng.randint(3, 60) + index * 61),
                                read=True, kind="notice"))
    phishing = Message(id=f"m{len(messages) + 1:03d}", sender=C.PHISHING_SENDER, sender_address=C.PHISHING_ADDRESS,
                       subject=C.PHISHING_SUBJECT, body=C.PHISHING_BODY, sent_at=clock.ago(hours=rng.randint(2, 20)),
                       kind="alert", action_label=C.PHISHING_ACTION)
    messages.append(phishing)

    # -- brokerage -------------------------------------------------------------------------------------
    picked = rng.sample(C.SECURITIES, 8)
    securities = [Security(symbol=symbol, name=name, exchange=exchange,
                           base_cents=price * 100 + rng.randrange(100), wobble_bps=rng.randint(5, 20),
                           quote_seed=rng.getrandbits(32))
                  for symbol, name, exchange, price in picked]
    held = securities[:4]
    holdings = [Holding(id=f"h{i + 1:02d}", symbol=s.symbol, shares=rng.randint(8, 120),
                        cost_cents=0) for i, s in enumerate(held)]
    for holding, security in zip(holdings, held, strict=True):
        holding.cost_cents = holding.shares * round(security.base_cents * rng.uniform(0.7, 1.15))
    buy = securities[5]
    buy.jump_bps = rng.randint(450, 800)
    cap_cents = (buy.base_cents * 10_250 // 10_000 // 10 + 1) * 10
    buy_shares = max(1, min(rng.randint(5, 25), brokerage.balance_cents // 2 // cap_cents))
    cancel_sec, keep_sec = securities[6], securities[7]
    orders = [
        Order(id="o0001", symbol=held[0].symbol, side="buy", order_type="market", shares=rng.randint(5, 20),
              status="filled", placed_at=clock.ago(days=40), filled_at=clock.ago(days=40),
              fill_cents=held[0].base_cents - rng.randint(100, 900)),
        Order(id="o0002", symbol=cancel_sec.symbol, side="buy", order_type="limit", shares=rng.randint(10, 40),
              limit_cents=cancel_sec.base_cents * 9 // 10, status="open", placed_at=clock.ago(days=3)),
        Order(id="o0003", symbol=keep_sec.symbol, side="buy", order_type="limit", shares=rng.randint(10, 40),
              limit_cents=keep_sec.base_cents * 88 // 100, status="open", placed_at=clock.ago(days=2)),
    ]
    sell_holding = holdings[1]
    sell_shares = max(1, sell_holding.shares // rng.choice((2, 3, 4)))

    state = BankState(
        user=user, accounts=accounts, transactions=transactions,
        payees=sorted(payees, key=lambda p: p.name), scheduled=scheduled, messages=messages,
        securities=securities, holdings=holdings, orders=orders,
        limits=Limits(daily_transfer_cents=rng.choice((5_000, 7_500, 10_000)) * 100,
                      single_transfer_cents=rng.choice((2_500, 3_000, 4_000)) * 100, atm_daily_cents=80_000),
        code_seed=rng.getrandbits(32),
        next_ids={"transaction": len(transactions) + 1, "payee": len(payees) + 1, "transfer": 1,
                  "scheduled": len(scheduled) + 1, "message": len(messages) + 1, "action": 1, "dispute": 1,
                  "review": 1, "order": len(orders) + 1, "holding": len(holdings) + 1},
    )

    # -- bindings ------------------------------------------------------------------------------------
    def account_binding(account: Account) -> dict[str, Any]:
        return {"id": account.id, "name": account.name, "last4": account.last4,
                "option": option_label(account.name, account.number)}

    new_name, new_bank = rng.choice(C.NEW_PAYEES)
    new_number, new_routing = _digits(rng, 10), _digits(rng, 9)
    new_cents = rng.randint(90, 900) * 100 + rng.choice((0, 50))
    limit_daily = state.limits.daily_transfer_cents // 2 // 10_000 * 10_000
    limit_single = min(limit_daily, state.limits.single_transfer_cents) // 2 // 10_000 * 10_000 or 50_000
    d_target, d_others = d_rows[0], d_rows[1:]
    target_day = today - timedelta(days=d_day)
    bindings: dict[str, Any] = {
        "user": {"name": user.name, "email": user.email},
        "this_month": today.strftime("%Y-%m"),
        "checking": account_binding(checking), "savings": account_binding(savings),
        "brokerage": account_binding(brokerage),
        "lookalike": {"payee_id": landlord.id, "name": landlord.name, "last4": landlord.last4,
                      "option": option_label(landlord.name, landlord.account_number),
                      "name_upper": landlord.name.upper(),
                      "other_id": namesake.id, "other_name": namesake.name, "other_last4": namesake.last4,
                      "amount_text": format_cents(rent_cents), "amount_plain": plain(rent_cents),
                      "amount_cents": rent_cents},
        "new_payee": {"name": new_name, "bank": new_bank, "account_number": new_number, "routing_number": new_routing,
                      "last4": new_number[-4:], "option": option_label(new_name, new_number),
                      "name_upper": new_name.upper(),
                      "code": confirmation_code(state.code_seed, new_name, new_number),
                      "amount_text": format_cents(new_cents), "amount_plain": plain(new_cents),
                      "amount_cents": new_cents, "memo": f"Invoice {rng.randint(1000, 9999)}"},
        "dispute": {"transaction_id": d_target["id"], "merchant": d_merchant, "description": d_merchant.upper(),
                    "amount_text": format_cents(d_amount), "amount_cents": d_amount,
                    "date_text": month_day(target_day), "location": d_target["location"],
                    "hard_negative_ids": sorted(r["id"] for r in d_others)},
        "spending": {"merchant": s_merchant, "description": s_merchant.upper(), "month": month,
                     "month_name": month_year(month), "total_cents": -sum(r["amount_cents"] for r in s_rows),
                     "total_text": format_cents(-sum(r["amount_cents"] for r in s_rows)),
                     "total_plain": plain(-sum(r["amount_cents"] for r in s_rows)),
                     "ids": [r["id"] for r in s_rows], "other_month_ids": [r["id"] for r in s_other]},
        "recurring": {"scheduled_id": "s002", "other_scheduled_id": "s003", "payee_id": daycare.id,
                      "payee_name": daycare.name, "option": option_label(daycare.name, daycare.account_number),
                      "old_amount_text": format_cents(old_cents), "new_amount_text": format_cents(new_cents),
                      "new_amount_plain": plain(new_cents), "new_amount_cents": new_cents,
                      "start_date": start.isoformat(), "start_text": month_day_year(start)},
        "limits": {"daily_text": format_cents(limit_daily), "daily_plain": plain(limit_daily),
                   "daily_cents": limit_daily, "single_text": format_cents(limit_single),
                   "single_plain": plain(limit_single), "single_cents": limit_single,
                   "atm_cents": state.limits.atm_daily_cents},
        "buy": {"symbol": buy.symbol, "name": buy.name, "shares": buy_shares, "shares_text": str(buy_shares),
                "cap_text": format_cents(cap_cents),
                "cap_plain": plain(cap_cents), "cap_cents": cap_cents},
        "sell": {"cancel_order_id": "o0002", "cancel_symbol": cancel_sec.symbol, "cancel_name": cancel_sec.name,
                 "keep_order_id": "o0003", "keep_symbol": keep_sec.symbol, "symbol": sell_holding.symbol,
                 "name": next(s.name for s in securities if s.symbol == sell_holding.symbol),
                 "shares": sell_shares, "shares_text": str(sell_shares), "held": sell_holding.shares,
                 "held_after": sell_holding.shares - sell_shares},
        "phishing": {"message_id": phishing.id, "subject": phishing.subject, "sender": phishing.sender},
    }
    if focus == "payee" or focus in LATER_FOCUSES:
        # the later focuses' tasks name no payee: the rent payee is their target as for tasks without a focus
        bindings["target"] = {"id": landlord.id, "name": landlord.name}
    elif focus == "charge":
        bindings["target"] = {"id": d_target["id"], "name": d_merchant}
    else:
        bindings["target"] = {"id": buy.symbol, "name": buy.name}
    # Everything added since draws from one number taken last, so the records above stay as they were.
    add_extras(state, bindings, Random(rng.getrandbits(64)), clock, daycare)
    if answers:
        bindings["answers"] = _answers(state, today, landlord, namesake)
    if focus in LATER_FOCUSES:
        # Likewise last, and only for their focuses: a later feature's world (sites/bank/later.py).
        add_later(focus, state, bindings, Random(rng.getrandbits(64)), clock)
    return World(state=state, bindings=bindings)


def _answers(state: BankState, today: date, landlord: Payee, namesake: Payee) -> dict[str, Any]:
    """What the question tasks ask, read off the finished world with the functions its pages use (no
    random draws: the world is the same with or without them)."""
    month = previous_month(today)
    asked = busiest_category(spending_by_category(state, "a1", month))
    rent = next_payment(state, landlord.id)
    assert rent is not None, "the rent payee always has a monthly payment"
    return {
        "spending": {"category": asked.category, "month": month, "month_name": month_year(month),
                     "payments": asked.payments, "total_cents": asked.total_cents,
                     "total_text": format_cents(asked.total_cents)},
        "next_rent": {"date": rent.next_date, "scheduled_id": rent.id},
        "holdings": [h.symbol for h in state.holdings],
        "routing": {"number": landlord.routing_number, "other_number": namesake.routing_number},
    }

"""The worlds of the later focuses: features the first Meridian Bank worlds do not have.

Each focus turns its feature on (a collection that is None elsewhere) and adds what its tasks are about,
after every other part of the world is made and from one RNG draw taken last, so the worlds of the older
focuses stay byte-identical. Bindings (one group per focus):

    budgets:    three monthly budgets are set; last month one of them went over, the others did not. Three
                other categories had spending last month and no budget.
                {month, month_name, over: {id, category, amount_text, over_cents, over_text},
                 under: {id, category}, kept_ids (the budgets set), first/second/third: {category, spent_text,
                 amount_cents, amount_plain, amount_text} (last month's spending rounded up to the next $50)}
    authorised: the son is an authorised user on the debit card; the partner on the shopping virtual card.
                {son, son_first, partner, daughter, daughter_first, son_limit_cents, son_limit_text,
                 son_limit_plain, partner_limit_text, card_id, card_label, debit_label}
    dividends:  quarterly dividends of the holdings over fifteen months; one holding pays none, one already
                reinvests. {top: {symbol, name, id, year_cents, year_text}, kept: {symbol},
                 none: {symbol, name, id}}
"""

from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock
from sites.bank.insights import previous_month, spending_by_category
from sites.bank.models import AuthorisedUser, BankState, Budget, Dividend, Reinvestment
from sites.kit.dates import month_year
from sites.kit.templating import format_cents

LATER_FOCUSES = ("budgets", "authorised", "dividends")
# The categories a budget can be set for: everyday spending (rent and transfers are not budgeted).
BUDGET_CATEGORIES = ("Bills", "Eating out", "Groceries", "Health", "Home", "Shopping", "Subscriptions",
                     "Transport")
BUDGET_MONTHS = 4           # a budget's page compares it with this many past months
DIVIDEND_WINDOW_DAYS = 365  # "the last 12 months" on the Dividends page
SONS = ("Daniel", "Marcus", "Tomas", "Noah", "Omar", "Victor", "Felix", "Caleb")
DAUGHTERS = ("Priya", "Elena", "Sofia", "Grace", "Hannah", "Leah", "Irene", "Nadia", "Maya")
PARTNERS = ("Avery", "Jordan", "Morgan")


def plain(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def add_later(focus: str, state: BankState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    today = clock.epoch.date()
    if focus == "budgets":
        bindings["budgets"] = _budgets(state, rng, clock, today)
    elif focus == "authorised":
        bindings["authorised"] = _authorised(state, rng, clock)
    elif focus == "dividends":
        bindings["dividends"] = _dividends(state, rng, today)


# -- budgets ---------------------------------------------------------------------------------------------

def _budgets(state: BankState, rng: Random, clock: EpisodeClock, today: date) -> dict[str, Any]:
    month = previous_month(today)
    spent = {r.category: r.total_cents for r in spending_by_category(state, "a1", month)
             if r.category in BUDGET_CATEGORIES and r.total_cents >= 2_000}
    categories = sorted(spent)
    rng.shuffle(categories)
    over_cat, under_cat, *rest = categories
    new_cats = sorted(rest[:3])
    # a third budget, on a category the new ones leave (it may have had no spending last month)
    spare = sorted(c for c in BUDGET_CATEGORIES if c not in {over_cat, under_cat, *new_cats})
    other_cat = rng.choice(spare)
    # over: set a little under what last month cost, in whole $10; the others comfortably above it
    over_amount = max(1_000, (spent[over_cat] - spent[over_cat] * rng.randint(8, 25) // 100) // 1_000 * 1_000)

    def roomy(category: str) -> int:
        return max(5_000, -(-spent.get(category, 0) * rng.randint(115, 140) // 100 // 5_000) * 5_000)

    made = clock.ago(days=rng.randint(70, 200))
    amounts = {over_cat: over_amount, under_cat: roomy(under_cat), other_cat: roomy(other_cat)}
    # numbered in the order the page lists them (by category), so an id says nothing about which went over
    state.budgets = [Budget(id=f"b{number}", category=category, amount_cents=amounts[category], created_at=made)
                     for number, category in enumerate(sorted(amounts), start=1)]
    state.next_ids["budget"] = len(state.budgets) + 1
    over = next(b for b in state.budgets if b.category == over_cat)
    under = next(b for b in state.budgets if b.category == under_cat)
    over_cents = spent[over_cat] - over_amount
    new = {}
    for key, category in zip(("first", "second", "third"), new_cats, strict=True):
        rounded = -(-spent[category] // 5_000) * 5_000
        new[key] = {"category": category, "spent_text": format_cents(spent[category]), "amount_cents": rounded,
                    "amount_plain": plain(rounded), "amount_text": format_cents(rounded)}
    return {"month": month, "month_name": month_year(month),
            "over": {"id": over.id, "category": over_cat, "amount_text": format_cents(over_amount),
                     "over_cents": over_cents, "over_text": format_cents(over_cents)},
            "kept_ids": [b.id for b in state.budgets],
            "under": {"id": under.id, "category": under_cat}, **new}


def budget_months(state: BankState, budget: Budget, today: date) -> list[dict[str, Any]]:
    """The budget against each of the last complete months, newest first (what its page shows)."""
    rows = []
    first = today.replace(day=1)
    for _ in range(BUDGET_MONTHS):
        first = (first - timedelta(days=1)).replace(day=1)
        month = first.strftime("%Y-%m")
        spent = next((r.total_cents for r in spending_by_category(state, "a1", month)
                      if r.category == budget.category), 0)
        rows.append({"month": month, "name": month_year(month), "spent": spent, "diff": spent - budget.amount_cents})
    return rows


# -- authorised users ------------------------------------------------------------------------------------

def _authorised(state: BankState, rng: Random, clock: EpisodeClock) -> dict[str, Any]:
    first, last = state.user.name.split(" ", 1)
    son = rng.choice([n for n in SONS if n != first])
    daughter = rng.choice([n for n in DAUGHTERS if n != first])
    partner = rng.choice([n for n in PARTNERS if n != first])
    debit, shopping = state.cards[0], state.cards[1]
    son_limit = rng.randint(2, 16) * 2_500           # $50 to $400, under every card's own limit
    # the partner's limit on the card the daughter joins differs from the son's (the one to copy)
    partner_limit = min(son_limit + rng.randint(2, 8) * 2_500, shopping.daily_spend_cents)
    state.authorised_users = [
        AuthorisedUser(id="au1", card_id=debit.id, name=f"{son} {last}", daily_limit_cents=son_limit,
                       added_at=clock.ago(days=rng.randint(120, 400))),
        AuthorisedUser(id="au2", card_id=shopping.id, name=f"{partner} {last}", daily_limit_cents=partner_limit,
                       added_at=clock.ago(days=rng.randint(30, 100))),
    ]
    state.next_ids["authorised"] = 3
    return {"son": f"{son} {last}", "son_first": son, "partner": f"{partner} {last}",
            "daughter": f"{daughter} {last}", "daughter_first": daughter,
            "son_limit_cents": son_limit, "son_limit_text": format_cents(son_limit),
            "son_limit_plain": plain(son_limit), "partner_limit_text": format_cents(partner_limit),
            "card_id": shopping.id, "card_label": shopping.label, "debit_label": debit.label}


# -- dividends -------------------------------------------------------------------------------------------

def _shares_on(state: BankState, symbol: str, day: date) -> int:
    return sum(lot.shares for lot in state.lots if lot.symbol == symbol and date.fromisoformat(lot.bought_on) < day)


def _dividends(state: BankState, rng: Random, today: date) -> dict[str, Any]:
    holdings = list(state.holdings)
    none = rng.choice(holdings)
    payers = [h for h in holdings if h is not none]
    while True:
        paid: list[Dividend] = []
        for holding in payers:
            per_share = rng.randint(8, 95)
            month = rng.randint(1, 3)  # pays in this month of each quarter
            day = rng.randint(5, 26)
            first = today.replace(day=1)
            for back in range(16):
                start = first
                for _ in range(back):
                    start = (start - timedelta(days=1)).replace(day=1)
                if start.month % 3 != month % 3:
                    continue
                paid_on = start.replace(day=day)
                if paid_on >= today:
                    continue
                shares = _shares_on(state, holding.symbol, paid_on)
                if shares:
                    paid.append(Dividend(id="", symbol=holding.symbol, paid_on=paid_on.isoformat(),
                                         per_share_cents=per_share, shares=shares, amount_cents=per_share * shares))
        totals = year_totals(paid, today)
        ranked = sorted(totals.values(), reverse=True)
        if len(ranked) >= 2 and ranked[0] - ranked[1] >= 500:  # the most paid is plain to see
            break
    top = next(h for h in payers if totals[h.symbol] == ranked[0])
    kept = rng.choice([h for h in payers if h is not top])
    paid.sort(key=lambda d: (d.paid_on, d.symbol))
    for number, dividend in enumerate(paid, start=1):
        dividend.id = f"dv{number:03d}"
        dividend.reinvested = dividend.symbol == kept.symbol
    state.dividends = paid
    state.reinvestment = [Reinvestment(id=h.id, symbol=h.symbol, reinvest=h is kept, pays_dividends=h is not none)
                          for h in holdings]
    names = {s.symbol: s.name for s in state.securities}
    return {"top": {"symbol": top.symbol, "name": names[top.symbol], "id": top.id, "year_cents": totals[top.symbol],
                    "year_text": format_cents(totals[top.symbol])},
            "kept": {"symbol": kept.symbol},
            "none": {"symbol": none.symbol, "name": names[none.symbol], "id": none.id}}


def year_totals(paid: list[Dividend], today: date) -> dict[str, int]:
    """What each symbol paid in the last 12 months (the Dividends page's figure)."""
    since = (today - timedelta(days=DIVIDEND_WINDOW_DAYS)).isoformat()
    totals: dict[str, int] = {}
    for dividend in paid:
        totals.setdefault(dividend.symbol, 0)
        if dividend.paid_on > since:
            totals[dividend.symbol] += dividend.amount_cents
    return totals


def later_features(state: BankState) -> set[str]:
    """The later features this world has (what the navigation and the card and investment pages offer)."""
    parts = (("budgets", state.budgets), ("authorised", state.authorised_users), ("dividends", state.dividends))
    return {name for name, part in parts if part is not None}

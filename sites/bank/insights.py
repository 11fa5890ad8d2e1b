"""Figures Meridian Bank works out from its records for its summary pages: spending by category in a
month, the next payment to a payee. The generator states the answers of its question tasks with the same
functions, so a page and a task's expected answer cannot disagree."""

from dataclasses import dataclass
from datetime import date

from sites.bank.models import BankState, Scheduled

# Money that only moves between the customer's own accounts, or buys shares, is not spending.
NOT_SPENDING = frozenset({"transfer", "trade"})


@dataclass(frozen=True)
class CategorySpend:
    category: str
    payments: int
    total_cents: int


def spending_by_category(state: BankState, account_id: str, month: str) -> list[CategorySpend]:
    """Money out of the account in `month` (YYYY-MM) by category, the largest total first."""
    totals: dict[str, tuple[int, int]] = {}
    for line in state.transactions:
        if (line.account_id != account_id or line.amount_cents >= 0 or line.kind in NOT_SPENDING
                or not line.posted_at.startswith(month)):
            continue
        count, cents = totals.get(line.category, (0, 0))
        totals[line.category] = (count + 1, cents - line.amount_cents)
    return sorted((CategorySpend(category, count, cents) for category, (count, cents) in totals.items()),
                  key=lambda c: (-c.total_cents, c.category))


def busiest_category(spending: list[CategorySpend]) -> CategorySpend:
    """The category with the most payments (ties: the larger total, then the name): the one a question
    about a month's spending asks for, so that its answer adds up several lines."""
    return min(spending, key=lambda c: (-c.payments, -c.total_cents, c.category))


def next_payment(state: BankState, payee_id: str) -> Scheduled | None:
    """The earliest active scheduled payment to the payee (None when none is scheduled)."""
    planned = [s for s in state.scheduled if s.payee_id == payee_id and s.status == "active"]
    return min(planned, key=lambda s: (s.next_date, s.id), default=None)


def previous_month(today: date) -> str:
    """The last complete month before `today`, as YYYY-MM."""
    first = today.replace(day=1)
    return (date.fromordinal(first.toordinal() - 1)).strftime("%Y-%m")

"""Billing (focus `billing`): statements for recent visits, the insurer's claims behind them (each with an
explanation of benefits to download) and a saved card to pay with.

Three specialist visits of the last days, all under the card valid today, each with a processed claim and a
statement; an older visit under the expired card was billed and paid in full. On one statement a line leaves
out the plan's contract discount, so it asks more than the explanation of benefits says the patient owes
(the one to dispute); another statement is to be paid. Claims add up the deductible met in their plan year,
so only the latest claim of the current plan says what is left to meet.

Bindings:
    dispute:    {statement_id, number, visit_label, specialty, day, line_id, service, statement_owes_cents,
                 eob_owes_cents, eob_owes}
    pay_bill:   {statement_id, number, visit_label, specialty, day, balance_cents, confirmation, card_id,
                 card_label, expired_card_label}
    deductible: {claim_id, claim_number, remaining_cents, older_claim_number, older_remaining_cents}
    pay_plan:   {statement_id, visit_label, specialty, day, months, monthly_cents, option, limit,
                 first_payment_on, first_label, card_id, card_label}: the pay_bill statement in monthly parts
    billing_totals: {due_cents, due, claim_visit_label, claim_number, claim_paid_cents, claim_billed_cents}: the
                total due on every statement, and what the plan paid on one recent visit's claim
"""

from datetime import date, timedelta
from random import Random
from typing import Any

from scenarios.clock import EpisodeClock, iso
from sites.clinic import content as C
from sites.clinic.billing import COPAY_CENTS, PRICE_CENTS, PRIMARY_CARE, dollars
from sites.clinic.models import (
    Appointment,
    ChargeLine,
    Claim,
    ClaimLine,
    ClinicState,
    InsuranceCard,
    Provider,
    SavedCard,
    Statement,
)
from sites.kit.dates import day_label

OFFICE_VISIT = ("99214", "Office visit, established patient")
# What else a visit of each specialty bills (code, service, price in cents).
EXTRAS: dict[str, tuple[tuple[str, str, int], ...]] = {
    "Family Medicine": (("36415", "Blood draw", 2500), ("85025", "Complete blood count", 4800)),
    "Cardiology": (("93000", "Electrocardiogram", 18500), ("80061", "Lipid panel", 9800)),
    "Dermatology": (("11102", "Skin biopsy", 26500), ("88305", "Tissue exam by a pathologist", 14200)),
    "Endocrinology": (("84443", "Thyroid stimulating hormone test", 7600), ("83036", "Hemoglobin A1c test", 5400)),
    "Orthopedics": (("73562", "X-ray of the knee, 3 views", 21000), ("20610", "Joint injection", 24500)),
}
DEDUCTIBLE_CENTS: dict[str, int] = {"PPO Silver": 150000, "HMO Gold": 100000, "EPO Bronze": 300000}
COINSURANCE = 0.2  # the patient's share of what the plan allows for tests and procedures
DUE_DAYS = 30
PLAN_MONTHS = (3, 6, 12)
PLAN_MIN_CENTS = 4000  # a smaller balance is paid at once


def plan_monthly(balance_cents: int, months: int) -> int:
    """Each monthly payment of a plan: the balance in equal parts, rounded up to the cent."""
    return -(-balance_cents // months)


def first_of_next_month(today: date) -> date:
    return (today.replace(day=1) + timedelta(days=32)).replace(day=1)


def plan_starts(today: date) -> list[date]:
    """The days a plan's first payment can be on: the 1st or the 15th of next month."""
    first = first_of_next_month(today)
    return [first, first.replace(day=15)]


def visit_label(state: ClinicState, appointment: Appointment) -> str:
    """How the billing pages name a visit: 'Cardiology visit on Tue 14 Oct'."""
    provider = state.provider(appointment.provider_id)
    assert provider is not None
    return f"{provider.specialty} visit on {day_label(appointment.start)}"


def _claim(state: ClinicState, rng: Random, visit: Appointment, provider: Provider, card: InsuranceCard,
           met_before: int) -> Claim:
    """The insurer's processing of `visit`: the office visit at the copay, the rest at the coinsurance."""
    primary_care, specialist = COPAY_CENTS.get(card.plan, (2500, 5000))
    copay = primary_care if provider.specialty in PRIMARY_CARE else specialist
    billed = [(*OFFICE_VISIT, PRICE_CENTS[provider.specialty]),
              *rng.sample(EXTRAS[provider.specialty], rng.randint(1, 2))]
    lines, met = [], met_before
    for index, (code, service, price) in enumerate(billed):
        allowed = int(price * rng.uniform(0.55, 0.8))
        owed = min(allowed, copay) if index == 0 else round(allowed * COINSURANCE)
        if index:
            met += owed   # what the patient pays for tests and procedures counts toward the deductible
        lines.append(ClaimLine(code=code, service=service, billed_cents=price, allowed_cents=allowed,
                               plan_paid_cents=allowed - owed))
    day = date.fromisoformat(visit.start[:10])
    deductible = DEDUCTIBLE_CENTS.get(card.plan, 150000)
    return Claim(id=state.take_id("claim", "cl"), number=f"CLM-{rng.randint(10**7, 10**8 - 1)}",
                 appointment_id=visit.id, card_id=card.id, received_on=(day + timedelta(days=1)).isoformat(),
                 processed_on=(day + timedelta(days=2)).isoformat(), lines=lines, deductible_cents=deductible,
                 deductible_met_cents=min(deductible, met))


def _statement(state: ClinicState, rng: Random, claim: Claim, wrong_line: int | None = None) -> Statement:
    """The clinic's bill after `claim`; `wrong_line` leaves the plan's discount off that line."""
    lines = []
    for index, line in enumerate(claim.lines):
        adjustment = 0 if index == wrong_line else line.billed_cents - line.allowed_cents
        lines.append(ChargeLine(id=f"l{index + 1}", code=line.code, service=line.service,
                                billed_cents=line.billed_cents, insurance_paid_cents=line.plan_paid_cents,
                                adjustment_cents=adjustment,
                                you_owe_cents=line.billed_cents - line.plan_paid_cents - adjustment))
    issued = date.fromisoformat(claim.processed_on) + timedelta(days=1)
    return Statement(id=state.take_id("statement", "st"), number=f"CB-{rng.randint(100000, 999999)}",
                     appointment_id=claim.appointment_id, claim_id=claim.id, issued_on=issued.isoformat(),
                     due_on=(issued + timedelta(days=DUE_DAYS)).isoformat(), lines=lines,
                     pay_code=f"PAY-{rng.randint(100000, 999999)}")


def billing(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    today = clock.epoch.date()
    current = next(c for c in state.insurance_cards if c.valid_from <= today.isoformat() <= c.valid_to)
    expired = next(c for c in state.insurance_cards if c.valid_to < today.isoformat())
    specialists = [p for p in state.providers if p.specialty not in PRIMARY_CARE]
    chosen: list[Provider] = []
    for provider in rng.sample(specialists, len(specialists)):   # three specialties, one doctor each
        if provider.specialty not in {p.specialty for p in chosen}:
            chosen.append(provider)
    chosen = chosen[:3]
    cover_days = (today - date.fromisoformat(current.valid_from)).days
    weekdays = [n for n in range(3, min(cover_days, 10)) if (today - timedelta(days=n)).weekday() < 5]
    days_ago = sorted(rng.sample(weekdays, 3), reverse=True)
    old_day = date.fromisoformat(expired.valid_to) - timedelta(days=rng.randint(15, 60))
    old_day -= timedelta(days=max(0, old_day.weekday() - 4))   # the clinic sees patients on weekdays

    def visit(provider: Provider, day: date) -> Appointment:
        record = Appointment(id=state.take_id("appointment", "ap"), provider_id=provider.id, slot_id=None,
                             start=iso(clock.epoch.replace(tzinfo=None, year=day.year, month=day.month, day=day.day,
                                                           hour=rng.choice((9, 11, 14)), minute=0, second=0,
                                                           microsecond=0)),
                             visit_reason=rng.choice(C.VISIT_REASONS), status="completed",
                             booked_at=iso(clock.epoch.replace(tzinfo=None) - timedelta(days=(today - day).days + 14)))
        state.appointments.append(record)
        return record

    claims: list[Claim] = []
    statements: list[Statement] = []
    # The older visit, under the card that has since expired: billed and paid in full.
    old_provider = rng.choice([p for p in specialists if p not in chosen] or specialists)
    old_visit = visit(old_provider, old_day)
    old_claim = _claim(state, rng, old_visit, old_provider, expired, rng.randint(10, 60) * 1000)
    old_statement = _statement(state, rng, old_claim)
    old_statement.paid_cents = old_statement.owed_cents
    claims.append(old_claim)
    statements.append(old_statement)
    # The recent visits, in the current plan's year: each claim adds to the deductible met.
    met = rng.randint(2, 30) * 1000
    wrong_at = rng.randrange(3)
    recent = []
    for n, (provider, ago) in enumerate(zip(chosen, days_ago, strict=True)):
        record = visit(provider, today - timedelta(days=ago))
        claim = _claim(state, rng, record, provider, current, met)
        met = claim.deductible_met_cents
        # the wrong line is never the office visit (its copay is printed on the card)
        statement = _statement(state, rng, claim, rng.randrange(1, len(claim.lines)) if n == wrong_at else None)
        claims.append(claim)
        statements.append(statement)
        recent.append((record, claim, statement))
    state.claims, state.statements = claims, statements
    state.bill_disputes, state.bill_payments, state.payment_plans = [], [], []
    card_digits = rng.sample(range(1000, 9999), 2)
    state.saved_cards = [
        SavedCard(id="card1", label=f"Mastercard ending {card_digits[0]}",
                  expires=f"{today.year - 1}-{rng.randint(1, 12):02d}"),
        SavedCard(id="card2", label=f"Visa ending {card_digits[1]}",
                  expires=f"{today.year + 2}-{rng.randint(1, 12):02d}"),
    ]

    wrong_record, wrong_claim, wrong_statement = recent[wrong_at]
    line = next(x for x in wrong_statement.lines if x.adjustment_cents == 0)
    eob_line = next(x for x in wrong_claim.lines if x.code == line.code)
    wrong_provider = state.provider(wrong_record.provider_id)
    assert wrong_provider is not None
    bindings["dispute"] = {
        "statement_id": wrong_statement.id, "number": wrong_statement.number,
        "visit_label": visit_label(state, wrong_record), "specialty": wrong_provider.specialty,
        "day": day_label(wrong_record.start), "line_id": line.id, "service": line.service,
        "statement_owes_cents": line.you_owe_cents, "eob_owes_cents": eob_line.you_owe_cents,
        "eob_owes": dollars(eob_line.you_owe_cents)}
    pay_record, _pay_claim, pay_statement = recent[rng.choice([n for n in range(3) if n != wrong_at])]
    pay_provider = state.provider(pay_record.provider_id)
    assert pay_provider is not None
    bindings["pay_bill"] = {
        "statement_id": pay_statement.id, "number": pay_statement.number,
        "visit_label": visit_label(state, pay_record), "specialty": pay_provider.specialty,
        "day": day_label(pay_record.start), "balance_cents": pay_statement.balance_cents,
        "balance": dollars(pay_statement.balance_cents), "confirmation": pay_statement.pay_code,
        "card_id": "card2", "card_label": state.saved_cards[1].label,
        "expired_card_label": state.saved_cards[0].label}
    latest, older = recent[-1][1], recent[-2][1]
    bindings["deductible"] = {
        "claim_id": latest.id, "claim_number": latest.number,
        "remaining_cents": latest.deductible_cents - latest.deductible_met_cents,
        "older_claim_number": older.number,
        "older_remaining_cents": older.deductible_cents - older.deductible_met_cents}
    due = sum(s.balance_cents for s in statements)
    asked_record, asked_claim, _asked_statement = recent[rng.randrange(3)]
    bindings["billing_totals"] = {
        "due_cents": due, "due": dollars(due),
        "claim_visit_label": visit_label(state, asked_record), "claim_number": asked_claim.number,
        "claim_paid_cents": sum(x.plan_paid_cents for x in asked_claim.lines),
        "claim_billed_cents": sum(x.billed_cents for x in asked_claim.lines)}
    # A payment plan for the statement to pay: the fewest months that keep each payment under a limit.
    balance = pay_statement.balance_cents
    monthly = {n: plan_monthly(balance, n) for n in PLAN_MONTHS}
    limit = (monthly[3] + monthly[6]) // 200 * 100 + 100   # a whole dollar amount between the two
    assert monthly[6] < limit <= monthly[3], "the 6-month plan is the fewest months under the limit"
    bindings["pay_plan"] = {
        "statement_id": pay_statement.id, "visit_label": visit_label(state, pay_record),
        "specialty": pay_provider.specialty, "day": day_label(pay_record.start), "months": 6,
        "monthly_cents": monthly[6], "option": f"6 months of {dollars(monthly[6])}", "limit": dollars(limit),
        "first_payment_on": first_of_next_month(today).isoformat(),
        "first_label": f"{first_of_next_month(today):%B} 1", "card_id": "card2",
        "card_label": state.saved_cards[1].label}
    bindings["target"] = {"id": wrong_statement.id, "name": f"statement {wrong_statement.number}"}

"""What a completed visit cost: the clinic's price for that kind of visit, what the insurance that covered
the visit's day paid, and the patient's share (the plan's copay, or everything without cover).

Derived from the state whenever it is needed, never stored: the visit page and the world's bindings both
call `visit_cost`, so the bill shown and the answer expected cannot disagree.
"""

from dataclasses import dataclass

from sites.clinic.models import Appointment, ClinicState, InsuranceCard

# The clinic's price per visit, by specialty (cents).
PRICE_CENTS: dict[str, int] = {"Family Medicine": 18500, "Cardiology": 31000, "Dermatology": 24500,
                               "Endocrinology": 27500, "Orthopedics": 29000}
PRIMARY_CARE = frozenset({"Family Medicine"})
# Plan -> (primary care copay, specialist copay), cents.
COPAY_CENTS: dict[str, tuple[int, int]] = {"PPO Silver": (2500, 5000), "HMO Gold": (1500, 3500),
                                           "EPO Bronze": (4000, 7500)}


@dataclass(frozen=True)
class VisitCost:
    price_cents: int
    insurance_cents: int
    patient_cents: int
    card: InsuranceCard | None

    @property
    def covered(self) -> bool:
        return self.card is not None


def covering_card(state: ClinicState, day: str) -> InsuranceCard | None:
    """The card that covered `day` (YYYY-MM-DD); the primary one when two did."""
    valid = [c for c in state.insurance_cards if c.valid_from <= day <= c.valid_to]
    return min(valid, key=lambda c: (not c.primary, c.id), default=None)


def visit_cost(state: ClinicState, appointment: Appointment) -> VisitCost | None:
    """The bill of a completed visit (None for one not completed: nothing is billed yet)."""
    provider = state.provider(appointment.provider_id)
    if appointment.status != "completed" or provider is None:
        return None
    price = PRICE_CENTS.get(provider.specialty, PRICE_CENTS["Family Medicine"])
    card = covering_card(state, appointment.start[:10])
    if card is None:
        return VisitCost(price_cents=price, insurance_cents=0, patient_cents=price, card=None)
    primary_care, specialist = COPAY_CENTS.get(card.plan, (2500, 5000))
    copay = min(price, primary_care if provider.specialty in PRIMARY_CARE else specialist)
    return VisitCost(price_cents=price, insurance_cents=price - copay, patient_cents=copay, card=card)


def dollars(cents: int) -> str:
    """12345 -> '$123.45'."""
    return f"${cents // 100:,}.{cents % 100:02d}"

"""The clinic's state. The grader diffs it by collection: keep field names stable.

Collections (top-level lists of records with string ids): `locations`, `providers`, `slots`,
`appointments`, `messages`, `results`, `medications`, `refill_requests`, `pharmacies`,
`insurance_cards`, `contacts`, `previsit_forms`. Top-level object: `patient`. `next_ids` is
bookkeeping. Times are ISO-8601 strings from the episode clock; a slot's `start` is local
clinic time written the same way.

A cancelled appointment keeps its record (`status: cancelled`, with the reason) and frees its
slot; a rescheduled one moves to the new slot and frees the old one, in one write.
"""

from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    StringConstraints,
    field_validator,
    model_serializer,
)

from sites.kit.bodies import Day, Id
from sites.kit.bodies import RequestBody as _Body
from sites.kit.bodies import no_markup as _no_markup
from sites.kit.bodies import text as _text
from sites.kit.deps import EpisodeOf
from sites.kit.ids import TakesIds
from sites.kit.lookup import find

if TYPE_CHECKING:
    pass

Status = Literal["booked", "cancelled", "completed"]
CancelReason = Literal["feeling_better", "schedule_conflict", "seeing_another_provider", "other"]
CANCEL_REASONS: dict[str, str] = {"feeling_better": "I'm feeling better", "schedule_conflict": "Schedule conflict",
                                  "seeing_another_provider": "Seeing another provider", "other": "Something else"}
Relationship = Literal["spouse", "partner", "parent", "child", "sibling", "friend", "other"]
RELATIONSHIPS: tuple[str, ...] = ("spouse", "partner", "parent", "child", "sibling", "friend", "other")

TEXT_MAX = 2000
REASON_MAX = 300


class Patient(BaseModel):
    id: str
    name: str
    email: str
    phone: str
    born: str = Field(description="date of birth, YYYY-MM-DD")
    address: str


class Location(BaseModel):
    id: str
    name: str
    address: str


class Provider(BaseModel):
    id: str
    first_name: str
    last_name: str
    credentials: str
    specialty: str
    location_id: str
    languages: list[str]
    bio: str
    accepting: bool = True

    @property
    def name(self) -> str:
        return f"Dr. {self.first_name} {self.last_name}"


class Slot(BaseModel):
    id: str
    provider_id: str
    start: str
    minutes: int
    taken: bool = False


class Appointment(BaseModel):
    id: str
    provider_id: str
    slot_id: str | None
    start: str
    visit_reason: str
    status: Status
    booked_at: str
    cancel_reason: CancelReason | None = None
    cancel_note: str = ""
    cancelled_at: str | None = None
    rescheduled_from: str | None = Field(default=None, description="the start before the last reschedule")


class Message(BaseModel):
    id: str
    provider_id: str = Field(description="the care team member written to or by")
    subject: str
    body: str
    from_patient: bool
    sent_at: str
    result_id: str | None = None
    read: bool = True


class Component(BaseModel):
    name: str
    value: float
    unit: str
    low: float
    high: float

    @property
    def flag(self) -> str | None:
        return "Above range" if self.value > self.high else "Below range" if self.value < self.low else None


class TestResult(BaseModel):
    id: str
    test: str
    collected_at: str
    ordered_by: str = Field(description="provider id")
    components: list[Component]
    comment: str = ""


class Medication(BaseModel):
    id: str
    name: str
    dose: str
    directions: str
    prescriber_id: str
    refills_left: int
    last_filled: str


class RefillRequest(BaseModel):
    id: str
    medication_id: str
    pharmacy_id: str
    requested_at: str
    note: str = ""


class Pharmacy(BaseModel):
    id: str
    name: str
    address: str


class InsuranceCard(BaseModel):
    id: str
    carrier: str
    plan: str
    member_id: str
    group: str
    valid_from: str
    valid_to: str = Field(description="last day of cover, YYYY-MM-DD")
    primary: bool


class EmergencyContact(BaseModel):
    id: str
    name: str
    relationship: Relationship
    phone: str


class PreVisitForm(BaseModel):
    id: str
    appointment_id: str
    submitted_at: str
    symptoms: str
    symptoms_since: str = Field(description="YYYY-MM-DD")
    allergies: str
    insurance_card_id: str
    medications_confirmed: bool


# ---- billing (worlds with focus `billing`, sites/clinic/statements.py) ------------------------------------

DisputeReason = Literal["eob_mismatch", "not_received", "duplicate", "other"]
DISPUTE_REASONS: dict[str, str] = {"eob_mismatch": "It doesn't match my explanation of benefits",
                                   "not_received": "I didn't receive this service",
                                   "duplicate": "I was charged twice", "other": "Something else"}


class ChargeLine(BaseModel):
    id: str
    code: str = Field(description="the procedure code billed")
    service: str
    billed_cents: int
    insurance_paid_cents: int
    adjustment_cents: int = Field(description="the discount the plan's contract takes off the price")
    you_owe_cents: int


class Statement(BaseModel):
    """What the clinic bills the patient for one visit, after the insurance claim."""

    id: str
    number: str
    appointment_id: str
    claim_id: str
    issued_on: str
    due_on: str
    lines: list[ChargeLine]
    paid_cents: int = 0
    pay_code: str = Field(description="the confirmation number its next payment gets (drawn with the world)")

    @property
    def owed_cents(self) -> int:
        return sum(line.you_owe_cents for line in self.lines)

    @property
    def balance_cents(self) -> int:
        return max(0, self.owed_cents - self.paid_cents)


class ClaimLine(BaseModel):
    code: str
    service: str
    billed_cents: int
    allowed_cents: int
    plan_paid_cents: int

    @property
    def you_owe_cents(self) -> int:
        return self.allowed_cents - self.plan_paid_cents


class Claim(BaseModel):
    """The insurer's processing of one visit: its explanation of benefits (a download, not a bill)."""

    id: str
    number: str
    appointment_id: str
    card_id: str
    received_on: str
    processed_on: str
    lines: list[ClaimLine]
    deductible_cents: int = Field(description="the plan's yearly deductible")
    deductible_met_cents: int = Field(description="met so far this plan year, this claim included")


class BillDispute(BaseModel):
    id: str
    statement_id: str
    line_id: str
    reason: DisputeReason
    note: str = ""
    opened_at: str


class BillPayment(BaseModel):
    id: str
    statement_id: str
    amount_cents: int
    card: str
    confirmation: str
    paid_at: str


class PaymentPlan(BaseModel):
    """A statement's balance paid in equal monthly parts, automatically, from a saved card."""

    id: str
    statement_id: str
    months: int
    monthly_cents: int
    card: str
    first_payment_on: str
    created_at: str


class SavedCard(BaseModel):
    id: str
    label: str = Field(description="e.g. 'Visa ending 4821'")
    expires: str = Field(description="YYYY-MM")


# ---- video visits (worlds with focus `telehealth`, sites/clinic/telehealth.py) ----------------------------

VIDEO_STATES = ("Washington", "Oregon", "Idaho", "California", "Somewhere else")
VideoState = Literal["Washington", "Oregon", "Idaho", "California", "Somewhere else"]


class VideoVisit(BaseModel):
    """An appointment held by video: check in, wait in the waiting room until a nurse admits you, join."""

    id: str
    appointment_id: str
    opens_at: str = Field(description="when check-in opens (30 minutes before the visit)")
    licensed_in: list[str] = Field(description="where the clinician may treat: where the patient must be")
    nurse: str = Field(description="who admits the patient from the waiting room")
    checked_in_at: str | None = None
    located_in: str | None = None
    callback_phone: str | None = None
    new_symptoms: bool | None = None
    symptoms: str = ""
    consent: bool = False
    polls: int = Field(default=0, description="waiting-room checks since check-in (the nurse admits on the third)")
    admitted: bool = False
    joined_at: str | None = None


# ---- photos of insurance cards (worlds with focus `card_photo`, sites/clinic/card_photos.py) ----------------

PHOTO_MAX_BYTES = 512 * 1024  # the portal's cap on a card photo (413 above it)
PHOTO_MAX_BASE64 = (PHOTO_MAX_BYTES * 4) // 3 + 8


class CardPhoto(BaseModel):
    """A photo of an insurance card: what the portal keeps of it, not its pixels."""

    id: str
    card_id: str
    name: str
    content_type: str
    size_bytes: int
    sha256: str
    uploaded_at: str


# ---- after-visit summaries (worlds with focus `follow_up`, sites/clinic/summaries.py) -----------------------

class VisitSummary(BaseModel):
    """What the doctor wrote up after a visit: a download from the visit's page."""

    id: str
    appointment_id: str
    diagnosis: str
    instructions: list[str]
    follow_up_weeks: int
    follow_up_week_of: str = Field(description="the Monday of the week to come back, YYYY-MM-DD")


# ---- proxy access (worlds with focus `proxy`, sites/clinic/proxies.py) --------------------------------------

class ProxyGrant(BaseModel):
    """Someone the patient lets see their portal: everything, or the parts listed, until a day."""

    id: str
    name: str
    email: str
    relationship: Relationship
    scope: Literal["full", "limited"]
    areas: list[str] = Field(description="what a limited grant shows (appointments, messages, results, ...)")
    ends_on: str = Field(description="last day of access, YYYY-MM-DD")
    granted_at: str
    revoked_at: str | None = None


# ---- referrals (worlds with focus `referral`, sites/clinic/referrals.py) ------------------------------------

class Referral(BaseModel):
    """A family doctor's referral to a specialty (and maybe a named doctor), which the plan needs to pay."""

    id: str
    specialty: str
    to_provider_id: str | None = Field(description="the doctor it names; None: any doctor of the specialty")
    referred_by: str
    status: Literal["approved", "pending", "denied"]
    issued_on: str
    valid_until: str = Field(description="last day it can be used, YYYY-MM-DD")
    visits_left: int


class ClinicState(TakesIds, BaseModel):
    patient: Patient
    locations: list[Location]
    providers: list[Provider]
    slots: list[Slot]
    appointments: list[Appointment]
    messages: list[Message]
    results: list[TestResult]
    medications: list[Medication]
    refill_requests: list[RefillRequest] = Field(default_factory=list)
    pharmacies: list[Pharmacy]
    insurance_cards: list[InsuranceCard]
    contacts: list[EmergencyContact]
    previsit_forms: list[PreVisitForm] = Field(default_factory=list)
    next_ids: dict[str, int]
    # Features later than the first worlds: None (and absent from the JSON) unless the world's focus turns
    # them on, so a world without them serializes byte-identically to the worlds made before they existed.
    statements: list[Statement] | None = None
    claims: list[Claim] | None = None
    bill_disputes: list[BillDispute] | None = None
    bill_payments: list[BillPayment] | None = None
    saved_cards: list[SavedCard] | None = None
    payment_plans: list[PaymentPlan] | None = None
    video_visits: list[VideoVisit] | None = None
    card_photos: list[CardPhoto] | None = None
    visit_summaries: list[VisitSummary] | None = None
    proxies: list[ProxyGrant] | None = None
    referrals: list[Referral] | None = None

    @model_serializer(mode="wrap")
    def _omit_unset(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data: dict[str, object] = handler(self)
        for key in OPTIONAL_COLLECTIONS:
            if data.get(key) is None:
                data.pop(key, None)
        return data

    def provider(self, provider_id: str) -> Provider | None:
        return find(self.providers, provider_id)

    def location(self, location_id: str) -> Location | None:
        return find(self.locations, location_id)

    def slot(self, slot_id: str) -> Slot | None:
        return find(self.slots, slot_id)

    def appointment(self, appointment_id: str) -> Appointment | None:
        return find(self.appointments, appointment_id)

    def result(self, result_id: str) -> TestResult | None:
        return find(self.results, result_id)

    def card(self, card_id: str) -> InsuranceCard | None:
        return find(self.insurance_cards, card_id)

    def form_for(self, appointment_id: str) -> PreVisitForm | None:
        return find(self.previsit_forms, appointment_id, key="appointment_id")

    def video_for(self, appointment_id: str) -> VideoVisit | None:
        return find(self.video_visits or [], appointment_id, key="appointment_id")

    def summary_for(self, appointment_id: str) -> VisitSummary | None:
        return find(self.visit_summaries or [], appointment_id, key="appointment_id")

    def statement_for(self, appointment_id: str) -> Statement | None:
        return find(self.statements or [], appointment_id, key="appointment_id")


OPTIONAL_COLLECTIONS = ("statements", "claims", "bill_disputes", "bill_payments", "saved_cards", "video_visits",
                        "card_photos", "visit_summaries", "proxies", "referrals",
                        "payment_plans")


# ---- request bodies (every JSON write) -------------------------------------------------------------

Phone = Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=7, max_length=20,
                                         pattern=r"^\+?[0-9 ()-]{7,20}$")]


class BookBody(_Body):
    slot_id: Id
    visit_reason: Annotated[str, _text(3, REASON_MAX)]

    _plain = field_validator("visit_reason")(classmethod(lambda cls, v: _no_markup(v)))


class RescheduleBody(_Body):
    slot_id: Id


class CancelBody(_Body):
    reason: CancelReason
    note: Annotated[str, _text(0, REASON_MAX)] = ""

    _plain = field_validator("note")(classmethod(lambda cls, v: _no_markup(v)))


class MessageBody(_Body):
    provider_id: Id
    subject: Annotated[str, _text(3, 120)]
    body: Annotated[str, _text(5, TEXT_MAX)]
    result_id: Id | None = None

    _plain = field_validator("subject", "body")(classmethod(lambda cls, v: _no_markup(v)))


class RefillBody(_Body):
    pharmacy_id: Id
    note: Annotated[str, _text(0, REASON_MAX)] = ""

    _plain = field_validator("note")(classmethod(lambda cls, v: _no_markup(v)))


class ContactBody(_Body):
    name: Annotated[str, _text(2, 80)]
    relationship: Relationship
    phone: Phone

    _plain = field_validator("name")(classmethod(lambda cls, v: _no_markup(v)))


class PhoneBody(_Body):
    phone: Phone


class PreVisitBody(_Body):
    symptoms: Annotated[str, _text(3, TEXT_MAX)]
    symptoms_since: Day
    allergies: Annotated[str, _text(0, 300)] = ""
    insurance_card_id: Id
    medications_confirmed: bool

    _plain = field_validator("symptoms", "allergies")(classmethod(lambda cls, v: _no_markup(v)))

    @field_validator("medications_confirmed", mode="before")
    @classmethod
    def _strict_bool(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("true or false")
        return value



class DisputeBody(_Body):
    line_id: Id
    reason: DisputeReason
    note: Annotated[str, _text(0, REASON_MAX)] = ""

    _plain = field_validator("note")(classmethod(lambda cls, v: _no_markup(v)))


class PlanBody(_Body):
    months: Literal[3, 6, 12]
    card_id: Id
    first_payment_on: Day
    agreed: bool

    @field_validator("agreed", mode="before")
    @classmethod
    def _strict_bool(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("true or false")
        return value


class PaymentBody(_Body):
    amount_cents: Annotated[int, Field(strict=True, gt=0, le=10_000_000)]
    card_id: Id


class CheckInBody(_Body):
    located_in: VideoState
    callback_phone: Phone
    new_symptoms: bool
    symptoms: Annotated[str, _text(0, TEXT_MAX)] = ""
    consent: bool

    _plain = field_validator("symptoms")(classmethod(lambda cls, v: _no_markup(v)))

    @field_validator("new_symptoms", "consent", mode="before")
    @classmethod
    def _strict_bool(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("true or false")
        return value


class PhotoBody(_Body):
    name: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=120)]
    content_type: Literal["image/png", "image/jpeg"]
    data: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=PHOTO_MAX_BASE64)]  # base64

    _plain = field_validator("name")(classmethod(lambda cls, v: _no_markup(v)))


# What every clinic handler takes: the request's episode, its state typed (`sites.kit.deps`).
ClinicEpisode = EpisodeOf[ClinicState]

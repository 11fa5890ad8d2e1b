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

from pydantic import BaseModel, Field, StringConstraints, field_validator

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



# What every clinic handler takes: the request's episode, its state typed (`sites.kit.deps`).
ClinicEpisode = EpisodeOf[ClinicState]

"""The JSON API the portal's scripts write through.

Every write checks everything first and then changes the state (a refused request changes
nothing: a booking takes its slot and creates the appointment, or does neither), steps the
episode clock once and records one `commit` event whose `touched` lists the ids it changed.
Errors are 4xx with a `detail` message: 404 for unknown ids, 409 for a request that does not
make sense now (a taken slot, a slot in the past, a cancelled visit), 422 for a malformed body.
"""

from datetime import date
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from scenarios.clock import iso
from sites.clinic.models import (
    Appointment,
    BookBody,
    CancelBody,
    ClinicEpisode,
    ClinicState,
    ContactBody,
    EmergencyContact,
    Message,
    MessageBody,
    PhoneBody,
    PreVisitBody,
    PreVisitForm,
    RefillBody,
    RefillRequest,
    RescheduleBody,
    Slot,
)
from sites.clinic.referrals import referral_refusal
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404

MAX_CONTACTS = 5


def _future_slot(state: ClinicState, episode: SiteEpisode, slot_id: str) -> Slot:
    slot = get_or_404(state.slots, slot_id, "appointment time")
    if slot.start <= iso(episode.clock.now()):
        raise HTTPException(409, "That time has already passed. Choose a later time.")
    if slot.taken:
        raise HTTPException(409, "Someone just booked that time. Choose another one.")
    return slot


def _upcoming(state: ClinicState, appointment_id: str) -> Appointment:
    appointment = get_or_404(state.appointments, appointment_id, "appointment")
    if appointment.status != "booked":
        raise HTTPException(409, f"This appointment is {appointment.status}; it can't be changed.")
    return appointment


def _day(value: str, field: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise HTTPException(422, f"{field}: not a real date (use YYYY-MM-DD)") from None


def api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    # -- appointments ------------------------------------------------------------------------------

    @router.post("/appointments", status_code=201)
    @hook_point("book", "write")
    async def book(body: BookBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        slot = _future_slot(state, episode, body.slot_id)
        provider = state.provider(slot.provider_id)
        assert provider is not None
        if not provider.accepting:
            raise HTTPException(409, f"{provider.name} is not accepting new appointments.")
        refusal = referral_refusal(state, provider, episode.clock.now().date().isoformat())
        if refusal is not None:
            raise HTTPException(409, refusal)
        if any(a.status == "booked" and a.start == slot.start for a in state.appointments):
            raise HTTPException(409, "You already have an appointment at that time.")
        at = episode.clock.stamp()
        appointment = Appointment(id=state.take_id("appointment", "ap"), provider_id=provider.id, slot_id=slot.id,
                                  start=slot.start, visit_reason=body.visit_reason, status="booked", booked_at=at)
        slot.taken = True
        state.appointments.append(appointment)
        episode.emit.commit("book", appointment.id, provider=provider.id, touched=[appointment.id, slot.id])
        return {"appointment": appointment.model_dump(), "url": f"/appointments/{appointment.id}"}

    @router.post("/appointments/{appointment_id}/reschedule")
    @hook_point("reschedule", "write", target=lambda kw: kw["appointment_id"])
    async def reschedule(appointment_id: str, body: RescheduleBody, request: Request,
                         episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        appointment = _upcoming(state, appointment_id)
        slot = _future_slot(state, episode, body.slot_id)
        if slot.provider_id != appointment.provider_id:
            raise HTTPException(409, "Choose a time with the same provider (book a new visit to see someone else).")
        old = state.slot(appointment.slot_id or "")
        episode.clock.stamp()
        if old is not None:
            old.taken = False
        slot.taken = True
        appointment.rescheduled_from, appointment.start, appointment.slot_id = appointment.start, slot.start, slot.id
        touched = [appointment.id, slot.id, *([old.id] if old else [])]
        episode.emit.commit("reschedule", appointment.id, touched=touched)
        return {"appointment": appointment.model_dump(), "url": f"/appointments/{appointment.id}"}

    @router.post("/appointments/{appointment_id}/cancel")
    @hook_point("cancel", "write", target=lambda kw: kw["appointment_id"])
    async def cancel(appointment_id: str, body: CancelBody, request: Request,
                     episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        appointment = _upcoming(state, appointment_id)
        if body.reason == "other" and not body.note:
            raise HTTPException(422, "note: tell us the reason in a few words")
        at = episode.clock.stamp()
        slot = state.slot(appointment.slot_id or "")
        if slot is not None:
            slot.taken = False
        appointment.status, appointment.cancel_reason = "cancelled", body.reason
        appointment.cancel_note, appointment.cancelled_at = body.note, at
        episode.emit.commit("cancel", appointment.id, reason=body.reason,
                            touched=[appointment.id, *([slot.id] if slot else [])])
        return {"appointment": appointment.model_dump(), "url": f"/appointments/{appointment.id}"}

    @router.post("/appointments/{appointment_id}/previsit", status_code=201)
    @hook_point("previsit", "write", target=lambda kw: kw["appointment_id"])
    async def previsit(appointment_id: str, body: PreVisitBody, request: Request,
                       episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        appointment = _upcoming(state, appointment_id)
        if state.form_for(appointment.id) is not None:
            raise HTTPException(409, "The pre-visit form for this appointment was already submitted.")
        since = _day(body.symptoms_since, "symptoms_since")
        today = episode.clock.now().date()
        if since > today:
            raise HTTPException(422, "symptoms_since: that date is in the future")
        if since < date.fromisoformat(state.patient.born):
            raise HTTPException(422, "symptoms_since: that date is before your date of birth")
        card = get_or_404(state.insurance_cards, body.insurance_card_id, "insurance card")
        if not body.medications_confirmed:
            raise HTTPException(422, "medications_confirmed: please confirm your medication list")
        at = episode.clock.stamp()
        form = PreVisitForm(id=state.take_id("form", "f"), appointment_id=appointment.id, submitted_at=at,
                            symptoms=body.symptoms, symptoms_since=since.isoformat(), allergies=body.allergies,
                            insurance_card_id=card.id, medications_confirmed=True)
        state.previsit_forms.append(form)
        episode.emit.commit("submit_previsit", appointment.id, card=card.id, touched=[form.id])
        return {"form": form.model_dump(), "url": f"/appointments/{appointment.id}"}

    # -- messages ------------------------------------------------------------------------------------

    @router.post("/messages", status_code=201)
    @hook_point("send_message", "write")
    async def send_message(body: MessageBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        provider = get_or_404(state.providers, body.provider_id, "provider")
        if body.result_id is not None:
            get_or_404(state.results, body.result_id, "test result")
        at = episode.clock.stamp()
        message = Message(id=state.take_id("message", "msg"), provider_id=provider.id, subject=body.subject,
                          body=body.body, from_patient=True, sent_at=at, result_id=body.result_id)
        state.messages.append(message)
        episode.emit.commit("send_message", message.id, provider=provider.id, touched=[message.id])
        return {"message": message.model_dump(), "url": f"/messages/{message.id}"}

    # -- medications ---------------------------------------------------------------------------------

    @router.post("/medications/{medication_id}/refills", status_code=201)
    @hook_point("refill", "write", target=lambda kw: kw["medication_id"])
    async def refill(medication_id: str, body: RefillBody, request: Request,
                     episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        medication = get_or_404(state.medications, medication_id, "medication")
        pharmacy = get_or_404(state.pharmacies, body.pharmacy_id, "pharmacy")
        if medication.refills_left < 1:
            raise HTTPException(409, f"{medication.name} has no refills left: message your provider for a new "
                                     "prescription.")
        if any(r.medication_id == medication.id for r in state.refill_requests):
            raise HTTPException(409, f"A refill of {medication.name} was already requested.")
        at = episode.clock.stamp()
        request_record = RefillRequest(id=state.take_id("refill", "rf"), medication_id=medication.id,
                                       pharmacy_id=pharmacy.id, requested_at=at, note=body.note)
        medication.refills_left -= 1
        state.refill_requests.append(request_record)
        episode.emit.commit("request_refill", medication.id, touched=[request_record.id, medication.id])
        return {"refill": request_record.model_dump(), "url": "/medications"}

    # -- profile -------------------------------------------------------------------------------------

    @router.put("/profile/phone")
    @hook_point("update_phone", "write")
    async def update_phone(body: PhoneBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        if body.phone == state.patient.phone:
            raise HTTPException(409, "That is already your phone number.")
        episode.clock.stamp()
        state.patient.phone = body.phone
        episode.emit.commit("update_phone", state.patient.id, touched=[state.patient.id])
        return {"patient": state.patient.model_dump()}

    @router.post("/profile/contacts", status_code=201)
    @hook_point("add_contact", "write")
    async def add_contact(body: ContactBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        if len(state.contacts) >= MAX_CONTACTS:
            raise HTTPException(409, f"You can keep at most {MAX_CONTACTS} emergency contacts.")
        if any(c.name.casefold() == body.name.casefold() for c in state.contacts):
            raise HTTPException(409, f"{body.name} is already one of your emergency contacts.")
        episode.clock.stamp()
        contact = EmergencyContact(id=state.take_id("contact", "ec", 1), name=body.name,
                                   relationship=body.relationship, phone=body.phone)
        state.contacts.append(contact)
        episode.emit.commit("add_contact", contact.id, touched=[contact.id])
        return {"contact": contact.model_dump()}

    @router.delete("/profile/contacts/{contact_id}")
    @hook_point("remove_contact", "write", target=lambda kw: kw["contact_id"])
    async def remove_contact(contact_id: str, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        contact = get_or_404(state.contacts, contact_id, "emergency contact")
        episode.clock.stamp()
        state.contacts.remove(contact)
        episode.emit.commit("remove_contact", contact.id, touched=[contact.id])
        return {"removed": contact.id}

    @router.put("/profile/insurance/{card_id}/primary")
    @hook_point("make_primary", "write", target=lambda kw: kw["card_id"])
    async def make_primary(card_id: str, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        card = get_or_404(state.insurance_cards, card_id, "insurance card")
        if card.primary:
            raise HTTPException(409, "That card is already your primary insurance.")
        if card.valid_to < episode.clock.now().date().isoformat():
            raise HTTPException(409, "That card has expired; it can't be your primary insurance.")
        episode.clock.stamp()
        for other in state.insurance_cards:
            other.primary = other.id == card.id
        episode.emit.commit("make_primary", card.id, touched=[c.id for c in state.insurance_cards])
        return {"card": card.model_dump()}

    return router



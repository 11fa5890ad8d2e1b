"""Server-rendered pages of the patient portal. Pages only read; every write goes through the JSON
API (`api.py`) from the page's script, which then loads a page with a `?notice=` flash."""

from datetime import date
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from scenarios.clock import iso
from sites.clinic.billing import dollars, visit_cost
from sites.clinic.generator import card_label, long_date
from sites.clinic.models import (
    CANCEL_REASONS,
    RELATIONSHIPS,
    Appointment,
    ClinicEpisode,
    ClinicState,
)
from sites.clinic.referrals import referral_refusal
from sites.kit.dates import day_label, time_label
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.notices import notice_of
from sites.kit.templating import Pages

NOTICES = {
    "booked": "Appointment booked",
    "rescheduled": "Appointment rescheduled",
    "cancelled": "Appointment cancelled",
    "previsit": "Pre-visit form submitted",
    "sent": "Message sent",
    "refill": "Refill requested",
    "phone": "Phone number saved",
    "contact_added": "Emergency contact added",
    "contact_removed": "Emergency contact removed",
    "primary": "Primary insurance updated",
    "photo_removed": "Card photo removed",
}


NAME_QUERY_MAX = 80


def number(value: float) -> str:
    return f"{value:g}"


def clinic_filters() -> dict[str, Any]:
    return {"day": day_label, "time": time_label, "long_date": long_date, "number": number, "card_label": card_label,
            "dollars": dollars}


def page_context(state: ClinicState | None) -> dict[str, Any]:
    if state is None:
        return {"patient": None, "unread": 0, "billing_on": False}
    return {"patient": state.patient, "unread": sum(1 for m in state.messages if not m.read),
            "billing_on": state.statements is not None}


def _day_param(request: Request, name: str) -> date | None:
    raw = request.query_params.get(name, "").strip()
    if not raw:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise HTTPException(400, f"“{raw[:20]}” is not a date: use YYYY-MM-DD.") from None


def _range(request: Request) -> tuple[date | None, date | None]:
    start, end = _day_param(request, "from"), _day_param(request, "to")
    if start and end and end < start:
        raise HTTPException(400, "The end date comes before the start date: swap them.")
    return start, end


def _visit(state: ClinicState, appointment: Appointment) -> dict[str, Any]:
    provider = state.provider(appointment.provider_id)
    assert provider is not None
    return {"a": appointment, "provider": provider, "location": state.location(provider.location_id),
            "form": state.form_for(appointment.id), "video": state.video_for(appointment.id),
            "label": f"{provider.specialty} with {provider.name}, {day_label(appointment.start)} at "
                     f"{time_label(appointment.start)}"}


def _free_slots(state: ClinicState, episode: SiteEpisode, provider_id: str, start: date | None = None,
                end: date | None = None) -> list[tuple[str, list[Any]]]:
    """The provider's open times after now, grouped by day (in order)."""
    now = iso(episode.clock.now())
    days: dict[str, list[Any]] = {}
    for slot in sorted(state.slots, key=lambda s: s.start):
        if slot.provider_id != provider_id or slot.taken or slot.start <= now:
            continue
        day = date.fromisoformat(slot.start[:10])
        if (start and day < start) or (end and day > end):
            continue
        days.setdefault(slot.start[:10], []).append(slot)
    return [(day_label(slots[0].start), slots) for slots in days.values()]


def page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def render(episode: SiteEpisode, request: Request, template: str, **context: Any) -> HTMLResponse:
        return ui.render(episode, template, notice=notice_of(request, NOTICES), **context)

    @router.get("/", response_class=HTMLResponse)
    @hook_point("home", "page")
    async def home(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        upcoming = sorted((a for a in state.appointments if a.status == "booked"), key=lambda a: a.start)
        recent = sorted(state.results, key=lambda r: r.collected_at, reverse=True)[:3]
        episode.emit.navigate("view_home", None, appointment_ids=[a.id for a in upcoming])
        return render(episode, request, "home.html", title="Home", active="home",
                      upcoming=[_visit(state, a) for a in upcoming[:3]], recent=recent,
                      providers={p.id: p for p in state.providers},
                      due_forms=[a for a in upcoming if state.form_for(a.id) is None][:1])

    # -- find care and book ------------------------------------------------------------------------------

    @router.get("/providers", response_class=HTMLResponse)
    @hook_point("providers", "page")
    async def providers(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        specialties = sorted({p.specialty for p in state.providers})
        specialty = request.query_params.get("specialty", "")
        location = request.query_params.get("location", "")
        if specialty and specialty not in specialties:
            raise HTTPException(400, f"There is no specialty called “{specialty[:40]}”.")
        if location and state.location(location) is None:
            raise HTTPException(400, "Choose one of our locations.")
        name = " ".join(request.query_params.get("name", "").split())
        if len(name) > NAME_QUERY_MAX:
            raise HTTPException(400, f"A doctor's name is at most {NAME_QUERY_MAX} characters.")
        new_patients = request.query_params.get("accepting", "")
        if new_patients not in ("", "1"):
            raise HTTPException(400, "accepting is 1 (only doctors accepting new patients) or absent.")
        shown = [p for p in state.providers
                 if (not specialty or p.specialty == specialty) and (not location or p.location_id == location)
                 and (not name or name.casefold() in p.name.casefold()) and (not new_patients or p.accepting)]
        rows = [{"p": p, "location": state.location(p.location_id),
                 "next": (_free_slots(state, episode, p.id) or [("No openings", [])])[0][0]} for p in shown]
        if specialty or location or name or new_patients:
            episode.emit.filter("find_care", None, specialty=specialty, location=location,
                                results=[p.id for p in shown])
        else:
            episode.emit.navigate("find_care", None, results=[p.id for p in shown])
        return render(episode, request, "providers.html", title="Find care", active="care", rows=rows,
                      specialties=specialties, locations=state.locations, specialty=specialty, location=location,
                      name=name, new_patients=bool(new_patients), referrals_on=state.referrals is not None)

    @router.get("/providers/{provider_id}", response_class=HTMLResponse)
    @hook_point("provider", "page", target=lambda kw: kw["provider_id"])
    async def provider_page(provider_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        provider = get_or_404(state.providers, provider_id, detail=not_found("provider"))
        start, end = _range(request)
        today = episode.clock.now().date()
        if start and start < today:
            raise HTTPException(400, "That date is in the past: choose today or later.")
        calendar = _free_slots(state, episode, provider.id, start, end)
        episode.emit.inspect("view_provider", provider.id, revealed=["first_name", "languages", "slots"],
                             slot_ids=[s.id for _, day in calendar for s in day])
        return render(episode, request, "provider.html", title=provider.name, active="care", provider=provider,
                      location=state.location(provider.location_id), calendar=calendar,
                      start=start.isoformat() if start else "", end=end.isoformat() if end else "")

    @router.get("/book/{slot_id}", response_class=HTMLResponse)
    @hook_point("book_page", "page", target=lambda kw: kw["slot_id"])
    async def book_page(slot_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        slot = get_or_404(state.slots, slot_id, detail=not_found("appointment time"))
        if slot.taken or slot.start <= iso(episode.clock.now()):
            raise HTTPException(409, "That time is no longer available. Go back and choose another one.")
        provider = get_or_404(state.providers, slot.provider_id, detail=not_found("provider"))
        episode.emit.navigate("view_book", slot.id, provider=provider.id)
        return render(episode, request, "book.html", title="Confirm your appointment", active="care", slot=slot,
                      provider=provider, location=state.location(provider.location_id),
                      refusal=referral_refusal(state, provider, episode.clock.now().date().isoformat()))

    # -- appointments --------------------------------------------------------------------------------------

    @router.get("/appointments", response_class=HTMLResponse)
    @hook_point("appointments", "page")
    async def appointments(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        upcoming = sorted((a for a in state.appointments if a.status == "booked"), key=lambda a: a.start)
        past = sorted((a for a in state.appointments if a.status != "booked"), key=lambda a: a.start, reverse=True)
        episode.emit.navigate("view_appointments", None, appointment_ids=[a.id for a in upcoming + past])
        return render(episode, request, "appointments.html", title="Appointments", active="appointments",
                      upcoming=[_visit(state, a) for a in upcoming], past=[_visit(state, a) for a in past])

    @router.get("/appointments/{appointment_id}", response_class=HTMLResponse)
    @hook_point("appointment", "page", target=lambda kw: kw["appointment_id"])
    async def appointment_page(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        visit = _visit(state, get_or_404(state.appointments, appointment_id, detail=not_found("appointment")))
        episode.emit.inspect("view_appointment", appointment_id, revealed=["provider", "start", "status"])
        return render(episode, request, "appointment.html", title="Appointment details", active="appointments",
                      v=visit, reasons=CANCEL_REASONS, cost=visit_cost(state, visit["a"]),
                      statement=state.statement_for(appointment_id), now=iso(episode.clock.now()),
                      summary=state.summary_for(appointment_id),
                      card=next((c for c in state.insurance_cards if visit["form"] and
                                 c.id == visit["form"].insurance_card_id), None))

    @router.get("/appointments/{appointment_id}/reschedule", response_class=HTMLResponse)
    @hook_point("reschedule_page", "page", target=lambda kw: kw["appointment_id"])
    async def reschedule_page(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment = get_or_404(state.appointments, appointment_id, detail=not_found("appointment"))
        if appointment.status != "booked":
            raise HTTPException(409, f"This appointment is {appointment.status}; it can't be rescheduled.")
        visit = _visit(state, appointment)
        episode.emit.navigate("view_reschedule", appointment.id)
        return render(episode, request, "reschedule.html", title="Reschedule", active="appointments", v=visit,
                      calendar=_free_slots(state, episode, appointment.provider_id))

    @router.get("/appointments/{appointment_id}/cancel", response_class=HTMLResponse)
    @hook_point("cancel_page", "page", target=lambda kw: kw["appointment_id"])
    async def cancel_page(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment = get_or_404(state.appointments, appointment_id, detail=not_found("appointment"))
        if appointment.status != "booked":
            raise HTTPException(409, f"This appointment is {appointment.status}; it can't be cancelled.")
        episode.emit.navigate("view_cancel", appointment.id)
        return render(episode, request, "cancel.html", title="Cancel appointment", active="appointments",
                      v=_visit(state, appointment), reasons=CANCEL_REASONS)

    @router.get("/appointments/{appointment_id}/previsit", response_class=HTMLResponse)
    @hook_point("previsit_page", "page", target=lambda kw: kw["appointment_id"])
    async def previsit_page(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment = get_or_404(state.appointments, appointment_id, detail=not_found("appointment"))
        if appointment.status != "booked":
            raise HTTPException(409, f"This appointment is {appointment.status}; there is no form to fill.")
        if state.form_for(appointment.id) is not None:
            raise HTTPException(409, "You already submitted the pre-visit form for this appointment.")
        episode.emit.navigate("view_previsit", appointment.id)
        cards = sorted(state.insurance_cards, key=lambda c: not c.primary)
        return render(episode, request, "previsit.html", title="Pre-visit form", active="appointments",
                      v=_visit(state, appointment), cards=cards, today=episode.clock.now().date().isoformat(),
                      medications=state.medications)

    # -- messages ------------------------------------------------------------------------------------------

    @router.get("/messages", response_class=HTMLResponse)
    @hook_point("messages", "page")
    async def messages(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        listed = sorted(state.messages, key=lambda m: (m.sent_at, m.id), reverse=True)
        episode.emit.navigate("view_messages", None, message_ids=[m.id for m in listed])
        return render(episode, request, "messages.html", title="Messages", active="messages", listed=listed,
                      providers={p.id: p for p in state.providers})

    @router.get("/messages/new", response_class=HTMLResponse)
    @hook_point("compose", "page")
    async def compose(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        result_id = request.query_params.get("result", "")
        result = get_or_404(state.results, result_id, detail=not_found("test result")) if result_id else None
        reply_id = request.query_params.get("reply", "")
        replying = get_or_404(state.messages, reply_id, detail=not_found("message")) if reply_id else None
        to = (request.query_params.get("provider", "") or (result.ordered_by if result else "")
              or (replying.provider_id if replying else ""))
        if to:
            get_or_404(state.providers, to, detail=not_found("provider"))
        subject = (f"Question about my {result.test} result" if result else
                   f"Re: {replying.subject}" if replying else "")
        episode.emit.navigate("view_compose", result.id if result else replying.id if replying else None)
        return render(episode, request, "compose.html", title="New message", active="messages",
                      providers=sorted(state.providers, key=lambda p: (p.last_name, p.first_name)), to=to,
                      result=result, replying=replying, subject=subject)

    @router.get("/messages/{message_id}", response_class=HTMLResponse)
    @hook_point("message", "page", target=lambda kw: kw["message_id"])
    async def message_page(message_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        message = get_or_404(state.messages, message_id, detail=not_found("message"))
        episode.emit.inspect("view_message", message.id, revealed=["body"])
        return render(episode, request, "message.html", title=message.subject, active="messages", m=message,
                      provider=state.provider(message.provider_id),
                      result=state.result(message.result_id) if message.result_id else None)

    # -- results ---------------------------------------------------------------------------------------------

    @router.get("/results", response_class=HTMLResponse)
    @hook_point("results", "page")
    async def results(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        start, end = _range(request)
        listed = [r for r in sorted(state.results, key=lambda r: (r.collected_at, r.id), reverse=True)
                  if (not start or r.collected_at[:10] >= start.isoformat())
                  and (not end or r.collected_at[:10] <= end.isoformat())]
        if start or end:
            episode.emit.filter("view_results", None, results=[r.id for r in listed])
        else:
            episode.emit.navigate("view_results", None, results=[r.id for r in listed])
        return render(episode, request, "results.html", title="Test results", active="results", listed=listed,
                      providers={p.id: p for p in state.providers}, start=start.isoformat() if start else "",
                      end=end.isoformat() if end else "")

    @router.get("/results/{result_id}", response_class=HTMLResponse)
    @hook_point("result", "page", target=lambda kw: kw["result_id"])
    async def result_page(result_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        result = get_or_404(state.results, result_id, detail=not_found("test result"))
        episode.emit.inspect("view_result", result.id, revealed=["components", "flags", "comment"])
        return render(episode, request, "result.html", title=result.test, active="results", r=result,
                      provider=state.provider(result.ordered_by))

    # -- medications -------------------------------------------------------------------------------------

    @router.get("/medications", response_class=HTMLResponse)
    @hook_point("medications", "page")
    async def medications(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        requested = {r.medication_id: r for r in state.refill_requests}
        episode.emit.navigate("view_medications", None, medication_ids=[m.id for m in state.medications])
        return render(episode, request, "medications.html", title="Medications", active="medications",
                      medications=state.medications, providers={p.id: p for p in state.providers},
                      requested=requested, pharmacies={p.id: p for p in state.pharmacies})

    @router.get("/medications/{medication_id}/refill", response_class=HTMLResponse)
    @hook_point("refill_page", "page", target=lambda kw: kw["medication_id"])
    async def refill_page(medication_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        medication = get_or_404(state.medications, medication_id, detail=not_found("medication"))
        if medication.refills_left < 1:
            raise HTTPException(409, f"{medication.name} has no refills left. Message your provider instead.")
        episode.emit.navigate("view_refill", medication.id)
        return render(episode, request, "refill.html", title=f"Refill {medication.name}", active="medications",
                      m=medication, pharmacies=state.pharmacies, prescriber=state.provider(medication.prescriber_id))

    # -- profile ------------------------------------------------------------------------------------------

    @router.get("/profile", response_class=HTMLResponse)
    @hook_point("profile", "page")
    async def profile(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        today = episode.clock.now().date().isoformat()
        episode.emit.navigate("view_profile", None)
        return render(episode, request, "profile.html", title="Profile", active="profile", p=state.patient,
                      cards=state.insurance_cards, today=today, contacts=state.contacts,
                      photos=None if state.card_photos is None else {p.card_id: p for p in state.card_photos},
                      proxies_on=state.proxies is not None,
                      relationships=RELATIONSHIPS)

    return router

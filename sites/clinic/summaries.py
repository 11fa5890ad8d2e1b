"""After-visit summaries (focus `follow_up`): a visit last week with an orthopedist left a summary to download
from the visit's page; it says when to come back (in N weeks: the week of a given Monday). The doctor has
openings before that week too, so the first opening is not the follow-up.

Bindings:
    follow_up: {visit_id, visit_day, provider_id, provider_name, specialty, weeks, week_of, slot_id, day, time,
                date, first_open_slot_id, reason}
"""

from datetime import date, datetime, timedelta
from random import Random
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from scenarios.clock import EpisodeClock, iso
from sites.clinic import content as C
from sites.clinic.models import Appointment, ClinicEpisode, ClinicState, Slot, VisitSummary
from sites.kit.dates import day_label, time_label
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.templating import Pages

INSTRUCTIONS = ("Ice the knee for 15 minutes three times a day.", "Keep the knee raised when you sit.",
                "Do the stretches on the handout twice a day.", "Avoid running and jumping until the follow-up.")


def _free(state: ClinicState, provider_id: str, first: date, last: date, after: str) -> list[Slot]:
    return sorted((s for s in state.slots if s.provider_id == provider_id and not s.taken and s.start > after
                   and first.isoformat() <= s.start[:10] <= last.isoformat()), key=lambda s: s.start)


def follow_up(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    doctor = state.providers[rng.choice((C.ORTHO_ROW, C.ORTHO_ROW + 1))]
    today = clock.epoch.date()
    ago = next(n for n in range(rng.randint(3, 8), 20) if (today - timedelta(days=n)).weekday() < 5)
    visit_day = today - timedelta(days=ago)
    start = datetime(visit_day.year, visit_day.month, visit_day.day, rng.choice((9, 10, 14)), 0)
    visit = Appointment(id=state.take_id("appointment", "ap"), provider_id=doctor.id, slot_id=None,
                        start=iso(start), visit_reason="Knee pain", status="completed",
                        booked_at=iso(start - timedelta(days=rng.randint(7, 20))))
    state.appointments.append(visit)
    # Come back in the week of the second Monday from now: the doctor has openings before it too.
    monday = today + timedelta(days=14 - today.weekday())
    friday = monday + timedelta(days=4)
    now = iso(clock.now())
    if not _free(state, doctor.id, monday, friday, now):
        state.slots.append(Slot(id=state.take_id("slot", "s"), provider_id=doctor.id,
                                start=f"{(monday + timedelta(days=2)).isoformat()}T10:00:00Z", minutes=30))
    if not _free(state, doctor.id, today, monday - timedelta(days=1), now):
        state.slots.append(Slot(id=state.take_id("slot", "s"), provider_id=doctor.id,
                                start=f"{(today + timedelta(days=1 if today.weekday() < 4 else 3)).isoformat()}"
                                      "T15:00:00Z", minutes=30))
    slot = _free(state, doctor.id, monday, friday, now)[0]
    first_open = _free(state, doctor.id, today, friday, now)[0]
    weeks = round((monday - visit_day).days / 7)
    state.visit_summaries = [VisitSummary(
        id=state.take_id("summary", "vs"), appointment_id=visit.id,
        diagnosis=rng.choice(("Strained ligament of the left knee", "Irritated kneecap tendon (patellar tendinitis)")),
        instructions=rng.sample(INSTRUCTIONS, 3), follow_up_weeks=weeks, follow_up_week_of=monday.isoformat())]
    bindings["follow_up"] = {
        "visit_id": visit.id, "visit_day": day_label(visit.start), "provider_id": doctor.id,
        "provider_name": doctor.name, "specialty": doctor.specialty, "weeks": weeks,
        "week_of": monday.isoformat(), "slot_id": slot.id, "day": day_label(slot.start),
        "time": time_label(slot.start), "date": slot.start[:10], "first_open_slot_id": first_open.id,
        "reason": "Follow-up on knee pain"}
    bindings["target"] = {"id": visit.id, "name": f"follow-up with {doctor.name}"}


def summary_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/appointments/{appointment_id}/summary", response_class=HTMLResponse)
    @hook_point("visit_summary", "page", target=lambda kw: kw["appointment_id"])
    async def summary(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment = get_or_404(state.appointments, appointment_id, detail=not_found("appointment"))
        written = state.summary_for(appointment.id)
        if written is None:
            raise HTTPException(404, "There is no after-visit summary for this appointment.")
        provider = state.provider(appointment.provider_id)
        assert provider is not None
        monday = date.fromisoformat(written.follow_up_week_of)
        episode.emit.inspect("download_summary", appointment.id, revealed=["follow_up"])
        page = ui.render(episode, "summary.html", s=written, visit=appointment, provider=provider,
                         location=state.location(provider.location_id), patient=state.patient,
                         monday=f"{monday.isoformat()}T00:00:00Z", friday=(monday + timedelta(days=4)).isoformat())
        # a document to keep: the browser saves it rather than showing it
        page.headers["Content-Disposition"] = (f'attachment; filename="after-visit-summary-'
                                               f'{appointment.start[:10]}.html"')
        return page

    return router

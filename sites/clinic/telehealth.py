"""Video visits (focus `telehealth`): check in for a visit held by video, wait in the waiting room until a
nurse admits you, then join.

The world has a video visit with a family doctor starting in a few minutes (check-in is open) and a later one
with another doctor (check-in not open yet). The waiting room asks the site every moment whether the patient
has been admitted; the nurse admits on the third check after check-in, so the wait is the same on every run
(counted in checks, never read off a clock).

Bindings:
    telehealth: {appointment_id, video_id, provider_name, specialty, day, time, state, phone, symptoms, nurse,
                 later_appointment_id, later_provider_name, later_day, later_opens, later_opens_day}
"""

from datetime import timedelta
from random import Random
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from scenarios.clock import EpisodeClock, iso
from sites.clinic import content as C
from sites.clinic.models import (
    VIDEO_STATES,
    Appointment,
    CheckInBody,
    ClinicEpisode,
    ClinicState,
    VideoVisit,
)
from sites.kit.dates import day_label, time_label
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.notices import notice_of
from sites.kit.templating import Pages

ADMITTED_ON_CHECK = 3   # the waiting room's third check after check-in finds the nurse ready
CHECK_IN_OPENS = timedelta(minutes=30)
NURSES = ("Nurse Alex Rivera", "Nurse Jamie Osei", "Nurse Morgan Lee", "Nurse Taylor Brandt", "Nurse Casey Quinn")
NOTICES = {"checked_in": "You're checked in"}


def telehealth(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    doctor = state.providers[rng.choice((1, 2))]   # a family doctor at another location than the default tasks'
    other = state.providers[C.ENDO_ROW]
    now = clock.epoch.replace(tzinfo=None, second=0, microsecond=0)
    start = now + timedelta(minutes=10 + (-(now.minute + 10)) % 15)   # the next quarter hour, 10-24 min away
    later = (now + timedelta(days=rng.randint(3, 8))).replace(hour=rng.choice((10, 11, 15)), minute=0)

    def book(provider_id: str, when: str, reason: str) -> Appointment:
        record = Appointment(id=state.take_id("appointment", "ap"), provider_id=provider_id, slot_id=None,
                             start=when, visit_reason=reason, status="booked",
                             booked_at=clock.ago(days=rng.randint(2, 12), minutes=rng.randint(0, 600)))
        state.appointments.append(record)
        return record

    today = book(doctor.id, iso(start), rng.choice(("Cough that won't go away", "Medication review",
                                                     "Follow-up on blood pressure")))
    next_one = book(other.id, iso(later), "Video review of thyroid medication")
    licensed = ["Washington", "Oregon"]
    nurse = rng.choice(NURSES)
    state.video_visits = [
        VideoVisit(id=state.take_id("video", "vv"), appointment_id=a.id, opens_at=iso(at - CHECK_IN_OPENS),
                   licensed_in=licensed, nurse=nurse if a is today else rng.choice([n for n in NURSES if n != nurse]))
        for a, at in ((today, start), (next_one, later))]
    bindings["telehealth"] = {
        "appointment_id": today.id, "video_id": state.video_visits[0].id, "provider_name": doctor.name,
        "specialty": doctor.specialty, "day": day_label(today.start), "time": time_label(today.start),
        "state": rng.choice(licensed), "phone": f"(555) {rng.randint(200, 989)}-{rng.randint(1000, 9999)}",
        "symptoms": rng.choice(("A dry cough at night since last week", "Mild headaches in the afternoon",
                                "Ankles swell by the evening")),
        "nurse": nurse, "later_appointment_id": next_one.id, "later_provider_name": other.name,
        "later_day": day_label(next_one.start), "later_opens": time_label(state.video_visits[1].opens_at),
        "later_opens_day": day_label(state.video_visits[1].opens_at)}
    bindings["target"] = {"id": today.id, "name": f"video visit with {doctor.name}"}


def _video(state: ClinicState, appointment_id: str, api: bool = False) -> tuple[Appointment, VideoVisit]:
    if state.video_visits is None:
        raise HTTPException(404, "Video visits are not available on this account.")
    appointment = get_or_404(state.appointments, appointment_id, "appointment" if api else "",
                             detail=None if api else not_found("appointment"))
    video = state.video_for(appointment.id)
    if video is None:
        raise HTTPException(404, "This appointment is in person: there is nothing to check in to online.")
    if appointment.status != "booked":
        raise HTTPException(409, f"This appointment is {appointment.status}.")
    return appointment, video


def _open(episode: SiteEpisode, video: VideoVisit) -> None:
    if video.opens_at > iso(episode.clock.now()):
        raise HTTPException(409, "Check-in opens 30 minutes before your visit. Please come back then.")


def video_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def render(episode: SiteEpisode, request: Request, template: str, **context: Any) -> HTMLResponse:
        return ui.render(episode, template, notice=notice_of(request, NOTICES), **context)

    def view(state: ClinicState, appointment: Appointment) -> dict[str, Any]:
        provider = state.provider(appointment.provider_id)
        assert provider is not None
        return {"a": appointment, "provider": provider}

    @router.get("/appointments/{appointment_id}/check-in", response_class=HTMLResponse)
    @hook_point("check_in_page", "page", target=lambda kw: kw["appointment_id"])
    async def check_in_page(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment, video = _video(state, appointment_id)
        _open(episode, video)
        if video.checked_in_at is not None:
            raise HTTPException(409, "You're already checked in: go to the waiting room.")
        episode.emit.navigate("view_check_in", appointment.id)
        return render(episode, request, "check_in.html", title="Check in for your video visit",
                      active="appointments", states=VIDEO_STATES, phone=state.patient.phone,
                      **view(state, appointment))

    @router.get("/appointments/{appointment_id}/waiting-room", response_class=HTMLResponse)
    @hook_point("waiting_room", "page", target=lambda kw: kw["appointment_id"])
    async def waiting_room(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment, video = _video(state, appointment_id)
        if video.checked_in_at is None:
            raise HTTPException(409, "Check in first: the waiting room opens once you have.")
        episode.emit.navigate("view_waiting_room", appointment.id)
        return render(episode, request, "waiting_room.html", title="Waiting room", active="appointments", v=video,
                      **view(state, appointment))

    @router.get("/appointments/{appointment_id}/video", response_class=HTMLResponse)
    @hook_point("video_room", "page", target=lambda kw: kw["appointment_id"])
    async def video_room(appointment_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        appointment, video = _video(state, appointment_id)
        if video.joined_at is None:
            raise HTTPException(409, "You haven't joined this visit yet: wait in the waiting room to be admitted.")
        episode.emit.inspect("view_video_room", appointment.id, revealed=["nurse"])
        return render(episode, request, "video_room.html", title="Your video visit", active="appointments",
                      v=video, **view(state, appointment))

    return router


def video_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/appointments/{appointment_id}/check-in", status_code=201)
    @hook_point("check_in", "write", target=lambda kw: kw["appointment_id"])
    async def check_in(appointment_id: str, body: CheckInBody, request: Request,
                       episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        appointment, video = _video(state, appointment_id, api=True)
        _open(episode, video)
        if video.checked_in_at is not None:
            raise HTTPException(409, "You're already checked in.")
        if body.located_in not in video.licensed_in:
            raise HTTPException(409, f"Your clinician can only see you by video while you are in "
                                     f"{' or '.join(video.licensed_in)}.")
        if body.new_symptoms and not body.symptoms:
            raise HTTPException(422, "symptoms: describe your new symptoms in a few words")
        if not body.consent:
            raise HTTPException(422, "consent: you need to consent to care by video to check in")
        video.checked_in_at = episode.clock.stamp()
        video.located_in, video.callback_phone = body.located_in, body.callback_phone
        video.new_symptoms, video.symptoms, video.consent = body.new_symptoms, body.symptoms, True
        episode.emit.commit("check_in", video.id, appointment=appointment.id, touched=[video.id])
        return {"video": video.id, "url": f"/appointments/{appointment.id}/waiting-room"}

    @router.get("/appointments/{appointment_id}/waiting")
    @hook_point("waiting", "read", target=lambda kw: kw["appointment_id"])
    async def waiting(appointment_id: str, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        _appointment, video = _video(state, appointment_id, api=True)
        if video.checked_in_at is None:
            raise HTTPException(409, "Check in first.")
        if not video.admitted:
            video.polls += 1
            video.admitted = video.polls >= ADMITTED_ON_CHECK
        return {"admitted": video.admitted, "nurse": video.nurse if video.admitted else None}

    @router.post("/appointments/{appointment_id}/join")
    @hook_point("join_video", "write", target=lambda kw: kw["appointment_id"])
    async def join(appointment_id: str, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        appointment, video = _video(state, appointment_id, api=True)
        if not video.admitted:
            raise HTTPException(409, "Please wait: you'll be able to join once you've been admitted.")
        if video.joined_at is None:
            video.joined_at = episode.clock.stamp()
            episode.emit.commit("join_video", video.id, appointment=appointment.id, touched=[video.id])
        return {"video": video.id, "url": f"/appointments/{appointment.id}/video"}

    return router

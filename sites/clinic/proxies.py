"""Proxy access (focus `proxy`): people the patient lets see their portal, for everything or for chosen parts,
until a date; access can be revoked (the record stays, with when).

The world has one person with full access already (who should lose it in the task) and one whose access
already ended.

Bindings:
    proxy: {name, email, relationship, relationship_label, areas, area_labels, ends_on, old_id, old_name,
            ended_id}
"""

from datetime import date, timedelta
from random import Random
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import Field, StringConstraints, field_validator

from scenarios.clock import EpisodeClock
from sites.clinic.models import RELATIONSHIPS, ClinicEpisode, ClinicState, ProxyGrant, Relationship
from sites.kit.bodies import Day
from sites.kit.bodies import RequestBody as _Body
from sites.kit.bodies import no_markup as _no_markup
from sites.kit.bodies import text as _text
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.notices import notice_of
from sites.kit.templating import Pages

Area = Literal["appointments", "messages", "results", "billing", "medications"]
AREAS: dict[str, str] = {"appointments": "Appointments", "messages": "Messages", "results": "Test results",
                         "billing": "Billing", "medications": "Medications"}
MAX_ACTIVE = 3
MAX_DAYS = 366  # access is given for a year at most, then asked for again
NOTICES = {"granted": "Access given", "revoked": "Access revoked"}
PEOPLE = (("Maya", "daughter", "child"), ("Jonas", "son", "child"), ("Elif", "sister", "sibling"),
          ("Omar", "brother", "sibling"))


class ProxyBody(_Body):
    name: Annotated[str, _text(2, 80)]
    email: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=5, max_length=120,
                                            pattern=r"^[^@\s<>]+@[^@\s<>]+\.[A-Za-z]{2,}$")]
    relationship: Relationship
    scope: Literal["full", "limited"]
    areas: Annotated[list[Area], Field(max_length=5)] = []
    ends_on: Day
    understood: bool

    _plain = field_validator("name")(classmethod(lambda cls, v: _no_markup(v)))

    @field_validator("understood", mode="before")
    @classmethod
    def _strict_bool(cls, value: object) -> object:
        if not isinstance(value, bool):
            raise ValueError("true or false")
        return value


def proxy(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    today = clock.epoch.date()
    surname = state.patient.name.split()[-1]
    first, word, relationship = rng.choice(PEOPLE)
    old_first, ended_first = rng.sample([p for p in ("Robin", "Chris", "Pat", "Lee") if p != first], 2)
    old = ProxyGrant(id=state.take_id("proxy", "px"), name=f"{old_first} Fontaine",
                     email=f"{old_first.lower()}.fontaine@example.net", relationship="partner", scope="full",
                     areas=[], ends_on=(today + timedelta(days=rng.randint(90, 200))).isoformat(),
                     granted_at=clock.ago(days=rng.randint(200, 400)))
    ended = ProxyGrant(id=state.take_id("proxy", "px"), name=f"{ended_first} {surname}",
                       email=f"{ended_first.lower()}.{surname.lower()}@example.org", relationship="parent",
                       scope="limited", areas=["appointments"],
                       ends_on=(today - timedelta(days=rng.randint(10, 90))).isoformat(),
                       granted_at=clock.ago(days=rng.randint(400, 500)))
    state.proxies = [old, ended]
    areas = ["appointments", "billing"] if rng.random() < 0.5 else ["appointments", "medications"]
    bindings["proxy"] = {
        "name": f"{first} {surname}", "email": f"{first.lower()}.{surname.lower()}@example.com",
        "word": word, "relationship": relationship, "relationship_label": relationship.capitalize(),
        "areas": areas, "area_labels": [AREAS[a] for a in areas],
        "ends_on": (today + timedelta(days=rng.randint(60, 180))).isoformat(),
        "old_id": old.id, "old_name": old.name, "ended_id": ended.id}
    bindings["target"] = {"id": old.id, "name": old.name}


def _proxies(state: ClinicState) -> list[ProxyGrant]:
    if state.proxies is None:
        raise HTTPException(404, "Proxy access is not available on this account.")
    return state.proxies


def _active(grant: ProxyGrant, today: str) -> bool:
    return grant.revoked_at is None and grant.ends_on >= today


def proxy_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def render(episode: SiteEpisode, request: Request, template: str, **context: Any) -> HTMLResponse:
        return ui.render(episode, template, notice=notice_of(request, NOTICES), **context)

    @router.get("/profile/proxies", response_class=HTMLResponse)
    @hook_point("proxies", "page")
    async def proxies(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        grants = _proxies(episode.state)
        today = episode.clock.now().date().isoformat()
        episode.emit.navigate("view_proxies", None, proxy_ids=[g.id for g in grants])
        return render(episode, request, "proxies.html", title="Proxy access", active="profile",
                      active_grants=[g for g in grants if _active(g, today)],
                      past_grants=[g for g in grants if not _active(g, today)], areas=AREAS,
                      relationships=RELATIONSHIPS, today=today)

    return router


def proxy_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/profile/proxies", status_code=201)
    @hook_point("grant_proxy", "write")
    async def grant(body: ProxyBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        grants = _proxies(state)
        today = episode.clock.now().date()
        try:
            ends = date.fromisoformat(body.ends_on)
        except ValueError:
            raise HTTPException(422, "ends_on: not a real date (use YYYY-MM-DD)") from None
        if ends <= today:
            raise HTTPException(422, "ends_on: access must end after today")
        if ends > today + timedelta(days=MAX_DAYS):
            raise HTTPException(422, "ends_on: access can be given for a year at most")
        if body.scope == "limited" and not body.areas:
            raise HTTPException(422, "areas: choose what they can see")
        if not body.understood:
            raise HTTPException(422, "understood: confirm that they will see your health information")
        active = [g for g in grants if _active(g, today.isoformat())]
        if any(g.email.casefold() == body.email.casefold() for g in active):
            raise HTTPException(409, f"{body.email} already has access to your portal.")
        if len(active) >= MAX_ACTIVE:
            raise HTTPException(409, f"At most {MAX_ACTIVE} people can have access at once: revoke someone first.")
        made = ProxyGrant(id=state.take_id("proxy", "px"), name=body.name, email=body.email,
                          relationship=body.relationship, scope=body.scope,
                          areas=[a for a in AREAS if a in body.areas] if body.scope == "limited" else [],
                          ends_on=ends.isoformat(), granted_at=episode.clock.stamp())
        grants.append(made)
        episode.emit.commit("grant_proxy", made.id, scope=made.scope, touched=[made.id])
        return {"proxy": made.model_dump()}

    @router.delete("/profile/proxies/{proxy_id}")
    @hook_point("revoke_proxy", "write", target=lambda kw: kw["proxy_id"])
    async def revoke(proxy_id: str, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(_proxies(state), proxy_id, "proxy")
        if not _active(found, episode.clock.now().date().isoformat()):
            raise HTTPException(409, f"{found.name} no longer has access.")
        found.revoked_at = episode.clock.stamp()
        episode.emit.commit("revoke_proxy", found.id, touched=[found.id])
        return {"proxy": found.model_dump()}

    return router

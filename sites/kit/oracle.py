"""The oracle API: episodes' lifecycle and ground truth. Served on its own loopback port."""

from typing import Any

from fastapi import Body, FastAPI, HTTPException, Query, Response
from pydantic import BaseModel, Field

from scenarios.faults import Layer
from scenarios.feed import BATCH_LIMIT, CLOSED_STATUS, MAX_WAIT_S, TooManyReaders
from sites.kit.arming import ArmError, arm_site_fault, describe, disarm_site_fault
from sites.kit.episode import SiteEpisode
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore


class CreateEpisode(BaseModel):
    site: str
    task_id: str
    seed: int = Field(ge=0)
    variant_id: str | None = None
    episode_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9._-]{1,120}$")
    setup: WorldSetup = WorldSetup()
    faults: list[dict[str, Any]] = Field(
        default_factory=list, description="seed- and server-layer fault envelopes"
    )


class EpisodeInfo(BaseModel):
    episode_id: str
    site: str
    task_id: str
    variant_id: str | None
    seed: int
    base_url: str
    bindings: dict[str, Any]
    events: int
    readers: int = Field(description="event readers waiting (long polls) right now")


def _info(store: EpisodeStore, episode: SiteEpisode) -> EpisodeInfo:
    return EpisodeInfo(
        episode_id=episode.id, site=episode.site, task_id=episode.task_id,
        variant_id=episode.variant_id, seed=episode.seed,
        base_url=f"http://{store.sites[episode.site].host}", bindings=episode.bindings,
        events=len(episode.events), readers=episode.feed.readers,
    )


def oracle_app(store: EpisodeStore) -> FastAPI:
    app = FastAPI(title="webchaos oracle", docs_url=None, redoc_url=None)

    def get(episode_id: str) -> SiteEpisode:
        episode = store.get(episode_id)
        if episode is None:
            raise HTTPException(404, f"episode {episode_id!r} is not open")
        return episode

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"ok": True, "episodes": len(store), "sites": {n: s.host for n, s in store.sites.items()}}

    @app.post("/episodes", status_code=201)
    async def create(body: CreateEpisode) -> EpisodeInfo:
        try:
            episode = store.create(
                site=body.site, task_id=body.task_id, seed=body.seed, setup=body.setup,
                variant_id=body.variant_id, episode_id=body.episode_id, faults=body.faults,
            )
        except KeyError as exc:
            raise HTTPException(404, str(exc.args[0])) from exc
        except ValueError as exc:
            raise HTTPException(409 if "exists" in str(exc) else 422, str(exc)) from exc
        return _info(store, episode)

    @app.get("/episodes")
    async def list_episodes() -> list[EpisodeInfo]:
        return [_info(store, e) for e in store]

    @app.get("/episodes/{episode_id}")
    async def info(episode_id: str) -> EpisodeInfo:
        return _info(store, get(episode_id))

    @app.get("/episodes/{episode_id}/state/initial")
    async def initial_state(episode_id: str) -> Response:
        return Response(get(episode_id).initial_state, media_type="application/json")

    @app.get("/episodes/{episode_id}/state")
    async def current_state(episode_id: str) -> Response:
        return Response(get(episode_id).state_bytes(), media_type="application/json")

    @app.get("/episodes/{episode_id}/events")
    async def events(episode_id: str, since: int = Query(default=0, ge=0),
                     wait_s: float = Query(default=0.0, ge=0, le=MAX_WAIT_S)) -> Response:
        """The semantic events so far, from the `since`-th on. With `wait_s`, a long poll
        (scenarios/feed.py): when there is none yet, the answer waits for the next (at most `wait_s`
        seconds, then `[]`) and carries at most BATCH_LIMIT; 410 once the episode is closed and
        nothing is left, 429 beside too many waiting readers."""
        episode = get(episode_id)
        if not wait_s:
            fresh = episode.events[since:]
        else:
            try:
                await episode.feed.wait(lambda: len(episode.events) > since, wait_s)
            except TooManyReaders as exc:
                raise HTTPException(429, str(exc)) from exc
            fresh = episode.events[since:since + BATCH_LIMIT]
            if not fresh and episode.feed.closed:
                raise HTTPException(CLOSED_STATUS, f"episode {episode_id!r} is closed")
        body = "[" + ",".join(e.model_dump_json() for e in fresh) + "]"
        return Response(body, media_type="application/json")

    @app.get("/episodes/{episode_id}/faults")
    async def list_faults(episode_id: str) -> list[dict[str, Any]]:
        """The armed server faults."""
        return [describe(f) for f in get(episode_id).faults_of(Layer.server)]

    @app.post("/episodes/{episode_id}/faults", status_code=201)
    async def arm(episode_id: str, envelope: Any = Body(...)) -> dict[str, Any]:
        """Arm a server fault (an envelope as in the catalog) on the open episode, from now on."""
        try:
            return describe(arm_site_fault(get(episode_id), envelope))
        except ArmError as exc:
            raise HTTPException(exc.status, str(exc)) from exc

    @app.delete("/episodes/{episode_id}/faults/{fault_id}")
    async def disarm(episode_id: str, fault_id: str) -> dict[str, Any]:
        try:
            return describe(disarm_site_fault(get(episode_id), fault_id))
        except ArmError as exc:
            raise HTTPException(exc.status, str(exc)) from exc

    @app.get("/episodes/{episode_id}/ledger")
    async def ledger(episode_id: str) -> list[dict[str, Any]]:
        """Seed- and server-layer fault ledger lines, in order (same format as the proxy's)."""
        return get(episode_id).ledger.lines

    @app.delete("/episodes/{episode_id}", status_code=204)
    async def delete(episode_id: str) -> Response:
        if not store.delete(episode_id):
            raise HTTPException(404, f"episode {episode_id!r} is not open")
        return Response(status_code=204)

    return app

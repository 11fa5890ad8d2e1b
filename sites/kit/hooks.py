"""Hook points: where the sites hand control to the seed- and server-layer faults.

- `arm_site_faults`: parse an episode's envelopes and keep the seed and server ones.
- `run_seed_hooks`: once, right after the world is generated (before `initial_state`).
- `hook_point(point, kind)`: decorates a FastAPI endpoint (which must take `request` and
  `episode`); `run_call` is the engine behind it: the session gate, matching, schedule and
  toxicity (`ArmedFault.decide`), before / instead / after hooks, one ledger line per firing,
  and, when a hook raises, a rollback of the state and an explicit 500 with a `hook_error` line.
- `results_point(episode, point, items, pool)`: inside a handler, the list about to be shown.

The hooks a fault type implements are specified in `injectors.hookspec`.
"""

import fnmatch
import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from contextvars import ContextVar
from typing import Any

from fastapi import HTTPException, Request
from fastapi.responses import RedirectResponse

from injectors.hookspec import CallKind, Firing, HookUnsupported, Reply, SeedFault, SeedWorld, ServerCall, ServerFault
from scenarios.faults import SITE_LAYERS, ArmedFault, FaultError, Layer, parse_faults
from sites.kit.episode import SiteEpisode
from sites.kit.session import login_required

logger = logging.getLogger(__name__)

_CURRENT_CALL: ContextVar[ServerCall | None] = ContextVar("webchaos_current_call", default=None)


def arm_site_faults(raw_faults: list[Any], seed: int, site: str,
                    implementations: Mapping[str, object]) -> list[Firing]:
    """Validate every envelope and arm the seed- and server-layer ones for `site`.

    Raises `FaultError` naming the index and the field, also when the site does not implement
    the fault's family (the site and the type named).
    """
    armed: list[Firing] = []
    for spec, params in parse_faults(raw_faults, SITE_LAYERS):
        assert isinstance(params, SeedFault | ServerFault)
        if not params.implemented_by(implementations):
            raise FaultError(f"fault {spec.id!r}: site {site!r} does not implement the {spec.layer.value} "
                             f"fault type {spec.type!r}")
        armed.append(Firing(ArmedFault(spec, params, seed)))
    return armed


def run_seed_hooks(episode: SiteEpisode, host: str, params: dict[str, Any]) -> None:
    """Apply the episode's seed faults, in envelope order, to its fresh world."""
    world = SeedWorld(site=episode.site, host=host, state=episode.state, bindings=episode.bindings,
                      clock=episode.clock, params=params, implementations=episode.implementations)
    for fault in episode.faults_of(Layer.seed):
        kind = fault.armed.params
        assert isinstance(kind, SeedFault)
        match = fault.armed.spec.match
        if match.host is not None and not fnmatch.fnmatchcase(host, match.host.lower()):
            continue
        if not fault.armed.decide(0.0):
            continue
        fault.detail = {}
        try:
            kind.seed(world, fault)
        except HookUnsupported as exc:
            raise FaultError(f"{fault.id}: {exc}") from exc
        except Exception as exc:
            raise FaultError(f"{fault.id}: seed hook failed: {type(exc).__name__}: {exc}") from exc
        episode.ledger.write("seed", kind.name, fault_id=fault.id, detail=fault.detail)
    episode.state = world.state
    episode.bindings = world.bindings


class _HandlerError(Exception):
    """An exception raised by the site's own handler (not by a hook): re-raised untouched."""

    def __init__(self, original: BaseException) -> None:
        super().__init__(str(original))
        self.original = original


class HookFailure(Exception):
    """A hook raised; carries the fault id for the ledger line."""

    def __init__(self, fault_id: str, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.fault_id = fault_id
        self.error = error


def _request_of(call: ServerCall) -> dict[str, str]:
    return {"method": call.method, "host": call.host, "path": call.path}


def _write_firing(episode: SiteEpisode, call: ServerCall, fault: Firing) -> None:
    kind = fault.armed.params
    episode.ledger.write("server", kind.name, fault_id=fault.id, request=_request_of(call),
                         detail={"point": call.point, **fault.detail})
    fault.detail = {}


def _flush_notes(episode: SiteEpisode, call: ServerCall, faults: list[Firing]) -> None:
    for fault in faults:
        for note in fault.notes:
            episode.ledger.write("server", fault.armed.params.name, fault_id=fault.id, request=_request_of(call),
                                 detail={"point": call.point, "note": True, **note})
        fault.notes = []


def _server(fault: Firing) -> ServerFault:
    kind = fault.armed.params
    assert isinstance(kind, ServerFault)
    return kind


async def run_call(episode: SiteEpisode, call: ServerCall, handler: Callable[[], Awaitable[Reply]]) -> Reply:
    """Run one request through the session gate and the episode's server faults."""
    if call.kind != "login" and not episode.signed_in:
        return login_required(call)
    armed = episode.faults_of(Layer.server)
    relevant = [f for f in armed if _server(f).applies_to(call)]
    # Any armed fault may still fire inside this call (e.g. a `results` hook under a page), so the
    # snapshot that lets a failing hook roll back is taken whenever the episode has server faults.
    if not armed:
        token = _CURRENT_CALL.set(call)
        try:
            return await handler()
        finally:
            _CURRENT_CALL.reset(token)
    matched = [f for f in relevant
               if f.armed.spec.match.matches_request(call.host, call.path, call.method)]
    call.snapshot = episode.state.model_copy(deep=True)
    ticks, n_events, n_lines = episode.clock._ticks, len(episode.events), len(episode.ledger.lines)
    current: Firing | None = None

    async def proceed() -> Reply:
        try:
            return await handler()
        except HookFailure:
            raise
        except Exception as exc:
            raise _HandlerError(exc) from exc

    token = _CURRENT_CALL.set(call)
    try:
        reply: Reply | None = None
        chosen: Firing | None = None
        for fault in matched:
            kind = _server(fault)
            if kind.when == "after" or (kind.when == "instead" and chosen is not None):
                continue
            current = fault
            if not kind.eligible(call, fault) or not fault.armed.decide(episode.elapsed_ms()):
                continue
            if kind.when == "instead":
                chosen = fault
                continue
            fault.detail = {}
            answer = kind.before(call, fault)
            _write_firing(episode, call, fault)
            if answer is not None:
                reply = answer
                break
        if reply is None:
            if chosen is not None:
                current = chosen
                chosen.detail = {}
                reply = await _server(chosen).instead(call, chosen, proceed)
                _write_firing(episode, call, chosen)
            else:
                current = None
                reply = await proceed()
            call.reply = reply
            for fault in matched:
                kind = _server(fault)
                if kind.when != "after":
                    continue
                current = fault
                if not kind.eligible(call, fault) or not fault.armed.decide(episode.elapsed_ms()):
                    continue
                fault.detail = {}
                reply = kind.after(call, fault, reply)
                call.reply = reply
                _write_firing(episode, call, fault)
        call.reply = reply
        for fault in relevant:
            current = fault
            _server(fault).observe(call, fault)
        _flush_notes(episode, call, relevant)
        return reply
    except _HandlerError as exc:
        raise exc.original from None
    except Exception as exc:
        fault_id = exc.fault_id if isinstance(exc, HookFailure) else (current.id if current else None)
        error = str(exc) if isinstance(exc, HookFailure) else f"{type(exc).__name__}: {exc}"
        logger.exception(f"webchaos: server fault {fault_id} raised")
        # The failed request leaves no trace in the state, the clock or the event log.
        episode.state = call.snapshot.model_copy(deep=True)
        episode.clock._ticks = ticks
        del episode.events[n_events:]
        for fault in relevant:
            fault.detail, fault.notes = {}, []
        kind_name = next((f.armed.params.name for f in relevant if f.id == fault_id), None)
        episode.ledger.write("server", "hook_error", fault_id=fault_id, request=_request_of(call),
                             detail={"point": call.point, "fault_type": kind_name, "error": error,
                                     "firings_rolled_back": len(episode.ledger.lines) - n_lines})
        return Reply.error(500, f"webchaos: server fault {fault_id} failed ({error}); nothing was changed")
    finally:
        _CURRENT_CALL.reset(token)


def results_point(episode: SiteEpisode, point: str, items: list[Any], pool: list[Any]) -> list[Any]:
    """The list a listing or search is about to show; faults of kind `results` may replace it."""
    outer = _CURRENT_CALL.get()
    if outer is None:
        return items
    call = ServerCall(episode=episode, site=episode.site, point=point, kind="results", method=outer.method,
                      host=outer.host, path=outer.path, query=outer.query, target=outer.target,
                      implementations=episode.implementations)
    for fault in episode.faults_of(Layer.server):
        kind = _server(fault)
        if not kind.applies_to(call) or not fault.armed.spec.match.matches_request(call.host, call.path, call.method):
            continue
        try:
            if not kind.eligible(call, fault) or not fault.armed.decide(episode.elapsed_ms()):
                continue
            fault.detail = {}
            items = list(kind.results(call, fault, items, pool))
        except Exception as exc:
            raise HookFailure(fault.id, exc) from exc
        _write_firing(episode, call, fault)
    return items


def to_response(reply: Reply) -> Any:
    if reply.location is not None:
        return RedirectResponse(reply.location, status_code=reply.status if 300 <= reply.status < 400 else 303)
    if reply.status >= 400 and reply.value is None:
        raise HTTPException(reply.status, reply.detail, headers=reply.headers or None)
    return reply.value


Endpoint = Callable[..., Awaitable[Any]]


def hook_point(point: str, kind: CallKind, target: Callable[[dict[str, Any]], str | None] | None = None
               ) -> Callable[[Endpoint], Endpoint]:
    """Make a FastAPI endpoint a hook point. The endpoint must take `request` and `episode`."""

    def decorate(endpoint: Endpoint) -> Endpoint:
        @functools.wraps(endpoint)
        async def wrapper(**kwargs: Any) -> Any:
            episode: SiteEpisode = kwargs["episode"]
            request: Request = kwargs["request"]
            host = (request.headers.get("host") or "").rsplit(":", 1)[0].lower()
            call = ServerCall(
                episode=episode, site=episode.site, point=point, kind=kind, method=request.method, host=host,
                path=request.url.path, query=dict(request.query_params),
                target=target(kwargs) if target is not None else None,
                implementations=episode.implementations,
            )

            async def handler() -> Reply:
                try:
                    value = await endpoint(**kwargs)
                except HTTPException as exc:
                    return Reply.error(exc.status_code, exc.detail, dict(exc.headers or {}))
                return Reply(value=value)

            return to_response(await run_call(episode, call, handler))

        return wrapper

    return decorate

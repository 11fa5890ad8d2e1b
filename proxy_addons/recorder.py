"""Keep each episode's flows for its HAR, and answer the client report endpoint.

Flows are kept per episode from their first hook on (so a HAR taken mid-episode
also lists requests still in flight) and turned into HAR entries with mitmproxy's own
savehar `flow_entry`; every entry whose flow has webchaos marks (fault firings, refusals,
injections, hook errors) gets a custom `_webchaos` list of
`{fault_id, layer, type, detail}`. A flow is kept whole only while it is in flight: once
it is answered or has failed (`RecorderTail`, last in the chain, after every addon that
changes it), its HAR entry, with bounded bodies (below), is made and kept instead, and
the flow is let go, so an episode's memory grows by at most `MAX_HAR_BODY_BYTES` per body
however large the bodies it moved. Closing an episode exports and then forgets its entries.

Bodies in the HAR are bounded, and never decoded: `make_har` reads a copy of a message
whose body is longer than `MAX_HAR_BODY_BYTES` (cut to it) or in a `Content-Encoding`
(left out: a few hundred bytes of `br` can decode to hundreds of MiB, and mitmproxy's
`br` decoder cannot stop early). The entry's `postData` (the `request` when it has none)
or `response.content` then says so: `"_webchaos_truncated": true` and a `comment`;
`bodySize` and `content.size` stay the real sizes as sent. The guard refuses encoded
request bodies anyway; the kept flows are never changed.

`POST /__webchaos/report` on any site host of an episode listener is answered
here (204) and never forwarded: the injected browser script reports each client
fault `fired` / `dismissed` (also `target_missing`) and the report becomes a
ledger line (layer `client`, type = the armed fault's type); `touched` (the element:
role, name, selector, tag) and a small flat `info` object are kept in the detail.
A report (or action batch) in a `Content-Encoding` other than identity gets a 415 and is
never decoded.

`POST /__webchaos/actions` (same rules: answered here, never forwarded, 204) takes a
batch `{"actions": [...]}` of GUI actions from the injected recorder script and
appends them to `<out_dir>/actions.jsonl`, one JSON object per line::

    {"seq": 3, "t_ms": 812.4, "kind": "click", "page": "/items/42",
     "target": {"role": "button", "name": "Save", "selector": "form > button", "tag": "button"},
     "x": 640, "y": 412, "button": 0}

`kind` is one of click, input, key, scroll, navigation, tab_open (see `ActionIn`);
`t_ms` is counted from the episode's opening, like the ledger's (the browser stamps
each action with its own clock, so batching does not blur the times). When the
episode closes the file is rewritten in time order with `seq` 1..n; an episode that
records actions always gets the file, empty if nothing was done. These flows are not
kept for the HAR: they are the recorder's traffic, not the agent's.
"""

from __future__ import annotations

import asyncio
import copy
import gc
import json
import logging
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

from mitmproxy import http
from mitmproxy.addons.savehar import SaveHar
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from proxy_addons.arming import observe_actions
from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.guard import ACTIONS_PATH, RECORDING_PATHS, REPORT_PATH, content_encoding, normalized_path
from proxy_addons.ledger import marks
from scenarios.faults import Layer
from scenarios.secret import SECRET_HEADER

logger = logging.getLogger(__name__)

HAR_FILE = "trace.har"
REPORT_EVENTS = ("fired", "dismissed", "restored", "hit", "target_missing")
MAX_REPORT_BYTES = 8192
ACTIONS_FILE = "actions.jsonl"
MAX_ACTIONS_BYTES = 256 * 1024
MAX_HAR_BODY_BYTES = 256 * 1024
RECLAIM_BYTES = 16 * 1024 * 1024
_TEXT = {"content-type": "text/plain; charset=utf-8"}
M = TypeVar("M", bound=http.Message)


def _bounded(message: M) -> tuple[M, str | None]:
    """The message as the HAR may read it, and why its body is not all there (None: it is all there)."""
    raw = message.raw_content
    encoding = content_encoding(message)
    if raw is None or (encoding is None and len(raw) <= MAX_HAR_BODY_BYTES):
        return message, None
    view = copy.copy(message)
    view.data = copy.copy(message.data)
    view.data.headers = message.headers.copy()
    if encoding is not None:
        del view.data.headers["content-encoding"]
        view.data.content = b""
        return view, f"body not decoded (Content-Encoding: {encoding}): {len(raw)} bytes left out"
    view.data.content = raw[:MAX_HAR_BODY_BYTES]
    return view, f"body truncated to its first {MAX_HAR_BODY_BYTES} of {len(raw)} bytes"


def _har_view(flow: http.HTTPFlow) -> tuple[http.HTTPFlow, str | None, str | None]:
    """The flow, or a shallow copy with bounded bodies, and why each body (request, response) was bounded."""
    request, request_note = _bounded(flow.request)
    response, response_note = _bounded(flow.response) if flow.response is not None else (None, None)
    if request_note is None and response_note is None:
        return flow, None, None
    view = copy.copy(flow)
    view.request, view.response = request, response
    return view, request_note, response_note


def _mark_bounded(entry: dict[str, Any], flow: http.HTTPFlow, request_note: str | None,
                  response_note: str | None) -> None:
    if request_note is not None:
        request = entry["request"]
        request["headers"] = SaveHar().format_multidict(flow.request.headers)
        request["bodySize"] = len(flow.request.raw_content or b"")
        target = request.get("postData", request)
        target["_webchaos_truncated"] = True
        target["comment"] = request_note
    if response_note is not None and flow.response is not None:
        response = entry["response"]
        response["headers"] = SaveHar().format_multidict(flow.response.headers)
        size = len(flow.response.raw_content or b"")
        response["bodySize"] = size
        response["content"].update(size=size, compression=0, _webchaos_truncated=True, comment=response_note)


def har_entry(flow: http.HTTPFlow, servers_seen: set[Any]) -> dict[str, Any]:
    """The flow's HAR entry: bounded bodies, no secret, its webchaos marks."""
    view, request_note, response_note = _har_view(flow)
    entry: dict[str, Any] = SaveHar().flow_entry(view, servers_seen)
    _mark_bounded(entry, flow, request_note, response_note)
    # A flow still in flight has the stack's secret on it (router.py): never into a HAR.
    entry["request"]["headers"] = [h for h in entry["request"]["headers"]
                                   if str(h.get("name", "")).lower() != SECRET_HEADER]
    recorded = flow.metadata.get("webchaos", {}).get("faults")
    if recorded:
        entry["_webchaos"] = list(recorded)
    return entry


def make_har(items: Iterable[http.HTTPFlow | dict[str, Any]], servers_seen: set[Any] | None = None
             ) -> dict[str, Any]:
    """A HAR of flows and already made entries, in the order given."""
    seen = set(servers_seen or ())
    har = SaveHar().make_har([])
    har["log"]["entries"] = [item if isinstance(item, dict) else har_entry(item, seen) for item in items]
    return har


def _short(value: Any, limit: int = 200) -> Any:
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, bool | int | float) or value is None:
        return value
    return None


def _touched(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    return {k: _short(value.get(k)) for k in ("role", "name", "selector", "tag", "fault_id") if k in value}


def _info(value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        return None
    return {str(k)[:40]: _short(v) for k, v in list(value.items())[:12]}


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Target(_Action):
    role: str | None = Field(default=None, max_length=40)
    name: str | None = Field(default=None, max_length=300)
    selector: str | None = Field(default=None, max_length=1000)
    tag: str | None = Field(default=None, max_length=40)
    fault_id: str | None = Field(default=None, max_length=200)


class ActionIn(_Action):
    """One GUI action as the injected recorder sends it (`t`: ms since the epoch)."""

    kind: Literal["click", "input", "key", "scroll", "navigation", "tab_open"]
    t: float = Field(gt=0)
    page: str = Field(max_length=2000)
    target: Target | None = None
    x: int | None = None
    y: int | None = None
    button: int | None = None
    input_type: str | None = Field(default=None, max_length=40)
    value_length: int | None = Field(default=None, ge=0)
    value: str | None = Field(default=None, max_length=2000)
    key: str | None = Field(default=None, max_length=40)
    modifiers: list[str] | None = Field(default=None, max_length=4)
    dx: int | None = None
    dy: int | None = None
    url: str | None = Field(default=None, max_length=4000)
    nav_type: str | None = Field(default=None, max_length=40)
    referrer: str | None = Field(default=None, max_length=4000)
    frame: bool | None = None
    opener: bool | None = None


class ActionBatch(_Action):
    actions: list[ActionIn] = Field(max_length=1000)


class ActionLog:
    """`actions.jsonl` of one episode: appended as batches arrive, sorted by time on close."""

    def __init__(self, path: Path, opened_at_monotonic: float) -> None:
        self.path = path
        # The episode's opening on the wall clock, which the browser's stamps use too.
        self.opened_epoch_ms = (time.time() - (time.monotonic() - opened_at_monotonic)) * 1000
        self.lines: list[dict[str, Any]] = []
        self._file: IO[str] | None = path.open("w", encoding="utf-8", buffering=1)

    def add(self, actions: list[ActionIn]) -> list[dict[str, Any]]:
        """Append a batch; returns its lines."""
        first = len(self.lines)
        for action in actions:
            line: dict[str, Any] = {"seq": len(self.lines) + 1,
                                    "t_ms": round(action.t - self.opened_epoch_ms, 1)}
            line.update(action.model_dump(exclude={"t", "target"}, exclude_none=True))
            if action.kind in ("click", "input", "key", "scroll"):
                target = action.target.model_dump() if action.target is not None else None
                if target is not None and target["fault_id"] is None:
                    del target["fault_id"]
                line["target"] = target
            self.lines.append(line)
            if self._file is not None:
                self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        return self.lines[first:]

    def close(self) -> None:
        if self._file is None:
            return
        self._file.close()
        self._file = None
        ordered = sorted(self.lines, key=lambda line: line["t_ms"])  # stable: arrival order on ties
        for seq, line in enumerate(ordered, 1):
            line["seq"] = seq
        self.path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in ordered),
                             encoding="utf-8")


class Recorder:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes
        self.action_logs: dict[str, ActionLog] = {}
        self.servers_seen: dict[str, set[Any]] = {}  # per episode, for HAR connect timings
        self.unreclaimed = 0  # body bytes of finished flows since the last collection
        self.tail = RecorderTail(self)

    def action_log(self, episode: ProxyEpisode) -> ActionLog:
        log = self.action_logs.get(episode.id)
        if log is None or log.path.parent != episode.out_dir:
            log = self.action_logs[episode.id] = ActionLog(episode.out_dir / ACTIONS_FILE, episode.opened_at)
        return log

    # -- keeping flows --------------------------------------------------------------

    def _keep(self, flow: http.HTTPFlow) -> ProxyEpisode | None:
        episode = self.episodes.for_flow(flow)
        if episode is not None:
            episode.flows.setdefault(flow.id, flow)
        return episode

    def http_connect(self, flow: http.HTTPFlow) -> None:
        self._keep(flow)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        # The recorders' own uploads on a site host (GUI actions, page recordings) stay out of the HAR, decided
        # here, before the body: a page's last upload can still be sending when the episode closes, and then
        # no later hook runs. The guard ran first and marked site hosts (the same path elsewhere is kept).
        if "site" in marks(flow) and normalized_path(flow.request.path) in RECORDING_PATHS:
            return
        self._keep(flow)

    def finish(self, flow: http.HTTPFlow) -> None:
        """Keep the answered (or failed) flow's bounded HAR entry instead of the flow itself."""
        episode = self.episodes.for_flow(flow)
        if episode is None or not isinstance(episode.flows.get(flow.id), http.HTTPFlow):
            return
        episode.flows[flow.id] = har_entry(flow, self.servers_seen.setdefault(episode.id, set()))
        # A finished flow sits in reference cycles (mitmproxy's own), so only the cyclic collector frees it,
        # and stack.py makes that rare (gc.set_threshold(50_000, …)): 120 MiB of bodies stayed alive in one
        # episode (benchmarks/episode_memory.py). Collect the young generations once every
        # RECLAIM_BYTES of finished bodies: a few ms per that many bytes moved, nothing for small pages.
        sizes = [len(m.raw_content or b"") for m in (flow.request, flow.response) if m is not None]
        self.unreclaimed += sum(sizes)
        if self.unreclaimed >= RECLAIM_BYTES:
            self.unreclaimed = 0
            gc.collect(1)

    def action_count(self, episode: ProxyEpisode) -> int:
        log = self.action_logs.get(episode.id)
        return 0 if log is None else len(log.lines)

    def actions_since(self, episode: ProxyEpisode, start: int) -> list[dict[str, Any]]:
        """The episode's GUI actions from the `start`-th on, in arrival order (for `ep.events()`)."""
        log = self.action_logs.get(episode.id)
        return [] if log is None else [dict(line) for line in log.lines[start:]]

    def har(self, episode: ProxyEpisode) -> dict[str, Any]:
        return make_har(list(episode.flows.values()), self.servers_seen.get(episode.id))

    async def export(self, episode: ProxyEpisode) -> tuple[Path, int]:
        """Write `<out_dir>/trace.har`, then forget the episode's flows."""
        flows = list(episode.flows.values())
        har = make_har(flows, self.servers_seen.pop(episode.id, None))  # on the loop: flows may still be in flight
        path = episode.out_dir / HAR_FILE

        def write() -> None:  # off the loop: other episodes' flows (and their delays) go on meanwhile
            path.write_text(json.dumps(har, indent=1), "utf-8")

        await asyncio.to_thread(write)
        episode.flows.clear()
        log = self.action_logs.pop(episode.id, None)
        if log is None and episode.record_actions:
            log = ActionLog(episode.out_dir / ACTIONS_FILE, episode.opened_at)
        if log is not None:
            await asyncio.to_thread(log.close)
        return path, len(flows)

    # -- the report endpoint --------------------------------------------------------

    def request(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        m = marks(flow)
        if "site" not in m:
            return
        where = normalized_path(flow.request.path)
        if where == ACTIONS_PATH:
            self._actions(flow)
            return
        if where != REPORT_PATH:
            return
        m["local"] = True
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None:
            flow.response = http.Response.make(404, "webchaos: episode closed\n", _TEXT)
            return
        if flow.request.method != "POST":
            flow.response = http.Response.make(405, "webchaos: POST only\n", {**_TEXT, "allow": "POST"})
            return
        if self._encoded(flow):
            return
        problem = self._record_report(episode, flow)
        if problem:
            flow.response = http.Response.make(400, f"webchaos: bad report ({problem})\n", _TEXT)
        else:
            flow.response = http.Response.make(204, b"", {"cache-control": "no-store"})

    def _actions(self, flow: http.HTTPFlow) -> None:
        m = marks(flow)
        m["local"] = True
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None or not episode.record_actions:
            flow.response = http.Response.make(404, "webchaos: no action recording here\n", _TEXT)
            return
        if flow.request.method != "POST":
            flow.response = http.Response.make(405, "webchaos: POST only\n", {**_TEXT, "allow": "POST"})
            return
        if self._encoded(flow):
            return
        raw = flow.request.raw_content or b""
        problem = None
        if len(raw) > MAX_ACTIONS_BYTES:
            problem = "too large"
        else:
            try:
                batch = ActionBatch.model_validate_json(raw)
            except ValidationError as exc:
                first = exc.errors()[0]
                problem = f"{'.'.join(str(p) for p in first['loc']) or 'body'}: {first['msg']}"
        if problem:
            flow.response = http.Response.make(400, f"webchaos: bad actions ({problem})\n", _TEXT)
            return
        observe_actions(episode, self.action_log(episode).add(batch.actions))
        episode.feed.notify()
        flow.response = http.Response.make(204, b"", {"cache-control": "no-store"})

    @staticmethod
    def _encoded(flow: http.HTTPFlow) -> bool:
        """Answer 415 to a body in a Content-Encoding (it is never decoded: see the guard)."""
        encoding = content_encoding(flow.request)
        if encoding is not None:
            flow.response = http.Response.make(
                415, f"webchaos: Content-Encoding {encoding!r} not accepted, send identity\n", _TEXT)
        return encoding is not None

    def _record_report(self, episode: ProxyEpisode, flow: http.HTTPFlow) -> str | None:
        raw = flow.request.raw_content or b""
        if len(raw) > MAX_REPORT_BYTES:
            return "too large"
        try:
            report = json.loads(raw)
        except ValueError:
            return "not JSON"
        if not isinstance(report, dict):
            return "not an object"
        fault_id, event = report.get("fault_id"), report.get("event")
        armed = episode.fault(fault_id) if isinstance(fault_id, str) else None
        if armed is None or armed.spec.layer != Layer.client:
            return "unknown fault_id"
        if event not in REPORT_EVENTS:
            return f"event must be one of {', '.join(REPORT_EVENTS)}"
        target = report.get("target")
        detail: dict[str, Any] = {"event": event}
        if isinstance(target, dict):
            detail["target"] = {k: _short(target.get(k)) for k in ("selector", "role", "name")}
        for key in ("occurrence", "via"):
            if key in report:
                detail[key] = _short(report[key], 40)
        touched, info = _touched(report.get("touched")), _info(report.get("info"))
        if touched is not None:
            detail["touched"] = touched
        if info is not None:
            detail["info"] = info
        detail["page"] = self._page_of(flow)
        if event != "target_missing":
            episode.client_unfired.discard(armed.id)  # it acted: the decision is used (client/inject.py)
        episode.ledger.write("client", armed.spec.type, flow=flow, fault_id=armed.id, detail=detail)
        return None

    @staticmethod
    def _page_of(flow: http.HTTPFlow) -> str | None:
        referer = flow.request.headers.get("referer", "")
        if "://" not in referer:
            return None
        rest = referer.split("://", 1)[1]
        path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
        return path.split("?", 1)[0].split("#", 1)[0]


class RecorderTail:
    """Last in the chain: a flow that is answered or has failed is done changing; keep its entry only."""

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def response(self, flow: http.HTTPFlow) -> None:
        self.recorder.finish(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        self.recorder.finish(flow)

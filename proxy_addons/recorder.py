"""The recorder addon: keeps each episode's flows for its HAR, and answers the recording endpoints.

Flows are kept per episode from their first hook on (so a HAR taken mid-episode
also lists requests still in flight) and turned into HAR entries (har.py). A flow is kept
whole only while it is in flight: once it is answered or has failed (the recorder's tail,
recorder_tail.py, last in the chain, after every addon that changes it), its HAR entry, with
bounded bodies, is made and kept instead, and the flow is let go, so an episode's memory grows
by at most `MAX_HAR_BODY_BYTES` per body however large the bodies it moved. Closing an episode
exports and then forgets its entries.

`POST /__webchaos/report` on any site host of an episode listener is answered
here (204) and never forwarded: the injected browser script reports each client
fault `fired` / `dismissed` (also `target_missing`) and the report becomes a
ledger line (layer `client`, type = the armed fault's type); `touched` (the element:
role, name, selector, tag) and a small flat `info` object are kept in the detail.
A report (or action batch) in a `Content-Encoding` other than identity gets a 415 and is
never decoded.

`POST /__webchaos/actions` (same rules: answered here, never forwarded, 204) takes a
batch `{"actions": [...]}` of GUI actions from the injected recorder script and
appends them to the episode's action log (actions.py). An episode that records actions
always gets the file, empty if nothing was done. These flows are not kept for the HAR:
they are the recorder's traffic, not the agent's.
"""

from __future__ import annotations

import asyncio
import gc
import json
from pathlib import Path
from typing import Any

from mitmproxy import http
from pydantic import ValidationError

from proxy_addons.actions import ACTIONS_FILE, MAX_ACTIONS_BYTES, ActionBatch, ActionLog
from proxy_addons.arming import observe_actions
from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.guard import ACTIONS_PATH, RECORDING_PATHS, REPORT_PATH, content_encoding, normalized_path
from proxy_addons.har import HAR_FILE, har_entry, make_har
from proxy_addons.ledger import marks
from proxy_addons.recorder_tail import RecorderTail
from scenarios.faults import Layer

REPORT_EVENTS = ("fired", "dismissed", "restored", "hit", "target_missing")
MAX_REPORT_BYTES = 8192
RECLAIM_BYTES = 16 * 1024 * 1024
_TEXT = {"content-type": "text/plain; charset=utf-8"}


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


class Recorder:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes
        self.action_logs: dict[str, ActionLog] = {}
        self.servers_seen: dict[str, set[Any]] = {}  # per episode, for HAR connect timings
        self.unreclaimed = 0  # body bytes of finished flows since the last collection
        self.tail = RecorderTail(self.finish)

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

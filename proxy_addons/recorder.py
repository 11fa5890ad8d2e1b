"""Keep each episode's flows for its HAR, and answer the client report endpoint.

Flows are kept per episode from their first hook on (so a HAR taken mid-episode
also lists requests still in flight) and exported with mitmproxy's own savehar
`make_har`; every entry whose flow has webchaos marks (fault firings, refusals,
injections, hook errors) gets a custom `_webchaos` list of
`{fault_id, layer, type, detail}`. Closing an episode exports and then forgets its
flows.

`POST /__webchaos/report` on any site host of an episode listener is answered
here (204) and never forwarded: the injected browser script reports each client
fault `fired` / `dismissed` (also `target_missing`) and the report becomes a
ledger line (layer `client`, type = the armed fault's type).
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

from mitmproxy import http
from mitmproxy.addons.savehar import SaveHar

from proxy_addons.episodes import Episode, Episodes
from proxy_addons.guard import REPORT_PATH, normalized_path
from proxy_addons.ledger import marks
from scenarios.faults import Layer

logger = logging.getLogger(__name__)

HAR_FILE = "trace.har"
REPORT_EVENTS = ("fired", "dismissed", "target_missing")
MAX_REPORT_BYTES = 8192
_TEXT = {"content-type": "text/plain; charset=utf-8"}


def make_har(flows: list[http.HTTPFlow]) -> dict[str, Any]:
    har = SaveHar().make_har(flows)
    for flow, entry in zip(flows, har["log"]["entries"], strict=True):
        recorded = flow.metadata.get("webchaos", {}).get("faults")
        if recorded:
            entry["_webchaos"] = list(recorded)
    return har


def _short(value: Any, limit: int = 200) -> Any:
    if isinstance(value, str):
        return value[:limit]
    if isinstance(value, bool | int | float) or value is None:
        return value
    return None


class Recorder:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes

    # -- keeping flows --------------------------------------------------------------

    def _keep(self, flow: http.HTTPFlow) -> Episode | None:
        episode = self.episodes.for_flow(flow)
        if episode is not None:
            episode.flows.setdefault(flow.id, flow)
        return episode

    def http_connect(self, flow: http.HTTPFlow) -> None:
        self._keep(flow)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        self._keep(flow)

    def har(self, episode: Episode) -> dict[str, Any]:
        return make_har(list(episode.flows.values()))

    async def export(self, episode: Episode) -> tuple[Path, int]:
        """Write `<out_dir>/trace.har`, then forget the episode's flows."""
        flows = list(episode.flows.values())
        har = make_har(flows)
        path = episode.out_dir / HAR_FILE
        data = json.dumps(har, indent=1)
        await asyncio.to_thread(path.write_text, data, "utf-8")
        episode.flows.clear()
        return path, len(flows)

    # -- the report endpoint --------------------------------------------------------

    def request(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        m = marks(flow)
        if "site" not in m or normalized_path(flow.request.path) != REPORT_PATH:
            return
        m["local"] = True
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None:
            flow.response = http.Response.make(404, "webchaos: episode closed\n", _TEXT)
            return
        if flow.request.method != "POST":
            flow.response = http.Response.make(405, "webchaos: POST only\n", {**_TEXT, "allow": "POST"})
            return
        problem = self._record_report(episode, flow)
        if problem:
            flow.response = http.Response.make(400, f"webchaos: bad report ({problem})\n", _TEXT)
        else:
            flow.response = http.Response.make(204, b"", {"cache-control": "no-store"})

    def _record_report(self, episode: Episode, flow: http.HTTPFlow) -> str | None:
        raw = flow.request.raw_content or b""
        if len(raw) > MAX_REPORT_BYTES:
            return "too large"
        try:
            report = json.loads(flow.request.get_text(strict=False) or "")
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
        detail["page"] = self._page_of(flow)
        episode.ledger.write("client", armed.spec.type, flow=flow, fault_id=armed.id, detail=detail)
        if event == "fired":
            episode.firings += 1
        return None

    @staticmethod
    def _page_of(flow: http.HTTPFlow) -> str | None:
        referer = flow.request.headers.get("referer", "")
        if "://" not in referer:
            return None
        rest = referer.split("://", 1)[1]
        path = "/" + rest.split("/", 1)[1] if "/" in rest else "/"
        return path.split("?", 1)[0].split("#", 1)[0]

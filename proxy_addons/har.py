"""HAR entries for the recorder (recorder.py): mitmproxy's own savehar `flow_entry`, with bounded bodies,
no stack secret, and the flow's webchaos marks.

Every entry whose flow has webchaos marks (fault firings, refusals, injections, hook errors) gets a
custom `_webchaos` list of `{fault_id, layer, type, detail}`.

Bodies in the HAR are bounded, and never decoded: `make_har` reads a copy of a message
whose body is longer than `MAX_HAR_BODY_BYTES` (cut to it) or in a `Content-Encoding`
(left out: a few hundred bytes of `br` can decode to hundreds of MiB, and mitmproxy's
`br` decoder cannot stop early). The entry's `postData` (the `request` when it has none)
or `response.content` then says so: `"_webchaos_truncated": true` and a `comment`;
`bodySize` and `content.size` stay the real sizes as sent. The guard refuses encoded
request bodies anyway; the kept flows are never changed.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any, TypeVar

from mitmproxy import http
from mitmproxy.addons.savehar import SaveHar

from proxy_addons.guard import content_encoding
from scenarios.secret import SECRET_HEADER

HAR_FILE = "trace.har"
MAX_HAR_BODY_BYTES = 256 * 1024
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

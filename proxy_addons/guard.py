"""First addon of the chain: only site hosts, reached through an episode listener, get through.

Refused with a 403 and a short text body (and a ledger line: layer `guard`, type
`refused`):

- any flow that did not arrive on an open episode's listener;
- CONNECT, unless `webchaos_https` is on and the target is a site host on port 443
  (then mitmproxy intercepts the tunnel with the project's CA and the requests inside
  it go through the same checks as plain ones);
- any host that is not one of `webchaos_site_hosts` (127.0.0.1, localhost, the
  oracle/control ports, Chromium's background hosts ...);
- reserved paths on any host: `/_oracle*`, `/_control*` and `/__webchaos/*`, except
  the client report and GUI-action endpoints `/__webchaos/report` and
  `/__webchaos/actions` (answered by the recorder) and the page-recording endpoint
  `/__webchaos/rrweb` with its script `/__webchaos/rrweb-record.js` (both answered by
  proxy_addons/rrweb.py); matched on the path normalised as a
  server could read it (`normalized_path`: `/a/../_oracle`, `/%2e/_oracle`,
  `/;x/_oracle` and `/_ORACLE;x` are all `/_oracle`).

Refused with a 431 (same ledger line, the status in its detail): a request with more
than `webchaos_max_request_headers` header fields, or more than
`webchaos_max_request_header_bytes` of them in all (names, values and 4 bytes per
field). Headers are only ever walked as the raw `headers.fields` tuple, in one pass:
mitmproxy's `headers.keys()` costs O(n²) (5,000 headers stalled the whole proxy for
seconds; benchmarks/header_flood.py).

Refused with a 415: a request that declares a `Content-Encoding` other than identity,
on any path (site paths and the recorder's endpoints alike). Browsers never compress
request bodies and the sites do not decode them; decoding one with a cap is not an
option either, since the `br` decoder mitmproxy ships (Brotli 1.1) cannot bound its
output and 405 bytes of it decode to 256 MiB. So no request body is ever decoded: it
is refused here, and the HAR keeps such a body out (see har.py).

Refused with a 413: a request body larger than `webchaos_max_request_body`, judged by
its Content-Length in `requestheaders` when it has one, else in `request` once it has
arrived (chunked). mitmproxy still reads a refused body before it answers; its own
`body_size_limit` is the cap for a client that never stops sending.

`body_size_limit`: the stack sets it to `BODY_SIZE_LIMIT` (8 MiB) at start unless it was
set, so no body, request or response, is ever buffered beyond it. A request body that
passes it (chunked, so no Content-Length to refuse it by) gets mitmproxy's own 413, a
response body (the sites never send one that large) a 502; both with a ledger line
(`guard` `refused`, the status in the detail), written from the `error` hook. Refusing
rather than streaming keeps the HAR and the network faults whole: a streamed body could
be neither recorded nor patched.

Incoming `x-webchaos-*` request headers are stripped so an agent cannot name an
episode itself; the router sets the real one.
"""

from __future__ import annotations

import logging
import re
from typing import Any
from urllib.parse import unquote

from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader

from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.ledger import marks

logger = logging.getLogger(__name__)

REPORT_PATH = "/__webchaos/report"
ACTIONS_PATH = "/__webchaos/actions"
RRWEB_PATH = "/__webchaos/rrweb"  # page recording batches (answered by proxy_addons/rrweb.py)
RRWEB_SCRIPT_PATH = "/__webchaos/rrweb-record.js"  # rrweb's record bundle (served by proxy_addons/rrweb.py)
RECORDING_PATHS = frozenset((ACTIONS_PATH, RRWEB_PATH, RRWEB_SCRIPT_PATH))  # the recorders' own, kept out of HARs
STACK_PATHS = RECORDING_PATHS | {REPORT_PATH}  # answered by the stack itself, never forwarded
RESERVED_PREFIXES = ("/_oracle", "/_control", "/__webchaos/")
HEADER_PREFIX = "x-webchaos-"
_HEADER_PREFIX_BYTES = HEADER_PREFIX.encode()
MAX_REQUEST_HEADERS = 200
MAX_REQUEST_HEADER_BYTES = 64 * 1024
MAX_REQUEST_BODY = 1024 * 1024
BODY_SIZE_LIMIT = "8m"  # mitmproxy's body_size_limit, if not set otherwise
_HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


def parse_site_hosts(value: str) -> frozenset[str]:
    hosts = [h.strip().lower() for h in value.split(",") if h.strip()]
    for host in hosts:
        if not _HOSTNAME.match(host):
            raise exceptions.OptionsError(f"webchaos_site_hosts: not a host name: {host!r}")
    return frozenset(hosts)


def positive(options: Any, name: str) -> int:
    value = getattr(options, name)
    if value < 1:
        raise exceptions.OptionsError(f"{name}: must be at least 1, got {value}")
    return int(value)


def normalized_path(path: str) -> str:
    """The path as a server could route it, for matching reserved paths (never for forwarding).

    No query or fragment; percent-decoded until nothing changes (so `%252e` counts as a
    dot too); backslashes as slashes; `;params` cut from every segment (`/_oracle;x`,
    `/;x/_oracle`, `/..;/_oracle`); `.` and `..` segments resolved as RFC 3986
    remove_dot_segments does (never above the root); empty segments collapsed; lower case.
    A trailing slash is kept.
    """
    path = path.split("?", 1)[0].split("#", 1)[0]
    for _ in range(8):
        decoded = unquote(path)
        if decoded == path:
            break
        path = decoded
    segments: list[str] = []
    raw = path.replace("\\", "/").split("/")
    for segment in raw:
        segment = segment.split(";", 1)[0]
        if segment == "..":
            if segments:
                segments.pop()
        elif segment not in ("", "."):
            segments.append(segment)
    trailing = bool(segments) and raw[-1].split(";", 1)[0] in ("", ".", "..")
    return ("/" + "/".join(segments) + ("/" if trailing else "")).lower()


def reserved_path(path: str) -> bool:
    p = normalized_path(path)
    if p in STACK_PATHS:
        return False
    return p.startswith(RESERVED_PREFIXES) or p == "/__webchaos"


def content_encoding(message: http.Message) -> str | None:
    """The message's `Content-Encoding` codings other than identity, e.g. 'br' (None: a plain body)."""
    codings = [c.strip().lower() for value in message.headers.get_all("content-encoding") for c in value.split(",")]
    return ", ".join(c for c in codings if c and c != "identity") or None


def declared_length(request: http.Request) -> int | None:
    """The largest Content-Length the request declares (None: none, or not a number)."""
    lengths = [int(v) for v in request.headers.get_all("content-length") if v.strip().isdecimal()]
    return max(lengths) if lengths else None


def refuse(flow: http.HTTPFlow, episode: ProxyEpisode | None, reason: str, status: int = 403) -> None:
    """Answer `status` (403 unless said) locally and write the refusal to the episode's ledger (if any)."""
    req = flow.request
    request = {"method": req.method, "host": req.pretty_host, "path": req.path.split("?", 1)[0]}
    flow.response = http.Response.make(
        status, f"webchaos: refused ({reason})\n", {"content-type": "text/plain; charset=utf-8"}
    )
    m = marks(flow)
    m["refused"] = reason
    m["local"] = True
    if episode is not None:
        detail: dict[str, object] = {"reason": reason}
        if status != 403:
            detail["status"] = status
        episode.ledger.write("guard", "refused", flow=flow, request=request, detail=detail)
    else:
        logger.info(f"webchaos guard: refused {request['method']} {request['host']}{request['path']}: {reason}")


class Guard:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes
        self.site_hosts: frozenset[str] = frozenset()
        self.https = False
        self.max_headers = MAX_REQUEST_HEADERS
        self.max_header_bytes = MAX_REQUEST_HEADER_BYTES
        self.max_body = MAX_REQUEST_BODY

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "webchaos_site_hosts", str, "",
            "Comma-separated host names of the hermetic sites (e.g. a.test,b.test); "
            "every other host is refused with a 403.",
        )
        loader.add_option(
            "webchaos_https", bool, False,
            "Serve the sites over HTTPS too: allow CONNECT to site hosts on port 443 (intercepted with the "
            "CA in confdir; use connection_strategy=lazy). Other CONNECT targets are still refused.",
        )
        loader.add_option(
            "webchaos_max_request_headers", int, MAX_REQUEST_HEADERS,
            "Most header fields a request may carry; a request with more is refused with a 431.",
        )
        loader.add_option(
            "webchaos_max_request_header_bytes", int, MAX_REQUEST_HEADER_BYTES,
            "Largest total size in bytes of a request's header fields (names + values + 4 per field); "
            "a larger request is refused with a 431.",
        )
        loader.add_option(
            "webchaos_max_request_body", int, MAX_REQUEST_BODY,
            "Largest request body in bytes (as sent; encoded bodies are refused anyway); "
            "a larger one is refused with a 413.",
        )

    def configure(self, updated: set[str]) -> None:
        if "webchaos_site_hosts" in updated:
            self.site_hosts = parse_site_hosts(ctx.options.webchaos_site_hosts)
        if "webchaos_https" in updated:
            self.https = bool(ctx.options.webchaos_https)
        if "webchaos_max_request_headers" in updated:
            self.max_headers = positive(ctx.options, "webchaos_max_request_headers")
        if "webchaos_max_request_header_bytes" in updated:
            self.max_header_bytes = positive(ctx.options, "webchaos_max_request_header_bytes")
        if "webchaos_max_request_body" in updated:
            self.max_body = positive(ctx.options, "webchaos_max_request_body")

    def running(self) -> None:
        if not ctx.options.body_size_limit:
            ctx.options.update(body_size_limit=BODY_SIZE_LIMIT)

    def error(self, flow: http.HTTPFlow) -> None:
        """mitmproxy's own refusal of a body over `body_size_limit`: a ledger line like the guard's."""
        if flow.error is None or "body_size_limit" not in flow.error.msg:
            return
        episode = self.episodes.for_flow(flow)
        response = flow.response is not None
        what = "response" if response else "request"
        reason = f"{what} body larger than body_size_limit ({ctx.options.body_size_limit})"
        marks(flow)["refused"] = reason
        if episode is not None:
            req = flow.request
            request = {"method": req.method, "host": req.pretty_host, "path": req.path.split("?", 1)[0]}
            episode.ledger.write("guard", "refused", flow=flow, request=request,
                                 detail={"reason": reason, "status": 502 if response else 413})

    def http_connect(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        episode = self.episodes.for_flow(flow)
        if episode is None:
            refuse(flow, None, "not an episode listener")
        elif not self.https:
            refuse(flow, episode, "CONNECT is not supported; use plain http:// site URLs (or start with --https)")
        elif flow.request.host.lower().rstrip(".") not in self.site_hosts or flow.request.port != 443:
            refuse(flow, episode, "CONNECT only to site hosts on port 443")

    def _scrub_headers(self, flow: http.HTTPFlow) -> str | None:
        """Drop `x-webchaos-*` fields in one pass over the raw fields; say what is too large, if anything."""
        fields = flow.request.headers.fields
        kept = tuple(f for f in fields if not f[0].lower().startswith(_HEADER_PREFIX_BYTES))
        if len(kept) != len(fields):
            flow.request.headers.fields = kept
        if len(fields) > self.max_headers:
            return f"more than {self.max_headers} request headers"
        if sum(len(name) + len(value) + 4 for name, value in fields) > self.max_header_bytes:
            return f"request headers larger than {self.max_header_bytes} bytes"
        return None

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        too_large = self._scrub_headers(flow)
        episode = self.episodes.for_flow(flow)
        if episode is None:
            refuse(flow, None, "not an episode listener")
            return
        if too_large:
            refuse(flow, episode, too_large, 431)
            return
        host = flow.request.host.lower().rstrip(".")
        header = (flow.request.host_header or host).lower()
        header_host = header.rsplit(":", 1)[0] if not header.endswith("]") else header
        if host not in self.site_hosts:
            refuse(flow, episode, "not a site host")
        elif header_host.rstrip(".") != host:
            refuse(flow, episode, "Host header does not match the request target")
        elif reserved_path(flow.request.path):
            refuse(flow, episode, "reserved path")
        elif encoding := content_encoding(flow.request):
            refuse(flow, episode, f"request body in Content-Encoding {encoding!r}: only identity is accepted", 415)
        elif (length := declared_length(flow.request)) is not None and length > self.max_body:
            refuse(flow, episode, f"request body larger than {self.max_body} bytes", 413)
        else:
            marks(flow)["site"] = host

    def request(self, flow: http.HTTPFlow) -> None:
        if flow.response or "site" not in marks(flow):
            return
        raw = flow.request.raw_content
        if raw is not None and len(raw) > self.max_body:
            refuse(flow, self.episodes.for_flow(flow), f"request body larger than {self.max_body} bytes", 413)

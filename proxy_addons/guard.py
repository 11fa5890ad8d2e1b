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
  `/__webchaos/actions` (answered by the recorder).

Incoming `x-webchaos-*` request headers are stripped so an agent cannot name an
episode itself; the router sets the real one.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import unquote

from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader

from proxy_addons.episodes import Episode, Episodes
from proxy_addons.ledger import marks

logger = logging.getLogger(__name__)

REPORT_PATH = "/__webchaos/report"
ACTIONS_PATH = "/__webchaos/actions"
RESERVED_PREFIXES = ("/_oracle", "/_control", "/__webchaos/")
HEADER_PREFIX = "x-webchaos-"
_HOSTNAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$")


def parse_site_hosts(value: str) -> frozenset[str]:
    hosts = [h.strip().lower() for h in value.split(",") if h.strip()]
    for host in hosts:
        if not _HOSTNAME.match(host):
            raise exceptions.OptionsError(f"webchaos_site_hosts: not a host name: {host!r}")
    return frozenset(hosts)


def normalized_path(path: str) -> str:
    """The path as a server router would see it: no query, percent-decoded, lower case, single slashes."""
    path = unquote(path.split("?", 1)[0].split("#", 1)[0]).lower()
    return re.sub(r"/{2,}", "/", path)


def reserved_path(path: str) -> bool:
    p = normalized_path(path)
    if p in (REPORT_PATH, ACTIONS_PATH):
        return False
    return p.startswith(RESERVED_PREFIXES) or p == "/__webchaos"


def refuse(flow: http.HTTPFlow, episode: Episode | None, reason: str) -> None:
    """Answer 403 locally and write the refusal to the episode's ledger (if any)."""
    req = flow.request
    request = {"method": req.method, "host": req.pretty_host, "path": req.path.split("?", 1)[0]}
    flow.response = http.Response.make(
        403, f"webchaos: refused ({reason})\n", {"content-type": "text/plain; charset=utf-8"}
    )
    m = marks(flow)
    m["refused"] = reason
    m["local"] = True
    if episode is not None:
        episode.ledger.write("guard", "refused", flow=flow, request=request, detail={"reason": reason})
    else:
        logger.info(f"webchaos guard: refused {request['method']} {request['host']}{request['path']}: {reason}")


class Guard:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes
        self.site_hosts: frozenset[str] = frozenset()
        self.https = False

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

    def configure(self, updated: set[str]) -> None:
        if "webchaos_site_hosts" in updated:
            self.site_hosts = parse_site_hosts(ctx.options.webchaos_site_hosts)
        if "webchaos_https" in updated:
            self.https = bool(ctx.options.webchaos_https)

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

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        for name in list(flow.request.headers.keys()):
            if name.lower().startswith(HEADER_PREFIX):
                del flow.request.headers[name]
        episode = self.episodes.for_flow(flow)
        if episode is None:
            refuse(flow, None, "not an episode listener")
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
        else:
            marks(flow)["site"] = host

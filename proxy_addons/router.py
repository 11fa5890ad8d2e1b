"""Send every admitted site request to the sites server, keeping its virtual host.

The sites server serves all sites on one port and picks the site by the `Host`
header, so the router points the connection at `webchaos_sites` (plain HTTP) and
puts the original `Host` back (setting `flow.request.host` rewrites it). It also
names the episode in `x-webchaos-episode` and adds the stack's secret in
`x-webchaos-secret`, without which the sites server answers 401 (the guard has already
stripped any copy of either the agent sent).

`ClientView` (late in the chain) marks a request it sees unanswered as `forwarded` (every fault
has let it go: closing an episode waits for such a write's answer), and puts the URL the
client asked for back on the flow once it is answered (and takes the secret off it again), so
the HAR shows `https://<site>.test/...` in HTTPS mode rather than the sites server's plain-HTTP
address (or the pacing relay's).
"""

from __future__ import annotations

from mitmproxy import ctx, exceptions, http
from mitmproxy.addonmanager import Loader

from proxy_addons.episodes import EPISODE_HEADER, Episodes
from proxy_addons.ledger import marks
from proxy_addons.network.gate import GATE_HEADER
from proxy_addons.secret import StackSecret, strip
from scenarios.secret import SECRET_HEADER


def parse_upstream(value: str) -> tuple[str, int] | None:
    if not value:
        return None
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise exceptions.OptionsError(f"webchaos_sites: expected HOST:PORT, got {value!r}")
    return host.strip("[]"), int(port)


class Router:
    def __init__(self, episodes: Episodes, secret: StackSecret | None = None) -> None:
        self.episodes = episodes
        self.secret = secret
        self.upstream: tuple[str, int] | None = None

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "webchaos_sites", str, "",
            "HOST:PORT of the webchaos sites server (plain HTTP, every site on one port).",
        )

    def configure(self, updated: set[str]) -> None:
        if "webchaos_sites" in updated:
            self.upstream = parse_upstream(ctx.options.webchaos_sites)

    def requestheaders(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        m = marks(flow)
        site = m.get("site")
        episode = self.episodes.get(m.get("episode", ""))
        if site is None or episode is None:
            return  # the guard answers everything else; nothing to route
        if self.upstream is None:
            flow.response = http.Response.make(
                502, "webchaos: no sites server configured (webchaos_sites)\n",
                {"content-type": "text/plain; charset=utf-8"},
            )
            m["local"] = True
            return
        host_header = flow.request.host_header or site
        m["client_target"] = (flow.request.scheme, flow.request.host, flow.request.port)
        flow.request.scheme = "http"
        flow.request.host, flow.request.port = self.upstream
        flow.request.host_header = host_header
        flow.request.headers[EPISODE_HEADER] = episode.id
        if self.secret is not None and self.secret.value is not None:
            flow.request.headers[SECRET_HEADER] = self.secret.value


class ClientView:
    """Restore the client's scheme, host and port on answered flows (for the HAR and any later reader)."""

    @staticmethod
    def _restore(flow: http.HTTPFlow) -> None:
        strip(flow)
        flow.request.headers.pop(GATE_HEADER, None)  # the gate's token (network/gate.py), used up
        target = marks(flow).pop("client_target", None)
        if target is None:
            return
        host_header = flow.request.host_header
        flow.request.scheme, flow.request.host, flow.request.port = target
        if host_header:
            flow.request.host_header = host_header

    @staticmethod
    def request(flow: http.HTTPFlow) -> None:
        # Last in the chain: every fault before it has let the request go, so it is sent upstream now
        # (unless it goes through the gate, which marks it when it lets it through: network/gate.py).
        if flow.response is None and "client_target" in marks(flow) and GATE_HEADER not in flow.request.headers:
            marks(flow)["forwarded"] = True

    def response(self, flow: http.HTTPFlow) -> None:
        self._restore(flow)

    def error(self, flow: http.HTTPFlow) -> None:
        self._restore(flow)

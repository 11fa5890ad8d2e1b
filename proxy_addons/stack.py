"""The webchaos proxy: the `mitmdump -s` entry point, with the addons in chain order.

Start it with no agent-facing listener (`--set mode` with no value empties the
`mode` list; each episode adds its own `regular@127.0.0.1:<port>` listener at
runtime through the control API)::

    .venv/bin/mitmdump -q -s <repo>/proxy_addons/stack.py \\
        --set mode \\
        --set webchaos_sites=127.0.0.1:<sites port> \\
        --set webchaos_site_hosts=a.test,b.test \\
        --set webchaos_control_port=<control port> \\
        --set connection_strategy=lazy \\
        --set confdir=<state dir>/mitmproxy \\
        --set webchaos_secret_fd=3 3<secret-file \\
        [--set webchaos_https=true]

Ready when `GET http://127.0.0.1:<control port>/health` answers 200 (with the secret in
`x-webchaos-secret`; every control call needs it, see scenarios/secret.py: the harness
passes it through an inherited pipe, never argv or the environment).

Chain: secret (read from its fd at start) -> guard (refuse, strip `x-webchaos-*`) -> recorder
(keep flows, answer `/__webchaos/report`) -> rrweb recorder (answer
`/__webchaos/rrweb`) -> router (to the sites server, Host kept, episode
and secret headers) -> site events (the sites' events header read for triggers, and taken off)
-> network faults -> client-script injection -> client view (the URL the client asked
for is put back, and the secret taken off, on answered flows) -> recorder tail (a finished
flow is kept as its bounded HAR entry, not whole); control serves the API.
HTTPS: off by default (CONNECT is refused with a 403; sites are plain `http://*.test`).
With `webchaos_https=true` the guard lets CONNECT to a site host on port 443 through;
mitmproxy intercepts it with the CA it keeps in `confdir` (`mitmproxy-ca-cert.pem`;
`connection_strategy=lazy` is required because site hosts do not resolve) and the
requests inside the tunnel take the same path as plain ones. The harness's Chromium
trusts only that CA (SPKI pin, see harness/browser/pool.py).

Without the harness, `proxy_addons/standalone.py` applies a fault file to any traffic.
"""

import gc
import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from proxy_addons.arming import SiteEvents  # noqa: E402
from proxy_addons.client import ClientInject  # noqa: E402
from proxy_addons.control import Control  # noqa: E402
from proxy_addons.episodes import Episodes  # noqa: E402
from proxy_addons.guard import Guard  # noqa: E402
from proxy_addons.network import NetworkFaults  # noqa: E402
from proxy_addons.recorder import Recorder  # noqa: E402
from proxy_addons.router import ClientView, Router  # noqa: E402
from proxy_addons.rrweb import RrwebRecorder  # noqa: E402
from proxy_addons.secret import StackSecret  # noqa: E402

# Episodes keep their flows for the HAR, so the heap holds many long-lived objects and the
# default collector pauses show up in the tail: with these settings, p99 at 16 concurrent
# flows fell from 2.8-3.6x bare mitmdump's to 1.6-1.7x (benchmarks/proxy_overhead.py).
gc.freeze()
gc.set_threshold(50_000, 20, 100)

episodes = Episodes()
recorder = Recorder(episodes)
secret = StackSecret()

addons = [
    secret,
    Guard(episodes),
    recorder,
    RrwebRecorder(episodes),
    Router(episodes, secret),
    SiteEvents(episodes),  # the sites' semantic events, for triggers (header taken off here)
    NetworkFaults(episodes),
    ClientInject(episodes),
    ClientView(),
    recorder.tail,  # last: a finished flow is kept as its bounded HAR entry only
    Control(episodes, recorder, secret),
]

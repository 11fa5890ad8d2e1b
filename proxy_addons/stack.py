"""The webchaos proxy: the `mitmdump -s` entry point, with the addons in chain order.

Start it with no agent-facing listener (`--set mode` with no value empties the
`mode` list; each episode adds its own `regular@127.0.0.1:<port>` listener at
runtime through the control API)::

    .venv/bin/mitmdump -q -s <repo>/proxy_addons/stack.py \\
        --set mode \\
        --set webchaos_sites=127.0.0.1:<sites port> \\
        --set webchaos_site_hosts=shop.test,mail.test \\
        --set webchaos_control_port=<control port> \\
        --set connection_strategy=lazy \\
        --set confdir=<state dir>/mitmproxy

Ready when `GET http://127.0.0.1:<control port>/health` answers 200.

Chain: guard (refuse, strip `x-webchaos-*`) -> recorder (keep flows, answer
`/__webchaos/report`) -> router (to the sites server, Host kept, episode header)
-> network faults -> client-script injection; control serves the API.
HTTPS: CONNECT is refused with a 403 for now (sites are plain `http://*.test`).
"""

import sys
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from proxy_addons.client import ClientInject  # noqa: E402
from proxy_addons.control import Control  # noqa: E402
from proxy_addons.episodes import Episodes  # noqa: E402
from proxy_addons.guard import Guard  # noqa: E402
from proxy_addons.network import NetworkFaults  # noqa: E402
from proxy_addons.recorder import Recorder  # noqa: E402
from proxy_addons.router import Router  # noqa: E402

episodes = Episodes()
recorder = Recorder(episodes)

addons = [
    Guard(episodes),
    recorder,
    Router(episodes),
    NetworkFaults(episodes),
    ClientInject(episodes),
    Control(episodes, recorder),
]

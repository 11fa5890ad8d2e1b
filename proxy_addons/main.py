"""The webchaos proxy process the harness starts: mitmproxy with only the addons the stack needs.

`mitmdump -s proxy_addons/stack.py` (the documented command, still supported) runs the same
chain behind mitmdump's ~35 default addons: playback, map/modify, sticky cookies, export, the
`mitm.it` onboarding app, the flow dumper... Every hook of every flow is dispatched to each of
them, which was about a fifth of the proxy's CPU under concurrent load, time a delayed flow
spends after its deadline (benchmarks/latency_accuracy.py). Here the chain is mitmproxy's
core, proxy server, layer selection, TLS and h2c handling, startup error check and log, then
the webchaos addons of proxy_addons/stack.py in their order.
Hooks go only to the addons that have them (proxy_addons/dispatch.py): mitmproxy's own dispatch
was a fifth of this process's CPU at 16 concurrent flows.

It takes the same `--set name=value` options as the mitmdump command (see
proxy_addons/stack.py); `-q` is accepted and is the default (the log shows errors only,
`--set termlog_verbosity=info` for more)::

    .venv/bin/python -O proxy_addons/main.py --set mode --set webchaos_sites=127.0.0.1:<port> ...

Run it with `-O`, as the harness does. Without it mitmproxy type-checks the fields of every
message it builds (`MessageData.__post_init__`, under `if __debug__`); a field that may be None
and is None costs a raised and caught TypeError whose traceback holds its frame, a reference
cycle. A few dozen such cycles per request are left for the cyclic garbage collector, which then
stops the whole proxy for 13-70 ms at a time (21,000-91,000 objects per collection, measured
during benchmarks/latency_accuracy.py): every flow in flight, a delayed one included, waits.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from mitmproxy import exceptions, master, options  # noqa: E402
from mitmproxy.addons import (  # noqa: E402
    block,
    core,
    disable_h2c,
    errorcheck,
    next_layer,
    proxyserver,
    termlog,
    tlsconfig,
)

from proxy_addons import stack  # noqa: E402
from proxy_addons.dispatch import HookDispatch  # noqa: E402


class ProxyMaster(master.Master):
    """mitmproxy's master with the webchaos chain and only the built-in addons it relies on."""

    def __init__(self, opts: options.Options) -> None:
        super().__init__(opts)
        opts.changed.disconnect(self.addons._configure_all)  # replaced, before any addon was added
        self.addons = HookDispatch(self)
        self._termlog_addon = termlog.TermLog()
        self.addons.add(
            self._termlog_addon,
            core.Core(),
            block.Block(),  # refuses clients from outside the host, as mitmdump does by default
            disable_h2c.DisableH2C(),
            proxyserver.Proxyserver(),
            next_layer.NextLayer(),
            tlsconfig.TlsConfig(),
            *stack.addons,
            errorcheck.ErrorCheck(),
        )


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="proxy_addons/main.py", description="The webchaos proxy (mitmproxy with the webchaos addon chain).")
    parser.add_argument("--set", dest="setoptions", action="append", default=[], metavar="option[=value]",
                        help="set an option, as with mitmdump --set (repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true", help="accepted for mitmdump compatibility (default)")
    return parser.parse_args(argv)


async def serve(argv: Sequence[str]) -> int:
    args = parse_args(argv)
    logging.getLogger().setLevel(logging.DEBUG)  # the termlog addon filters by its verbosity option
    logging.getLogger("asyncio").setLevel(logging.WARNING)
    opts = options.Options()
    proxy = ProxyMaster(opts)
    try:
        opts.set("termlog_verbosity=error", *args.setoptions, defer=True)
    except exceptions.OptionsError as e:
        print(f"proxy_addons/main.py: {e}", file=sys.stderr)
        return 2
    if opts.deferred:  # every addon is loaded: an option still waiting is one nobody declares
        print(f"proxy_addons/main.py: unknown option(s): {', '.join(sorted(opts.deferred))}", file=sys.stderr)
        return 2
    # Everything loaded so far lives as long as the process: left out of the collector's full passes
    gc.freeze()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, proxy.shutdown)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # a client that hangs up must not end the process
    await proxy.run()
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    return asyncio.run(serve(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())

"""What one request with thousands of headers costs the proxy: the addon chain's time for one flow.

Every addon hook runs on mitmproxy's one event loop, so the time a hook spends on one
flow stalls every flow of every episode. This drives one flow through the stack's real
addons (guard, recorder, router, network faults, client injection, client view) in
process, hook by hook as mitmproxy does, with N extra request headers, and prints the
time per flow against a 20-header request measured in the same run; then the HAR entry
for it (`make_har`, what closing the episode costs).

Two rows per size: with the guard's default caps (a flood is refused with a 431) and
with the caps lifted (the flow is admitted and routed: shows whether handling stays
linear). Against a guard without the caps (the options do not exist), only the first
row is measured, and it is admitted.

    .venv/bin/python benchmarks/header_flood.py [--repeat 5] [--sizes 1000,5000,10000]
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import statistics
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mitmproxy import http
from mitmproxy.proxy.mode_specs import ProxyMode
from mitmproxy.test import taddons, tflow

from proxy_addons.client import ClientInject
from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.guard import Guard
from proxy_addons.har import make_har
from proxy_addons.network import NetworkFaults
from proxy_addons.recorder import Recorder
from proxy_addons.router import ClientView, Router

BASELINE_HEADERS = 20
LIFTED = {"webchaos_max_request_headers": 10**7, "webchaos_max_request_header_bytes": 10**10}


class Stack:
    def __init__(self, out_dir: Path) -> None:
        self.episodes = Episodes()
        self.guard = Guard(self.episodes)
        self.addons: list[Any] = [self.guard, Recorder(self.episodes), Router(self.episodes),
                                  NetworkFaults(self.episodes), ClientInject(self.episodes), ClientView()]
        self.episode = ProxyEpisode("bench", 1, out_dir, 40001, record_actions=False)
        self.episodes.add(self.episode)

    def flow(self, headers: int) -> http.HTTPFlow:
        f = tflow.tflow(req=http.Request.make("GET", "http://shop.test/products?page=2"))
        f.request.authority = ""
        base = [(b"host", b"shop.test"), (b"user-agent", b"bench/1.0"), (b"accept", b"*/*")]
        extra = [(f"x-flood-{i}".encode(), b"v" * 8) for i in range(headers - len(base))]
        f.request.headers.fields = tuple(base + extra)
        f.client_conn.proxy_mode = ProxyMode.parse(self.episode.mode_spec)
        return f

    async def handle(self, f: http.HTTPFlow) -> None:
        for hook in ("requestheaders", "request"):
            await self._hook(hook, f)
        if f.response is None:
            f.response = http.Response.make(200, b"{}", {"content-type": "application/json"})
        await self._hook("response", f)

    async def _hook(self, name: str, f: http.HTTPFlow) -> None:
        for addon in self.addons:
            method = getattr(addon, name, None)
            if method is not None:
                result = method(f)
                if inspect.isawaitable(result):
                    await result


@contextmanager
def stack(out_dir: Path, lifted: bool) -> Iterator[Stack | None]:
    s = Stack(out_dir)
    with taddons.context(*s.addons) as tctx:
        tctx.configure(s.guard, webchaos_site_hosts="shop.test")
        tctx.configure(s.addons[2], webchaos_sites="127.0.0.1:9")
        if lifted:
            try:
                tctx.configure(s.guard, **LIFTED)
            except KeyError:  # a guard without the caps: nothing to lift
                yield None
                return
        yield s
    s.episode.ledger.close()


async def measure(s: Stack, headers: int, repeat: int) -> tuple[float, float, int]:
    """Median ms to handle one flow, median ms for its HAR entry, and the status it got."""
    handle, har, status = [], [], 0
    for _ in range(repeat):
        f = s.flow(headers)
        t = time.perf_counter()
        await s.handle(f)
        handle.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        make_har([f])
        har.append((time.perf_counter() - t) * 1000)
        assert f.response is not None
        status = f.response.status_code
        s.episode.flows.clear()
    return statistics.median(handle), statistics.median(har), status


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--sizes", default="1000,5000,10000")
    args = parser.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    print(f"one flow through the addon chain, median of {args.repeat} (ms; ratio = against the "
          f"{BASELINE_HEADERS}-header request of the same row set)")
    print(f"  {'caps':>8} {'headers':>8} {'status':>6} | {'handle':>9} {'ratio':>8} | {'HAR entry':>9} {'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for lifted in (False, True):
            with stack(Path(tmp) / ("lifted" if lifted else "default"), lifted) as s:
                if s is None:
                    print(f"  {'lifted':>8}  (this guard has no header caps)")
                    continue
                label = "lifted" if lifted else "default"
                for _ in range(3):  # warm up
                    await measure(s, BASELINE_HEADERS, 1)
                base_handle, base_har, status = await measure(s, BASELINE_HEADERS, max(args.repeat, 20))
                print(f"  {label:>8} {BASELINE_HEADERS:>8} {status:>6} | {base_handle:>9.3f} {1:>8.1f} | "
                      f"{base_har:>9.3f} {1:>8.1f}")
                for n in sizes:
                    handle, har, status = await measure(s, n, args.repeat)
                    print(f"  {label:>8} {n:>8} {status:>6} | {handle:>9.3f} {handle / base_handle:>8.1f} | "
                          f"{har:>9.3f} {har / base_har:>8.1f}")


if __name__ == "__main__":
    asyncio.run(main())

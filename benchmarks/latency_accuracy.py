"""How exact is `latency`? The delay the proxy adds, measured where it is added.

Starts a tiny upstream that answers each request with the wall time its first bytes
were read, and the full stack, once as the process the harness starts
(proxy_addons/main.py) and once as the documented mitmdump command
(proxy_addons/stack.py), one after the other in the same run.
For each requested delay (50, 200, 800, 2000 ms) and each burst size N (1, 8, 32),
one episode arms `latency` on `/slow*`; each round sends N matching and N unmatched
GETs at once. A flow's *forward time* is the time between the proxy receiving the
request (`startedDateTime` in the episode's HAR, mitmproxy's `timestamp_start`) and
the upstream receiving it. The fault's promise is that a matching request reaches the
upstream `delay_ms` after the proxy received it (the delay counts from there, so the
proxy's own queueing is inside it): the error is a matching flow's forward time minus
the requested delay. Also shown: its forward time minus the median forward time of the
unmatched flows of the same burst, minus the delay (what the delay adds over plain
pass-through, which includes that queueing), and the unmatched flows' own forward times:
they must stay at the proxy's pass-through cost, whatever the delay next to them.

Client-side queueing (the client's own event loop, connection set-up) is outside the
measured interval, so what is printed is the proxy's own accuracy.

The baseline, measured in the same run: the *floor* of this machine. Without any proxy, this
process holds N keep-alive connections to the same upstream, waits for the delay on the
proxy's own release clock (network/release.py) and then writes N requests; its error is the
upstream's receipt minus the planned time. What the floor shows (waking after an idle wait,
a loopback write, the upstream's own wake-up) no proxy on this machine can do better than,
so each row also prints the proxy's p99 minus the floor's p99 for the same N and delay.

Then the other timed faults, as a client sees them (one request at a time, keep-alive): `hang`
must answer 504 `timeout_ms` after the request, and `slow_first_byte` must add `delay_ms` to the
answer; each error is the client's time minus the requested one minus the median time of an
unmatched request of the same round (the pass-through cost). The tests assert only that these
never come early (tests/proxy_addons/test_live_network.py, test_network_catalog.py): how late
they come is measured here.

    .venv/bin/python benchmarks/latency_accuracy.py [--rounds 5] [--bursts 1 8 32] [--delays 50 200 800 2000]
        [--proxy main.py mitmdump] [--timed-faults 200 800]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
from proxy_overhead import (
    REPO,
    SECRET,
    SECRET_HEADER,
    STACK_COMMANDS,
    control,
    free_port,
    pct,
    stack_argv,
    start_stack,
    stop_all,
    wait_http,
)

from proxy_addons.network.release import release_clock

DELAYS_MS = (50, 200, 800, 2000)
BURSTS = (1, 8, 32)

# Answers each request with the wall time its first bytes were read off the socket, before any HTTP
# parsing: an HTTP framework's own queueing under a burst (32 requests parsed and handled one after the
# other) would otherwise count as the proxy's lateness. Keep-alive, GETs without a body.
STAMPING_UPSTREAM = """
import asyncio, json, sys, time

class Stamp(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.buffer, self.first = transport, b"", None

    def data_received(self, data):
        if self.first is None:
            self.first = time.time()
        self.buffer += data
        while b"\\r\\n\\r\\n" in self.buffer:
            _, self.buffer = self.buffer.split(b"\\r\\n\\r\\n", 1)
            body = json.dumps({"received": self.first}).encode()
            self.first = time.time() if self.buffer else None
            self.transport.write(b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\n"
                                 b"content-length: %d\\r\\n\\r\\n%s" % (len(body), body))

async def main():
    server = await asyncio.get_running_loop().create_server(Stamp, "127.0.0.1", int(sys.argv[1]))
    await server.serve_forever()

asyncio.run(main())
"""


async def bursts(proxy: str, size: int, rounds: int) -> dict[str, float]:
    """`rounds` bursts of `size` matching + `size` unmatched GETs at once; path -> upstream receive time."""
    connector = aiohttp.TCPConnector(limit=2 * size)
    received: dict[str, float] = {}
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one(path: str) -> None:
            async with session.get(f"http://shop.test{path}", proxy=proxy) as r:
                assert r.status == 200, (path, r.status)
                received[path] = float((await r.json())["received"])

        await asyncio.gather(*(one(f"/warm/{i}") for i in range(2 * size)))  # connections opened
        for n in range(rounds):
            await asyncio.gather(*(one(f"/{kind}/{n}/{i}") for kind in ("slow", "fast") for i in range(size)))
    return received


async def floor_errors(up_port: int, size: int, delay_ms: int, rounds: int) -> list[float]:
    """No proxy: N requests written at once to the upstream at a planned time, held by the release clock;
    ms between the planned time and the upstream's receipt of each."""
    loop = asyncio.get_running_loop()
    connections = [await asyncio.open_connection("127.0.0.1", up_port) for _ in range(size)]
    request = b"GET /floor HTTP/1.1\r\nhost: shop.test\r\n\r\n"
    errors: list[float] = []
    try:
        for _ in range(rounds):
            deadline = loop.time() + delay_ms / 1000
            planned_wall = time.time() + (deadline - loop.time())  # the upstream stamps wall time
            await release_clock().hold(deadline)
            for _, writer in connections:
                writer.write(request)
            for reader, _ in connections:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                received = float(json.loads(await reader.readexactly(length))["received"])
                errors.append((received - planned_wall) * 1000)
    finally:
        for _, writer in connections:
            writer.close()
    return errors


def forward_times(har_path: Path, received: dict[str, float]) -> dict[str, float]:
    """path -> ms between the proxy receiving the request and the upstream receiving it."""
    out: dict[str, float] = {}
    for entry in json.loads(har_path.read_text())["log"]["entries"]:
        path = "/" + entry["request"]["url"].split("/", 3)[3]
        if path in received:
            started = datetime.fromisoformat(entry["startedDateTime"]).timestamp()
            out[path] = (received[path] - started) * 1000
    return out


def measure_floor(args: argparse.Namespace) -> dict[tuple[int, int], tuple[float, float]]:
    """(burst size, delay) -> the floor's error (p50, p99), with the same upstream and no proxy."""
    up_port = free_port()
    upstream = subprocess.Popen([sys.executable, "-c", STAMPING_UPSTREAM, str(up_port)])
    floors: dict[tuple[int, int], tuple[float, float]] = {}
    try:
        wait_http(f"http://127.0.0.1:{up_port}/")
        for size in args.bursts:
            for delay in args.delays:
                errors = asyncio.run(floor_errors(up_port, size, delay, args.rounds))
                floors[size, delay] = (statistics.median(errors), pct(errors, 99))
    finally:
        stop_all([upstream])
    return floors


def measure(proxy_argv: list[str], args: argparse.Namespace) -> list[tuple[float, ...]]:
    """One proxy process, every (burst size, delay): the rows of the table."""
    up_port, control_port = free_port(), free_port()
    state = Path(tempfile.mkdtemp(prefix="webchaos-latency-"))
    procs = [subprocess.Popen([sys.executable, "-c", STAMPING_UPSTREAM, str(up_port)])]
    rows: list[tuple[float, ...]] = []
    try:
        procs.append(start_stack(stack_argv(proxy_argv, up_port, control_port, state / "stack"), cwd=REPO))
        wait_http(f"http://127.0.0.1:{up_port}/")
        base = f"http://127.0.0.1:{control_port}"
        wait_http(f"{base}/health", headers={SECRET_HEADER: SECRET})

        for size in args.bursts:
            for delay in args.delays:
                name = f"delay-{delay}-n{size}"
                out_dir = state / name
                proxy = str(control("POST", f"{base}/episodes", {
                    "episode_id": name, "seed": 1, "out_dir": str(out_dir), "port": None,
                    "faults": [{"type": "latency", "layer": "network", "match": {"path": "/slow*"},
                                "params": {"delay_ms": delay}}]})["proxy_url"])
                received = asyncio.run(bursts(proxy, size, args.rounds))
                closed = control("DELETE", f"{base}/episodes/{name}")
                assert closed["firings"] == size * args.rounds, closed
                forward = forward_times(out_dir / "trace.har", received)
                errors: list[float] = []
                over_unmatched: list[float] = []
                unmatched: list[float] = []
                for n in range(args.rounds):
                    fast = [forward[f"/fast/{n}/{i}"] for i in range(size)]
                    floor = statistics.median(fast)
                    unmatched += fast
                    slow = [forward[f"/slow/{n}/{i}"] - delay for i in range(size)]
                    errors += slow
                    over_unmatched += [e - floor for e in slow]
                rows.append((size, delay, statistics.median(errors), pct(errors, 1), pct(errors, 99),
                             max(abs(e) for e in errors), pct(over_unmatched, 50), pct(unmatched, 50),
                             max(unmatched), pct(unmatched, 99) - pct(unmatched, 1)))
    finally:
        stop_all(procs)
    return rows


async def timed_fault_times(proxy: str, rounds: int) -> dict[str, list[float]]:
    """Client-side ms of `rounds` GETs each of /fast, /sfb and /hang, one at a time on one connection (the
    hang's, closed by its 504, on its own)."""
    times: dict[str, list[float]] = {"fast": [], "sfb": [], "hang": []}
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1)) as session:
        async def one(kind: str, n: int) -> None:
            start = time.monotonic()
            async with session.get(f"http://shop.test/{kind}/{n}", proxy=proxy) as r:
                await r.read()
                assert r.status == (504 if kind == "hang" else 200), (kind, r.status)
            times[kind].append((time.monotonic() - start) * 1000)

        await one("fast", -1)  # the connection opened
        times["fast"].clear()
        for n in range(rounds):
            for kind in ("fast", "sfb", "hang"):
                await one(kind, n)
    return times


TimedRow = tuple[str, int, float, float, float, float]  # fault, requested ms, error p50, p99, max, unmatched p50


def measure_timed_faults(proxy_argv: list[str], args: argparse.Namespace) -> list[TimedRow]:
    """One proxy process: per requested time, (fault, ms, error p50, p99, max, unmatched p50)."""
    up_port, control_port = free_port(), free_port()
    state = Path(tempfile.mkdtemp(prefix="webchaos-timed-"))
    procs = [subprocess.Popen([sys.executable, "-c", STAMPING_UPSTREAM, str(up_port)])]
    rows: list[TimedRow] = []
    try:
        procs.append(start_stack(stack_argv(proxy_argv, up_port, control_port, state / "stack"), cwd=REPO))
        wait_http(f"http://127.0.0.1:{up_port}/")
        base = f"http://127.0.0.1:{control_port}"
        wait_http(f"{base}/health", headers={SECRET_HEADER: SECRET})
        for wanted in args.timed_faults:
            name = f"timed-{wanted}"
            proxy = str(control("POST", f"{base}/episodes", {
                "episode_id": name, "seed": 1, "out_dir": str(state / name), "port": None,
                "faults": [{"type": "hang", "layer": "network", "match": {"path": "/hang/*"},
                            "params": {"timeout_ms": wanted}},
                           {"type": "slow_first_byte", "layer": "network", "match": {"path": "/sfb/*"},
                            "params": {"delay_ms": wanted}}]})["proxy_url"])
            times = asyncio.run(timed_fault_times(proxy, args.rounds))
            control("DELETE", f"{base}/episodes/{name}")
            floor = statistics.median(times["fast"])
            for kind, fault in (("hang", "hang"), ("sfb", "slow_first_byte")):
                errors = [t - wanted - floor for t in times[kind]]
                rows.append((fault, wanted, statistics.median(errors), pct(errors, 99), max(errors), floor))
    finally:
        stop_all(procs)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="bursts per (delay, burst size)")
    parser.add_argument("--bursts", type=int, nargs="+", default=list(BURSTS), help="burst sizes N")
    parser.add_argument("--delays", type=int, nargs="+", default=list(DELAYS_MS), help="requested delays, ms")
    parser.add_argument("--proxy", nargs="+", choices=sorted(STACK_COMMANDS), default=list(STACK_COMMANDS),
                        help="which proxy processes to measure, one after the other in this run")
    parser.add_argument("--timed-faults", type=int, nargs="*", default=[200, 800],
                        help="timeout_ms of hang and delay_ms of slow_first_byte to measure (none: skip)")
    args = parser.parse_args()

    worst: dict[str, float] = {}
    worst_over_floor: dict[str, float] = {}
    floors = measure_floor(args)
    print(f"\nfloor (no proxy): N requests written at once at a planned time, {args.rounds} rounds; "
          "error = upstream received - planned")
    print(f"{'N':>3} {'requested':>9}  {'error p50':>9} {'p99':>7}")
    for (size, delay), (f50, f99) in floors.items():
        print(f"{size:>3} {delay:>6} ms  {f50:>+9.2f} {f99:>+7.2f}")
    floor_worst = max((abs(f99) for _, f99 in floors.values()), default=0.0)
    for which in args.proxy:
        rows = measure(STACK_COMMANDS[which], args)
        print(f"\n{which}: latency accuracy, N matching + N unmatched GETs at once, {args.rounds} rounds; "
              "error = (proxy received -> upstream received) - requested delay")
        print(f"{'N':>3} {'requested':>9}  {'error p50':>9} {'p1':>7} {'p99':>7} {'max |e|':>8} {'p99-floor':>9}  "
              f"{'over unmatched p50':>18}   {'unmatched fwd p50':>17} {'max':>7} {'p1..p99 spread':>15}")
        over_floor: list[float] = []
        for size, delay, e50, e1, e99, emax, o50, u50, umax, spread in rows:
            over_floor.append(e99 - floors[int(size), int(delay)][1])
            print(f"{size:>3} {delay:>6} ms  {e50:>+9.2f} {e1:>+7.2f} {e99:>+7.2f} {emax:>8.2f} "
                  f"{over_floor[-1]:>+9.2f}  {o50:>+18.2f}   {u50:>14.2f} ms {umax:>7.2f} {spread:>12.2f} ms")
        worst[which] = max((max(abs(r[3]), abs(r[4])) for r in rows), default=0.0)
        worst_over_floor[which] = max(over_floor, default=0.0)
    print()
    print(f"floor (no proxy): worst p99 error over all rows {floor_worst:.2f} ms")
    for which, value in worst.items():
        print(f"{which}: worst p1/p99 error over all rows {value:.2f} ms (goal: within ±5 ms); "
              f"worst p99 over the floor's {worst_over_floor[which]:+.2f} ms; "
              f"ratio to the floor's worst {value / max(floor_worst, 0.01):.2f}")
    if len(worst) == 2:
        a, b = worst
        print(f"ratio {a}/{b}: {worst[a] / worst[b]:.2f}")
    print("An unmatched max far below the requested delay shows unmatched flows are not delayed. "
          "'over unmatched' is negative by about the unmatched median: the queueing a plain flow suffers in the "
          "proxy is inside a matching flow's delay, not added to it.")
    for which in args.proxy if args.timed_faults else []:
        print(f"\n{which}: hang and slow_first_byte as the client sees them, {args.rounds} rounds; "
              "error = client time - requested - unmatched median")
        print(f"{'fault':>15} {'requested':>9}  {'error p50':>9} {'p99':>7} {'max':>7}  {'unmatched p50':>13}")
        for fault, wanted, e50, e99, emax, floor in measure_timed_faults(STACK_COMMANDS[which], args):
            print(f"{fault:>15} {wanted:>6} ms  {e50:>+9.2f} {e99:>+7.2f} {emax:>+7.2f}  {floor:>10.2f} ms")


if __name__ == "__main__":
    main()

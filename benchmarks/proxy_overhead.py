"""How much the proxy costs: direct vs bare mitmdump vs the full webchaos stack (loopback only).

Starts, as separate processes, a tiny aiohttp upstream, a bare `mitmdump` (regular
mode, no addons) and the full stack twice: as the documented mitmdump command
(proxy_addons/stack.py) and as the process the harness starts (proxy_addons/main.py:
the same chain on a lean master), each with one episode and no faults; then sends a bounded number
of GET requests at concurrency 1 and 16 through each and prints requests/s and
p50/p99 latency, with ratios against direct and bare mitmdump measured in the same run. The requests go
in rounds, the configurations taking turns, so that other processes' load falls on all of them alike.

    .venv/bin/python benchmarks/proxy_overhead.py [--requests 500] [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import aiohttp

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from scenarios.secret import SECRET_HEADER, make_secret, secret_pipe  # noqa: E402

BIN = Path(sys.executable).parent

UPSTREAM = """
import sys
from aiohttp import web
async def ok(request):
    return web.Response(text='{"ok": true, "padding": "%s"}' % ("x" * 200), content_type="application/json")
app = web.Application()
app.router.add_route("*", "/{tail:.*}", ok)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""


SECRET = make_secret()  # the stack's secret for this benchmark's proxies (scenarios/secret.py)

# The two ways to run the stack: the process the harness starts, and the documented mitmdump command.
STACK_COMMANDS = {
    "main.py": [sys.executable, "-O", str(REPO / "proxy_addons" / "main.py")],  # as services/processes.py runs it
    "mitmdump": [str(BIN / "mitmdump"), "-q", "-s", str(REPO / "proxy_addons" / "stack.py")],
}


def stack_argv(command: list[str], up_port: int, control_port: int, confdir: Path) -> list[str]:
    """`command` with the stack's options: the upstream on `up_port` as the only site (shop.test), no
    agent-facing listener until an episode opens one."""
    return [*command, "--set", "mode",
            "--set", f"webchaos_sites=127.0.0.1:{up_port}", "--set", "webchaos_site_hosts=shop.test",
            "--set", f"webchaos_control_port={control_port}", "--set", "connection_strategy=lazy",
            "--set", f"confdir={confdir}"]


def start_stack(argv: list[str], **kwargs: object) -> subprocess.Popen[bytes]:
    """mitmdump with the webchaos stack, handed SECRET through an inherited pipe."""
    fd = secret_pipe(SECRET)
    try:
        return subprocess.Popen([*argv, "--set", f"webchaos_secret_fd={fd}"], pass_fds=(fd,), **kwargs)  # type: ignore[call-overload]
    finally:
        os.close(fd)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_http(url: str, proxy: str | None = None, timeout: float = 30, headers: dict[str, str] | None = None) -> None:
    handlers = [urllib.request.ProxyHandler({"http": proxy} if proxy else {})]
    opener = urllib.request.build_opener(*handlers)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with opener.open(urllib.request.Request(url, headers=headers or {}), timeout=1) as r:
                if r.status < 500:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def control(method: str, url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json", SECRET_HEADER: SECRET})
    with urllib.request.urlopen(req, timeout=10) as r:
        return dict(json.loads(r.read()))


async def load(url: str, proxy: str | None, total: int, concurrency: int) -> tuple[float, list[float]]:
    """Sends `total` timed requests (after a warm-up) `concurrency` at a time; returns the seconds they took
    and each one's latency in ms."""
    connector = aiohttp.TCPConnector(limit=concurrency)
    latencies: list[float] = []
    async with aiohttp.ClientSession(connector=connector) as session:
        async def one() -> float:
            start = time.perf_counter()
            async with session.get(url, proxy=proxy) as r:
                await r.read()
                if r.status != 200:
                    raise RuntimeError(f"{url} via {proxy}: {r.status}")
            return (time.perf_counter() - start) * 1000

        for _ in range(max(20, concurrency * 2)):  # warm-up, connections open
            await one()
        remaining = total

        async def worker() -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                latencies.append(await one())

        start = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        elapsed = time.perf_counter() - start
    return elapsed, latencies


def stop_all(procs: list[subprocess.Popen[bytes]]) -> None:
    """Terminate the processes a benchmark started, newest first; kill what does not stop."""
    for p in reversed(procs):
        p.terminate()
    for p in procs:
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            p.kill()


def pct(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=500, help="timed requests per configuration")
    parser.add_argument("--rounds", type=int, default=5,
                        help="the requests are sent in this many rounds, the configurations taking turns in each, so "
                             "a change in the machine's load (other processes) falls on all of them alike")
    args = parser.parse_args()

    up_port, bare_port = free_port(), free_port()
    state = Path(tempfile.mkdtemp(prefix="webchaos-bench-"))
    procs = [subprocess.Popen([sys.executable, "-c", UPSTREAM, str(up_port)])]
    controls = {name: free_port() for name in STACK_COMMANDS}
    try:
        procs.append(subprocess.Popen([
            str(BIN / "mitmdump"), "-q", "--mode", f"regular@127.0.0.1:{bare_port}",
            "--set", "connection_strategy=lazy", "--set", f"confdir={state / 'bare'}"]))
        for name, command in STACK_COMMANDS.items():
            procs.append(start_stack(stack_argv(command, up_port, controls[name], state / name / "mitmproxy"),
                                     cwd=REPO))
        direct_url = f"http://127.0.0.1:{up_port}/api/products"
        wait_http(direct_url)
        wait_http(direct_url, proxy=f"http://127.0.0.1:{bare_port}")
        configs = [
            ("direct", direct_url, None),
            ("bare mitmdump", direct_url, f"http://127.0.0.1:{bare_port}"),
        ]
        for name, port in controls.items():
            base = f"http://127.0.0.1:{port}"
            wait_http(f"{base}/health", headers={SECRET_HEADER: SECRET})
            episode = control("POST", f"{base}/episodes", {
                "episode_id": "bench", "seed": 1, "faults": [], "out_dir": str(state / name / "episode"),
                "port": None})
            configs.append((f"stack {name}", "http://shop.test/api/products", episode["proxy_url"]))

        rows = []
        per_round = [args.requests // args.rounds + (i < args.requests % args.rounds) for i in range(args.rounds)]
        for concurrency in (1, 16):
            direct: tuple[float, float, float] | None = None
            bare: tuple[float, float, float] | None = None
            elapsed = {name: 0.0 for name, _, _ in configs}
            latencies: dict[str, list[float]] = {name: [] for name, _, _ in configs}
            for count in per_round:
                for name, url, proxy in configs:
                    seconds, lat = asyncio.run(load(url, proxy, count, concurrency))
                    elapsed[name] += seconds
                    latencies[name] += lat
            for name, _, _ in configs:
                rps, lat = args.requests / elapsed[name], latencies[name]
                row = (rps, pct(lat, 50), pct(lat, 99))
                direct = direct or row
                if name == "bare mitmdump":
                    bare = row
                vs_bare = (rps / bare[0], row[2] / bare[2]) if bare else (1.0, 1.0)  # direct: ratios n/a, shown as 1
                rows.append((concurrency, name, *row, rps / direct[0], row[1] - direct[1],
                             row[2] - direct[2], *vs_bare))
        closed = {f"stack {name}": control("DELETE", f"http://127.0.0.1:{port}/episodes/bench")
                  for name, port in controls.items()}
    finally:
        stop_all(procs)

    kept = ", ".join(f"{name} {c['flows']}" for name, c in closed.items())
    print(f"\n{args.requests} timed GET requests per row in {args.rounds} rounds (the rows taking turns), loopback,"
          f" keep-alive; each stack: 1 episode, no faults"
          f" (flows kept in the episode HAR: {kept})\n")
    print(f"{'conc':>4}  {'config':<14} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'req/s vs direct':>16}"
          f" {'p50 added ms':>13} {'p99 added ms':>13} {'req/s vs bare':>14} {'p99 vs bare':>12}")
    for conc, name, rps, p50, p99, ratio, added, added99, rps_bare, p99_bare in rows:
        print(f"{conc:>4}  {name:<14} {rps:>8.0f} {p50:>8.2f} {p99:>8.2f} {ratio:>15.2f}x {added:>13.2f}"
              f" {added99:>13.2f} {rps_bare:>13.2f}x {p99_bare:>11.2f}x")


if __name__ == "__main__":
    main()

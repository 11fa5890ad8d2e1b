"""What an open episode costs the proxy in memory as its agent moves large bodies.

Starts the stack (the command documented in proxy_addons/stack.py) in front of an upstream
that answers `/file?mib=N` with N MiB, opens one episode, fetches `--count` responses of
`--mib` MiB through the episode's port, and prints mitmdump's resident memory (VmRSS) before,
after the fetches with the episode still open, and after it is closed (HAR written), the
peak (VmHWM), and the HAR's size. `--repo` runs another checkout's proxy (e.g. an export of
main, to compare).

    .venv/bin/python benchmarks/episode_memory.py [--count 40] [--mib 2] [--repo PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proxy_overhead import BIN, REPO, SECRET, SECRET_HEADER, control, free_port, start_stack, wait_http

UPSTREAM = """
import sys
from aiohttp import web
async def file(request):
    return web.Response(body=b"x" * (int(request.query.get("mib", "1")) << 20), content_type="text/plain")
app = web.Application()
app.router.add_route("*", "/{tail:.*}", file)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"no {field}")


async def fetch(proxy: str, count: int, mib: int) -> int:
    total = 0
    async with aiohttp.ClientSession() as session:
        for i in range(count):
            async with session.get(f"http://shop.test/file/{i}?mib={mib}", proxy=proxy) as r:
                total += len(await r.read())
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--mib", type=int, default=2)
    parser.add_argument("--repo", type=Path, default=REPO, help="checkout whose proxy_addons/stack.py to run")
    args = parser.parse_args()
    up_port, control_port = free_port(), free_port()
    state = Path(tempfile.mkdtemp(prefix="webchaos-memory-"))
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(up_port)])
    argv = [str(BIN / "mitmdump"), "-q", "-s", str(args.repo / "proxy_addons" / "stack.py"), "--set", "mode",
            "--set", f"webchaos_sites=127.0.0.1:{up_port}", "--set", "webchaos_site_hosts=shop.test",
            "--set", f"webchaos_control_port={control_port}", "--set", "connection_strategy=lazy",
            "--set", f"confdir={state / 'mitmproxy'}"]
    secured = (args.repo / "proxy_addons" / "secret.py").exists()
    proc = start_stack(argv, cwd=args.repo) if secured else subprocess.Popen(argv, cwd=args.repo)
    try:
        wait_http(f"http://127.0.0.1:{up_port}/")
        wait_http(f"http://127.0.0.1:{control_port}/health", headers={SECRET_HEADER: SECRET})
        base = f"http://127.0.0.1:{control_port}"
        episode = control("POST", f"{base}/episodes", {"episode_id": "mem", "seed": 1, "faults": [],
                                                       "out_dir": str(state / "mem"), "port": None})
        time.sleep(0.5)
        before = status_kib(proc.pid, "VmRSS")
        moved = asyncio.run(fetch(episode["proxy_url"], args.count, args.mib))
        time.sleep(0.5)
        open_rss = status_kib(proc.pid, "VmRSS")
        control("DELETE", f"{base}/episodes/mem")
        closed_rss, peak = status_kib(proc.pid, "VmRSS"), status_kib(proc.pid, "VmHWM")
        har = (state / "mem" / "trace.har").stat().st_size
    finally:
        proc.terminate()
        upstream.terminate()
        proc.wait(10)
        upstream.wait(10)
    print(f"\n{args.repo}: {args.count} responses of {args.mib} MiB ({moved >> 20} MiB) through one episode")
    print(f"  mitmdump RSS before      {before / 1024:8.1f} MiB")
    print(f"  episode open, after them {open_rss / 1024:8.1f} MiB  (+{(open_rss - before) / 1024:.1f})")
    print(f"  episode closed (HAR)     {closed_rss / 1024:8.1f} MiB  peak {peak / 1024:.1f} MiB")
    print(f"  trace.har                {har / 1024 / 1024:8.1f} MiB")


if __name__ == "__main__":
    main()

"""What a compressed request body costs the proxy: peak memory of mitmdump and size of the episode's HAR.

A body of a few hundred bytes with `Content-Encoding: br` (or a few hundred KB of gzip)
can decode to hundreds of MiB. For each body (a plain one of the bomb's size as the
baseline, a brotli bomb, a gzip bomb), posted once to the recorder's report endpoint
and once to a site path, this starts a fresh stack (the command documented in
proxy_addons/stack.py, in front of a raw-socket upstream that never decodes), opens one
episode, sends the body as raw HTTP/1.1, closes the episode (the HAR is written) and
prints the status, the growth of mitmdump's peak resident memory (VmHWM) over its peak
before the request (once the request is answered, and again once the HAR is written), and
the HAR's size, with ratios against the plain body.

    .venv/bin/python benchmarks/body_bomb.py [--mib 256]
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import brotli

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from proxy_overhead import SECRET, SECRET_HEADER, STACK_COMMANDS, stack_argv, start_stack  # noqa: E402

BIN = Path(sys.executable).parent

UPSTREAM = """
import asyncio, sys
async def handle(reader, writer):
    try:
        while True:
            head = await reader.readuntil(b"\\r\\n\\r\\n")
            length = 0
            for line in head.split(b"\\r\\n"):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":", 1)[1])
            while length:
                length -= len(await reader.read(min(length, 65536)))
            writer.write(b"HTTP/1.1 200 OK\\r\\ncontent-type: application/json\\r\\ncontent-length: 2\\r\\n\\r\\n{}")
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        writer.close()
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", int(sys.argv[1]))
    await server.serve_forever()
asyncio.run(main())
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def control(method: str, url: str, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"content-type": "application/json", SECRET_HEADER: SECRET})
    with urllib.request.urlopen(req, timeout=120) as r:
        return dict(json.loads(r.read()))


def peak_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("no VmHWM")


async def post(port: int, path: str, body: bytes, encoding: str | None) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = [f"POST http://shop.test{path} HTTP/1.1", "Host: shop.test", "Connection: close",
            "Content-Type: application/json", f"Content-Length: {len(body)}"]
    if encoding:
        head.append(f"Content-Encoding: {encoding}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), 300)
    writer.close()
    return int(answer.split(b" ", 2)[1]) if answer else 0


def run_case(up_port: int, state: Path, path: str, body: bytes,
             encoding: str | None) -> tuple[int, float, float, int]:
    """(status, peak RSS growth in MiB after the request and after the HAR, HAR bytes): one POST, fresh stack."""
    control_port = free_port()
    proc = start_stack(stack_argv(STACK_COMMANDS["mitmdump"], up_port, control_port, state / "mitmproxy"), cwd=REPO)
    base = f"http://127.0.0.1:{control_port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                control("GET", f"{base}/health")
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        out_dir = state / f"ep-{control_port}"
        episode = control("POST", f"{base}/episodes", {"episode_id": "bomb", "seed": 1, "faults": [],
                                                        "out_dir": str(out_dir), "record_actions": False})
        before = peak_kib(proc.pid)
        status = asyncio.run(post(episode["port"], path, body, encoding))
        answered = (peak_kib(proc.pid) - before) / 1024
        control("DELETE", f"{base}/episodes/bomb")
        exported = (peak_kib(proc.pid) - before) / 1024
        har = out_dir / "trace.har"
        size = har.stat().st_size
        har.unlink()
        return status, answered, exported, size
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mib", type=int, default=256, help="decoded size of the bombs")
    args = parser.parse_args()
    zeros = b"\0" * (args.mib << 20)
    br, gz = brotli.compress(zeros, quality=5), gzip.compress(zeros, 9)
    del zeros
    bodies = [("plain", b'{"x": "' + b"y" * (len(br) - 10) + b'"}', None), ("br bomb", br, "br"),
              ("gzip bomb", gz, "gzip")]
    up_port = free_port()
    upstream = subprocess.Popen([sys.executable, "-c", UPSTREAM, str(up_port)])
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="webchaos-bench-") as tmp:
            for path in ("/__webchaos/report", "/api/cart"):
                for label, body, encoding in bodies:
                    rows.append((path, label, len(body), *run_case(up_port, Path(tmp), path, body, encoding)))
    finally:
        upstream.terminate()
        upstream.wait(10)
    print(f"\none POST per row on a fresh stack; bombs decode to {args.mib} MiB; ratios against the plain body\n")
    print(f"  {'path':<20} {'body':<10} {'bytes':>8} {'status':>6} | {'peak RSS +MiB: answered':>23} "
          f"{'HAR written':>11} | {'HAR bytes':>11} {'ratio':>9}")
    plain: dict[str, int] = {}
    for path, label, size, status, answered, exported, har in rows:
        base_har = plain.setdefault(path, har)
        print(f"  {path:<20} {label:<10} {size:>8} {status:>6} | {answered:>23.1f} {exported:>11.1f} | "
              f"{har:>11} {har / base_har:>9.1f}")


if __name__ == "__main__":
    main()

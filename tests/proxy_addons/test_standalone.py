"""Standalone mode: plain `mitmdump -s proxy_addons/standalone.py --set webchaos_faults=...`, no harness,
no episodes, no guard, in front of an ordinary server."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import aiohttp
import pytest
import yaml

from proxy_addons.standalone import read_fault_file
from scenarios.faults import FaultError
from tests.proxy_addons.live import MITMDUMP, REPO, free_port
from tests.proxy_addons.netlive import CountingSite

FAULTS = {"faults": [
    {"type": "error_then_success", "match": {"path": "/api/orders", "methods": ["POST"]},
     "params": {"status": 503, "retry_after_s": 1}},
    {"type": "swallowed_write", "match": {"path": "/api/cart"}},
    {"type": "intermittent_error", "match": {"path": "/flaky"}, "params": {"status": 500}},
]}


def command(port: int, faults: Path, *extra: str) -> list[str]:
    return [str(MITMDUMP), "-q", "-s", str(REPO / "proxy_addons" / "standalone.py"),
            "--listen-host", "127.0.0.1", "--listen-port", str(port),
            "--set", f"webchaos_faults={faults}", *extra]


@pytest.fixture(scope="module")
def site() -> Iterator[CountingSite]:
    server = CountingSite().start()
    yield server
    server.stop()


def run(cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("wb") as out:
        return subprocess.Popen(cmd, cwd=REPO, stdout=out, stderr=subprocess.STDOUT)


def wait_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    import socket

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(log.read_text())
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(log.read_text())


def stop(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(5)


async def statuses(site: CountingSite, port: int, calls: list[tuple[str, str]]) -> list[int]:
    out = []
    async with aiohttp.ClientSession() as s:
        for method, path in calls:
            async with s.request(method, f"http://127.0.0.1:{site.port}{path}", json={"a": 1},
                                 proxy=f"http://127.0.0.1:{port}") as r:
                await r.read()
                out.append(r.status)
    return out


async def test_standalone_applies_a_fault_file_to_any_traffic(site: CountingSite, tmp_path: Path) -> None:
    faults = tmp_path / "faults.yaml"
    faults.write_text(yaml.safe_dump(FAULTS))
    calls = [("POST", "/api/orders"), ("POST", "/api/orders"), ("POST", "/api/cart"), ("GET", "/api/cart")]
    calls += [("GET", "/flaky")] * 10
    sequences = []
    for seed in (3, 3):
        port, ledger = free_port(), tmp_path / f"ledger-{len(sequences)}.jsonl"
        log = tmp_path / "mitmdump.log"
        process = run(command(port, faults, "--set", "webchaos_seed=" + str(seed),
                              "--set", f"webchaos_ledger={ledger}"), log)
        try:
            wait_listening(port, process, log)
            before = site.count("POST", "/api/cart")
            got = await statuses(site, port, calls)
        finally:
            stop(process)
        assert got[:4] == [503, 201, 201, 200]
        assert set(got[4:]) == {200, 500}
        assert site.count("POST", "/api/cart") == before  # swallowed
        lines = [json.loads(x) for x in ledger.read_text().splitlines()]
        assert [x["type"] for x in lines[:2]] == ["error_then_success", "swallowed_write"]
        sequences.append([(x["fault_id"], x["request"]["path"]) for x in lines])
    assert sequences[0] == sequences[1]  # same seed, same firings


def test_a_bad_fault_file_stops_mitmdump_with_index_and_field(tmp_path: Path) -> None:
    faults = tmp_path / "bad.yaml"
    faults.write_text(yaml.safe_dump([{"type": "latency", "params": {"delay_ms": 5}},
                                      {"type": "latency", "params": {"delay_ms": -1}}]))
    log = tmp_path / "bad.log"
    process = run(command(free_port(), faults), log)
    try:
        code = process.wait(30)
    finally:
        if process.poll() is None:
            stop(process)
    assert code != 0
    text = log.read_text()
    assert "faults[1].params.delay_ms" in text and "greater than or equal to 0" in text


def test_fault_file_shapes(tmp_path: Path) -> None:
    listed = tmp_path / "list.yaml"
    listed.write_text("- {type: reset}\n")
    assert read_fault_file(listed) == [{"layer": "network", "type": "reset"}]
    wrapped = tmp_path / "wrapped.yaml"
    wrapped.write_text("faults: [{type: reset, layer: network}]\n")
    assert read_fault_file(wrapped) == [{"layer": "network", "type": "reset"}]
    client = tmp_path / "client.yaml"
    client.write_text("- {type: overlay, layer: client}\n")
    with pytest.raises(FaultError, match=r"faults\[0\]\.layer: only network faults"):
        read_fault_file(client)
    scalar = tmp_path / "scalar.yaml"
    scalar.write_text("just text\n")
    with pytest.raises(FaultError, match="expected a list"):
        read_fault_file(scalar)

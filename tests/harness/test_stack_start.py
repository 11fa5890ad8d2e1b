"""Starting the stack: a start that fails is made again on fresh ports, and a service that will not
answer its health check is named with what it last answered and where its threads were. Real processes."""

import asyncio
import signal
import socket
import sys
from pathlib import Path

import aiohttp
import pytest

from harness.services import processes
from harness.services.processes import Service, Services, StackError
from scenarios.secret import SECRET_HEADER

# A service that listens on the given port and answers every request 503; run by the launcher the real
# services are run by (processes.launched), which registers the dump.
_SULKING_SERVICE = """
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class Sulk(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(503); self.end_headers()
    def log_message(self, *args):
        pass
HTTPServer(("127.0.0.1", int(sys.argv[1])), Sulk).serve_forever()
"""


async def test_a_service_that_never_answers_200_is_named_with_its_last_answer_and_its_stacks(
        tmp_path: Path) -> None:
    port = processes.free_port()
    script = tmp_path / "sulker.py"
    script.write_text(_SULKING_SERVICE)
    service = Service("sulker", processes.launched(Path(sys.executable), [str(script), str(port)]),
                      f"http://127.0.0.1:{port}/health", tmp_path / "sulker.log")
    await service.start()
    try:
        with pytest.raises(StackError) as caught:
            await service.wait_healthy(timeout_s=3.0)
    finally:
        await service.stop()
    message = str(caught.value)
    assert "sulker not healthy" in message and f"pid {service.pid}" in message
    assert "last gave HTTP 503" in message
    # faulthandler's dump, from the service's own log: where its main thread was
    assert "Current thread" in message or "Thread 0x" in message
    assert "serve_forever" in message


async def test_a_start_whose_port_was_taken_is_made_again_on_fresh_ports(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> None:
    # The control port is taken between choosing it and the proxy binding it (another process got it)
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    taken_port = taken.getsockname()[1]
    ports = iter([processes.free_port(), processes.free_port(), taken_port])
    real_free_port = processes.free_port
    monkeypatch.setattr(processes, "free_port", lambda: next(ports, None) or real_free_port())
    running = Services(state_dir=tmp_path / "state", supervise=False)
    try:
        await running.start()
        assert running.control_port != taken_port
        async with aiohttp.ClientSession(headers={SECRET_HEADER: running.secret}) as session:
            async with session.get(f"{running.control_url}/health") as response:
                assert response.status == 200
    finally:
        await running.stop()
        taken.close()
    said = capfd.readouterr().err
    assert "starting the stack failed (attempt 1 of 2)" in said and "address already in use" in said


async def test_the_last_failed_attempt_is_raised(tmp_path: Path) -> None:
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:  # a port the caller chose is kept on every attempt, so each one fails
        with pytest.raises(StackError, match="proxy exited"):
            await Services(state_dir=tmp_path / "state", control_port=taken.getsockname()[1],
                           supervise=False).start(attempts=2)
    finally:
        taken.close()
    with pytest.raises(ValueError, match="at least 1"):
        await Services(state_dir=tmp_path / "state").start(attempts=0)


async def test_both_services_write_where_their_threads_are_when_asked(tmp_path: Path) -> None:
    running = Services(state_dir=tmp_path / "state", supervise=False)
    await running.start()
    try:
        for service in running.services:
            assert service.process is not None
            service.process.send_signal(signal.SIGUSR1)
        for service in running.services:
            for _ in range(400):  # until the dump is in the log (faulthandler writes it from the signal handler)
                if "most recent call first" in service.log_path.read_text(errors="replace"):
                    break
                await asyncio.sleep(0.05)
            assert "most recent call first" in service.log_path.read_text(errors="replace"), service.name
            assert service.process is not None and service.process.returncode is None, service.name  # still serving
    finally:
        await running.stop()

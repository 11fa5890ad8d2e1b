"""The proxy process the harness starts (proxy_addons/main.py): bad options stop it at once with a
clear message; with good ones it serves the stack (the harness's end-to-end tests drive it)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from proxy_addons.main import ProxyMaster

MAIN = Path(__file__).resolve().parents[2] / "proxy_addons" / "main.py"


@pytest.mark.parametrize(("options", "message"), [
    (["--set", "webchaos_no_such_option=1"], "unknown option(s): webchaos_no_such_option"),
    (["--set", "webchaos_secret_fd=99"], "webchaos_secret_fd: cannot read the secret from fd 99"),
    (["--set", "termlog_verbosity=loud"], "termlog_verbosity"),
])
def test_a_bad_option_stops_the_proxy_with_the_option_named(options: list[str], message: str,
                                                            tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(MAIN), "--set", f"confdir={tmp_path}", *options],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert message in done.stderr


async def test_the_chain_has_the_webchaos_addons_and_none_of_mitmdumps_extras() -> None:
    from mitmproxy import options

    master = ProxyMaster(options.Options())
    names = {type(addon).__name__ for addon in master.addons.chain}
    assert {"Proxyserver", "NextLayer", "TlsConfig", "Guard", "Router", "NetworkFaults", "Control"} <= names
    assert not names & {"Onboarding", "ServerPlayback", "ClientPlayback", "MapLocal", "Dumper", "ScriptLoader"}


def test_the_harness_runs_the_proxy_with_O_where_building_a_message_leaves_no_garbage_cycles(
        tmp_path: Path) -> None:
    """Without -O mitmproxy type-checks every message's fields, leaving reference cycles (a caught
    TypeError and its frame) that the cyclic collector frees in pauses that stall every flow."""
    from harness.services.processes import proxy_command

    command = proxy_command(Path(sys.executable), 1, 2, tmp_path)
    assert command[1] == "-O" and command[command.index(str(MAIN)) - 2] == "-c"  # main.py, run by the -c wrapper
    build = ("import gc; gc.disable(); from mitmproxy import http; gc.collect(); "
             "[http.Request.make('GET', 'http://shop.test/') for _ in range(200)]; print(gc.collect())")
    cycles = {flag: int(subprocess.run([sys.executable, *flag, "-c", build], capture_output=True, text=True,
                                       timeout=60, check=True).stdout) for flag in ((), ("-O",))}
    assert cycles[("-O",)] == 0 and cycles[()] > 1000, cycles

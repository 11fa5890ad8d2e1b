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

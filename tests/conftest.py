"""Shared by every test that needs the running services: one real stack per module that asks."""

import os
import signal
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from harness.stack import Stack

# Under pytest-xdist (`make test`), each worker's stacks keep their files (the proxy's CA, logs) apart from
# the other worker's; subprocesses the tests start inherit it.
if (_worker := os.environ.get("PYTEST_XDIST_WORKER")) and "WEBCHAOS_STATE_DIR" not in os.environ:
    os.environ["WEBCHAOS_STATE_DIR"] = str(Path(__file__).resolve().parents[1] / ".webchaos" / f"test-{_worker}")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """The sites server and the proxy, started once for the module that asks."""
    running = Stack(state_dir=tmp_path_factory.mktemp("state"))
    await running.start()
    yield running
    await running.stop()


@pytest.fixture(autouse=True)
def _sigint_as_a_terminal_sends_it(request: pytest.FixtureRequest) -> Iterator[None]:
    """Tests send SIGINT to the CLI they start (Ctrl-C). A child inherits its parent's blocked signals and
    ignored dispositions, so a library that blocked or ignored SIGINT in this process (seen under
    pytest-xdist) would make those children deaf to it: undo that before each test, and say which test did it."""
    yield
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    handler = signal.getsignal(signal.SIGINT)
    ignored = handler in (signal.SIG_IGN, signal.SIG_DFL)
    if blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if blocked or ignored:
        warnings.warn(f"after {request.node.nodeid}: SIGINT {'blocked' if blocked else ''} {handler!r}; restored",
                      stacklevel=1)

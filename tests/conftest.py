"""Shared by every test that needs the running services: one real stack per test process, for every module
that asks."""

import os
import signal
import warnings
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

import webchaos
from harness.services.processes import Services
from tests.schedule import schedule_order

# Under pytest-xdist (`make test`), each worker's stacks keep their files (the proxy's CA, logs) apart from
# the other worker's; subprocesses the tests start inherit it.
if (_worker := os.environ.get("PYTEST_XDIST_WORKER")) and "WEBCHAOS_STATE_DIR" not in os.environ:
    os.environ["WEBCHAOS_STATE_DIR"] = str(Path(__file__).resolve().parents[1] / ".webchaos" / f"test-{_worker}")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """In a pytest-xdist worker, whose collection pytest-xdist hands out file by file: the heaviest files first
    (tests/schedule.py)."""
    if _worker:
        items[:] = [items[index] for index in schedule_order([item.nodeid for item in items])]


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Services]:
    """The sites server and the proxy, started once per test process and shared by every module that asks
    (starting one took 10-12 s of a loaded two-core machine, once per module). Tests use what it serves
    (URLs, secret, ports) from their own event loops; one that kills, restarts or reconfigures a service
    starts a Services of its own (tests/harness/test_crash.py)."""
    running = Services(state_dir=tmp_path_factory.mktemp("state"))
    await running.start()
    yield running
    await running.stop()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def api_stack(stack: Services, tmp_path_factory: pytest.TempPathFactory,
                    request: pytest.FixtureRequest) -> AsyncIterator[webchaos.Stack]:
    """The public API's `webchaos.Stack` over the shared services, for a module whose tests run on the module's
    event loop; its episode folders are the module's own."""
    runs = tmp_path_factory.mktemp("runs") / request.module.__name__.rpartition(".")[2]
    async with webchaos.Stack(services=stack, run_dir=runs) as started:
        yield started


def _hear_sigint() -> str | None:
    """Let SIGINT through to this process and the children it starts; say what was changed, if anything.

    Tests send SIGINT to the CLI they start (Ctrl-C), and a child inherits its parent's blocked signals and
    ignored dispositions. A pytest started as a background job of a non-interactive shell (`nohup … &`, as
    a CI script may) begins with SIGINT ignored, which made those children deaf to it."""
    blocked = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    handler = signal.getsignal(signal.SIGINT)
    if blocked:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
    if handler in (signal.SIG_IGN, signal.SIG_DFL):
        signal.signal(signal.SIGINT, signal.default_int_handler)
    elif not blocked:
        return None
    return f"SIGINT {'blocked, ' if blocked else ''}handler {handler!r}"


_hear_sigint()  # as this process starts (each pytest-xdist worker imports this file)


@pytest.fixture(autouse=True)
def _sigint_stays_heard(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test (or a library it uses) that leaves SIGINT blocked or ignored is named, and it is undone."""
    yield
    changed = _hear_sigint()
    if changed:
        warnings.warn(f"{request.node.nodeid} left {changed}; restored", stacklevel=1)

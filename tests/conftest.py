"""Shared by every test that needs the running services: one real stack per module that asks."""

import os
from collections.abc import AsyncIterator
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

"""Shared by every test that needs the running services: one real stack per module that asks."""

from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from harness.stack import Stack


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    """The sites server and the proxy, started once for the module that asks."""
    running = Stack(state_dir=tmp_path_factory.mktemp("state"))
    await running.start()
    yield running
    await running.stop()

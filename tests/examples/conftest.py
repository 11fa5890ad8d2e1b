"""The framework examples, each run by webchaos as a user would, on one real stack per module."""

import os
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from harness.stack import Stack

ROOT = Path(__file__).resolve().parents[2]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Stack]:
    running = Stack(state_dir=tmp_path_factory.mktemp("state"))
    await running.start()
    yield running
    await running.stop()


def needs(path: Path, how: str) -> None:
    """Skip on a developer's machine when an example's own environment is missing; never under CI."""
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: {how}")
        pytest.skip(f"{path} is missing: {how}")

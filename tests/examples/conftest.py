"""The framework examples, each run by webchaos as a user would, on one real stack per module."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]



def needs(path: Path, how: str) -> None:
    """Skip on a developer's machine when an example's own environment is missing; never under CI."""
    if not path.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{path} is missing: {how}")
        pytest.skip(f"{path} is missing: {how}")

"""Screenshots the tests keep under docs/screens/: written only with WEBCHAOS_UPDATE_SCREENSHOTS=1,
so that a test run leaves the work tree as it found it."""

import os
from pathlib import Path

DOCS_SCREENS = Path(__file__).resolve().parents[1] / "docs" / "screens"


def keep_screenshot(png: bytes, name: str) -> None:
    """Keep `png` as docs/screens/`name` when asked to update the kept screenshots."""
    assert len(png) > 20_000, f"{name}: a rendered page, not a blank one"
    if os.environ.get("WEBCHAOS_UPDATE_SCREENSHOTS") == "1":
        DOCS_SCREENS.mkdir(parents=True, exist_ok=True)
        (DOCS_SCREENS / name).write_bytes(png)

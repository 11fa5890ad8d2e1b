"""Query parameters every listing shares: the page number, checked the same way on every site."""

import re

from fastapi import HTTPException

_WHOLE = re.compile(r"^\d{1,6}$", re.ASCII)


def page_number(raw: str | None) -> int:
    """'' or absent -> 1; a whole number of 1 or more -> itself; anything else -> 400."""
    if raw is None or raw == "":
        return 1
    if not _WHOLE.fullmatch(raw) or int(raw) < 1:
        raise HTTPException(400, "The page number must be a whole number of 1 or more.")
    return int(raw)

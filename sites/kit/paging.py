"""What every listing shares: the page number in the query, checked the same way on every site, and the page
of the list it asks for."""

import math
import re
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from fastapi import HTTPException

_WHOLE = re.compile(r"^\d{1,6}$", re.ASCII)
ItemT = TypeVar("ItemT")


def page_number(raw: str | None) -> int:
    """'' or absent -> 1; a whole number of 1 or more -> itself; anything else -> 400."""
    if raw is None or raw == "":
        return 1
    if not _WHOLE.fullmatch(raw) or int(raw) < 1:
        raise HTTPException(400, "The page number must be a whole number of 1 or more.")
    return int(raw)


def _no_such_page(page: int, pages: int) -> str:
    return f"There is no page {page}: this list has {pages}."


class Listing(Generic[ItemT]):
    """Page `page` (from 1) of `items`, `size` a page: `shown`, where it starts (`start`), how many `pages`
    and items (`total`) there are. An empty list has one, empty, page; past the last page is a 404 in the
    words of `missing(page, pages)`."""

    def __init__(self, items: Sequence[ItemT], page: int, size: int,
                 missing: Callable[[int, int], str] = _no_such_page) -> None:
        self.total = len(items)
        self.pages = max(1, math.ceil(self.total / size))
        if page > self.pages:
            raise HTTPException(404, missing(page, self.pages))
        self.page = page
        self.start = (page - 1) * size
        self.shown = list(items[self.start: self.start + size])

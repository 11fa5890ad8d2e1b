"""Looking an entity up in a state collection: `find` (the states' accessors) and, for routes, `get_or_404` instead
of the same four lines."""

from collections.abc import Iterable
from typing import Any, TypeVar

from fastapi import HTTPException

ItemT = TypeVar("ItemT")


def find(items: Iterable[ItemT], item_id: Any, key: str = "id") -> ItemT | None:
    """The first item whose `key` attribute equals `item_id` (None when there is none)."""
    return next((item for item in items if getattr(item, key) == item_id), None)


def not_found(what: str) -> str:
    """A page's 404 wording for a missing `what` (the JSON API says "no <what> '<id>'" instead)."""
    return f"We couldn't find that {what}."


def get_or_404(items: Iterable[ItemT], item_id: Any, what: str = "", *, detail: str | None = None,
               key: str = "id") -> ItemT:
    """The item of `items` whose `key` is `item_id`, or a 404 whose detail is `detail` when given, else
    "no <what> '<id>'" (the JSON API's wording)."""
    found = find(items, item_id, key)
    if found is None:
        raise HTTPException(404, detail if detail is not None else f"no {what} {item_id!r}")
    return found

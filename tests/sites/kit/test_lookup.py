"""The kit's lookups: the first match by key, or a 404 worded for the API or for a page."""

from dataclasses import dataclass

import pytest
from fastapi import HTTPException

from sites.kit.lookup import find, get_or_404, not_found


@dataclass
class Item:
    id: str
    name: str


ITEMS = [Item("a1", "first"), Item("a2", "second"), Item("a2", "shadowed")]


def test_find_returns_the_first_match_by_key_or_none() -> None:
    assert find(ITEMS, "a2") == Item("a2", "second")
    assert find(ITEMS, "second", key="name") == Item("a2", "second")
    assert find(ITEMS, "zz") is None


def test_get_or_404_answers_404_in_the_api_wording_by_default() -> None:
    assert get_or_404(ITEMS, "a1", "item").name == "first"
    with pytest.raises(HTTPException) as missing:
        get_or_404(ITEMS, "zz", "item")
    assert (missing.value.status_code, missing.value.detail) == (404, "no item 'zz'")


def test_a_page_passes_its_own_wording() -> None:
    with pytest.raises(HTTPException) as missing:
        get_or_404(ITEMS, "zz", detail=not_found("order"))
    assert (missing.value.status_code, missing.value.detail) == (404, "We couldn't find that order.")

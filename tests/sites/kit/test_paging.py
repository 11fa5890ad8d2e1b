"""The kit's paging: the page number a query names, the page of a list it shows, and the links to its pages."""

import pytest
from fastapi import HTTPException
from starlette.requests import Request

from sites.kit.paging import Listing, page_number
from sites.kit.urls import same_page_url


def test_page_number_is_one_by_default_and_refuses_what_is_not_a_whole_number() -> None:
    assert page_number(None) == page_number("") == 1 and page_number("12") == 12
    for raw in ("0", "-1", "two", "1.5", "9999999"):
        with pytest.raises(HTTPException) as refused:
            page_number(raw)
        assert refused.value.status_code == 400


def test_a_listing_shows_its_page_and_knows_where_it_starts() -> None:
    listing = Listing(list("abcdefg"), 3, 3)
    assert (listing.shown, listing.start, listing.page, listing.pages, listing.total) == (["g"], 6, 3, 3, 7)
    empty = Listing([], 1, 5)
    assert (empty.shown, empty.pages, empty.total) == ([], 1, 0)


def test_past_the_last_page_is_a_404_in_the_sites_words() -> None:
    with pytest.raises(HTTPException) as default:
        Listing(list("abcd"), 3, 2)
    assert (default.value.status_code, default.value.detail) == (404, "There is no page 3: this list has 2.")
    with pytest.raises(HTTPException) as worded:
        Listing(list("abcd"), 5, 2, lambda page, pages: f"No page {page} of {pages}.")
    assert worded.value.detail == "No page 5 of 2."


def _request(query: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/list", "query_string": query.encode(), "headers": []})


def test_same_page_url_changes_the_query_in_place_and_drops_the_notice_and_page_one() -> None:
    request = _request("page=2&sort=new&notice=saved&q=a+b")
    assert same_page_url("/list", request, page="3") == "/list?page=3&sort=new&q=a+b"
    assert same_page_url("/list", request, page="1") == "/list?sort=new&q=a+b"
    assert same_page_url("/list", request, sort="votes", page=None, tag="c#") == "/list?sort=votes&q=a+b&tag=c%23"
    assert same_page_url("/list", _request("notice=saved")) == "/list"

"""The kit's one-shot notices: the site's words for the key a page's query names."""

from starlette.requests import Request

from sites.kit.notices import notice_of

NOTICES = {"saved": "Settings saved"}


def _request(query: str) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "query_string": query.encode(), "headers": []})


def test_a_known_key_gives_the_sites_words_and_anything_else_none() -> None:
    assert notice_of(_request("notice=saved&page=2"), NOTICES) == "Settings saved"
    assert notice_of(_request("notice=%3Cb%3Ehi"), NOTICES) is None
    assert notice_of(_request("page=2"), NOTICES) is None

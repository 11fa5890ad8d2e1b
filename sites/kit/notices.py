"""The one-shot notice a page shows after a write: the write's page sends the user on with `?notice=<key>`
(kit.js `Kit.go`), and the next page says the site's words for that key. Links a page makes to itself drop it
(`sites.kit.urls.same_page_url`)."""

from collections.abc import Mapping

from fastapi import Request


def notice_of(request: Request, notices: Mapping[str, str]) -> str | None:
    """The site's words for the request's `notice` key (None when it names none, or one the site has no words for)."""
    return notices.get(request.query_params.get("notice", ""))

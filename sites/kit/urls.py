"""Links a listing page makes to itself: the same page with some query parameters changed."""

from urllib.parse import urlencode

from fastapi import Request


def same_page_url(path: str, request: Request, **changes: str | None) -> str:
    """`path` with the request's query (less its one-shot `notice`), each of `changes` set in place (None
    drops it), and `page=1` left out: '/payees?sort=name&page=2'."""
    params = {k: v for k, v in request.query_params.items() if k != "notice"}
    for key, value in changes.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = value
    if params.get("page") == "1":
        params.pop("page")
    query = urlencode(params)
    return path + (f"?{query}" if query else "")

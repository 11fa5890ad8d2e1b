"""The app factory every site is built with: its routers plus sign-in, static files and error pages.

Errors: JSON calls (`/api/…`) and requests outside any episode keep FastAPI's JSON shape
(`{"detail": …}`); pages get the site's error page. Malformed requests are 4xx, never 500.
"""

import hashlib
import mimetypes
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from sites.kit.auth import auth_router
from sites.kit.deps import Episodes, current_episode, serve_episodes
from sites.kit.episode import SiteEpisode
from sites.kit.site import Site
from sites.kit.templating import KIT_DIR, Pages

ERROR_TITLES = {400: "Something's not right with that request", 404: "Page not found",
                405: "That action isn't allowed here"}
NOT_FOUND = "We looked everywhere, but there's nothing at this address."
_TEXT_TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8",
               ".svg": "image/svg+xml"}


def site_pages(site: Site[Any], static: Mapping[str, "StaticFile"]) -> Pages:
    pages = Pages(site.name, site.profile.title, site.package_dir / "templates", site.context_of, site.filters)
    pages.env.globals["static_url"] = lambda name: static[name].url(name)
    return pages


def error_page(site: Site[Any], pages: Pages, episode: SiteEpisode | None, status_code: int,
               detail: str) -> HTMLResponse:
    return pages.render(
        episode, "error.html", status_code=status_code, status=status_code,
        heading=ERROR_TITLES.get(status_code, "Something went wrong"), detail=detail, home_label=site.home_label,
    )


@dataclass(frozen=True)
class StaticFile:
    body: bytes
    media_type: str
    etag: str  # a strong validator: a browser that revalidates gets a 304, not the file again

    def url(self, name: str) -> str:
        """The address pages link: versioned by content, so a browser keeps it without asking again (a
        revalidation per page would hold the page's scripts back by a round trip through the proxy)."""
        return f"/static/{name}?v={self.etag.strip(chr(34))[:12]}"


def _static_files(site: Site[Any]) -> dict[str, StaticFile]:
    files = {name: KIT_DIR / "static" / name for name in ("kit.css", "kit.js")}
    static_dir = site.package_dir / "static"
    if static_dir.is_dir():
        files.update({p.name: p for p in sorted(static_dir.iterdir()) if p.is_file()})
    found = {}
    for name, path in files.items():
        body = path.read_bytes()
        found[name] = StaticFile(body, _TEXT_TYPES.get(path.suffix) or mimetypes.guess_type(name)[0]
                                 or "application/octet-stream", f'"{hashlib.sha256(body).hexdigest()[:20]}"')
    return found


_ERROR_DETAIL = {
    "title": "ErrorDetail", "type": "object", "required": ["detail"],
    "properties": {"detail": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "object"}}]}},
}


def document_errors(app: FastAPI) -> None:
    """Make the app's OpenAPI description say what it answers: every operation may refuse with a 4xx,
    a JSON `{"detail": …}` (JSON calls, and any request outside an episode) or, on pages, the site's
    HTML error page. FastAPI documents only the success and the 422 of a handler."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = build()
        schema.setdefault("components", {}).setdefault("schemas", {})["ErrorDetail"] = _ERROR_DETAIL
        for path, operations in schema.get("paths", {}).items():
            for operation in operations.values():
                error = {"$ref": "#/components/schemas/ErrorDetail"}
                content: dict[str, Any] = {"application/json": {"schema": error}}
                if not (path == "/api" or path.startswith("/api/")):
                    content["text/html"] = {"schema": {"type": "string"}}
                responses = operation.setdefault("responses", {})
                responses.setdefault(
                    "4XX", {"description": "Refused: malformed, or names nothing here", "content": content})
                # A handler may refuse well-formed input with its own 422 (`{"detail": "…"}`), next to
                # FastAPI's validation 422 (`{"detail": [...]}`): document both shapes.
                if "422" in responses:
                    json_422 = responses["422"].setdefault("content", {}).setdefault("application/json", {})
                    json_422["schema"] = {"anyOf": [json_422.get("schema", {}), error]}
                    responses["422"]["content"].update({k: v for k, v in content.items() if k != "application/json"})
        app.openapi_schema = schema
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


def site_app(site: Site[Any], store: Episodes) -> FastAPI:
    app = FastAPI(title=site.profile.title, docs_url=None, redoc_url=None, openapi_url=None)
    serve_episodes(app, site.name, store)
    static = _static_files(site)
    pages = site_pages(site, static)

    def episode_or_none(request: Request) -> SiteEpisode | None:
        try:
            return current_episode(request)
        except HTTPException:
            return None

    def wants_json(request: Request) -> bool:
        return request.url.path.startswith("/api/") or request.url.path == "/api"

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        episode = episode_or_none(request)
        if episode is None or wants_json(request):
            return JSONResponse({"detail": exc.detail}, status_code=exc.status_code,
                                headers=getattr(exc, "headers", None))
        detail = NOT_FOUND if exc.status_code == 404 and exc.detail == "Not Found" else str(exc.detail)
        return error_page(site, pages, episode, exc.status_code, detail)

    @app.exception_handler(RequestValidationError)
    async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
        episode = episode_or_none(request)
        if episode is None or wants_json(request):
            errors = [
                {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                for e in exc.errors()
            ]
            return JSONResponse({"detail": errors}, status_code=422)
        return error_page(site, pages, episode, 400, "Some of the values in that request are not valid.")

    @app.get("/static/{filename}")
    async def static_file(filename: str, request: Request) -> Response:
        found = static.get(filename)
        if found is None:
            raise HTTPException(404, f"no static file {filename!r}")
        current = request.url.path + "?" + request.url.query == found.url(filename)
        headers = {"Cache-Control": "public, max-age=31536000, immutable" if current else "no-cache",
                   "ETag": found.etag}
        asked = request.headers.get("if-none-match", "")
        if found.etag in [tag.strip().removeprefix("W/") for tag in asked.split(",")] or asked.strip() == "*":
            return Response(status_code=304, headers=headers)
        return Response(found.body, media_type=found.media_type, headers=headers)

    for router in site.routers(pages):
        app.include_router(router)
    app.include_router(auth_router(site, pages))
    document_errors(app)
    return app

"""Cartwheel, the hermetic online store: `ShopSite` ties the generator to its FastAPI app."""

from random import Random

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from sites.kit.clock import EpisodeClock
from sites.kit.deps import episode_from
from sites.kit.episode import Episode, EpisodeStore
from sites.kit.site import World, WorldSetup
from sites.shop.api import api_router
from sites.shop.generator import generate
from sites.shop.pages import PACKAGE_DIR, error_page, page_router

_STATIC_TYPES = {"shop.css": "text/css; charset=utf-8", "shop.js": "text/javascript; charset=utf-8"}


class ShopSite:
    name = "shop"
    host = "shop.test"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def app(self, store: EpisodeStore) -> FastAPI:
        app = FastAPI(title="Cartwheel", docs_url=None, redoc_url=None, openapi_url=None)
        resolve = episode_from(store, self.name)

        def episode_or_none(request: Request) -> Episode | None:
            try:
                return resolve(request)
            except HTTPException:
                return None

        def wants_json(request: Request) -> bool:
            return request.url.path.startswith("/api/") or request.url.path == "/api"

        @app.exception_handler(StarletteHTTPException)
        async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
            episode = episode_or_none(request)
            # API calls and requests outside any episode keep FastAPI's JSON shape.
            if episode is None or wants_json(request):
                return JSONResponse({"detail": exc.detail}, status_code=exc.status_code,
                                    headers=getattr(exc, "headers", None))
            detail = exc.detail if exc.status_code != 404 or exc.detail != "Not Found" else (
                "We looked everywhere, but there's nothing at this address."
            )
            return error_page(episode, exc.status_code, str(detail))

        @app.exception_handler(RequestValidationError)
        async def invalid_request(request: Request, exc: RequestValidationError) -> Response:
            episode = episode_or_none(request)
            if episode is None or wants_json(request):
                errors = [
                    {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                    for e in exc.errors()
                ]
                return JSONResponse({"detail": errors}, status_code=422)
            return error_page(episode, 400, "Some of the values in that request are not valid.")

        static = {name: (PACKAGE_DIR / "static" / name).read_bytes() for name in _STATIC_TYPES}

        @app.get("/static/{filename}")
        async def static_file(filename: str) -> Response:
            body = static.get(filename)
            if body is None:
                raise HTTPException(404, f"no static file {filename!r}")
            return Response(body, media_type=_STATIC_TYPES[filename],
                            headers={"Cache-Control": "no-cache"})

        app.include_router(api_router(store))
        app.include_router(page_router(store))
        return app

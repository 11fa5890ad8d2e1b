"""Sign-in pages every site gets: GET /login shows the form pre-filled with the remembered
password, POST /login signs the session in and goes back to a safe `next`."""

from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from sites.kit.deps import EpisodeOf
from sites.kit.hooks import hook_point
from sites.kit.session import EXPIRED_MESSAGE, LOGIN_PATH, remembered_password, safe_next
from sites.kit.site import Site
from sites.kit.templating import Pages


def auth_router(site: Site[Any], pages: Pages) -> APIRouter:
    router = APIRouter()
    label = site.profile.affordances.sign_in

    @router.get(LOGIN_PATH, response_class=HTMLResponse)
    @hook_point("login_page", "login")
    async def login_page(request: Request, episode: EpisodeOf[Any]) -> HTMLResponse:
        expired = request.query_params.get("expired") == "1"
        episode.emit.navigate("view_login", expired=expired)
        return pages.render(
            episode, "login.html", title=label, sign_in_label=label, email=site.account_email(episode.state),
            password=remembered_password(episode.seed, site.password_prefix),
            next_path=safe_next(request.query_params.get("next")),
            notice=EXPIRED_MESSAGE if expired else None,
        )

    @router.post(LOGIN_PATH, status_code=303, response_class=RedirectResponse,
                 responses={303: {"description": "Signed in: back to the safe `next` path (the form field)"}})
    @hook_point("sign_in", "login")
    async def sign_in(request: Request, episode: EpisodeOf[Any]) -> Response:
        form = parse_qs((await request.body()).decode("utf-8", errors="replace"))
        next_path = safe_next((form.get("next") or ["/"])[0])
        was_signed_in = episode.signed_in
        episode.sign_in()
        episode.emit.navigate("sign_in", next=next_path, was_signed_in=was_signed_in)
        return RedirectResponse(next_path, status_code=303)

    return router

"""The user's session on a site: how a signed-out request is refused, where sign-in sends you
back to, and the browser's remembered password. Every site gets these from the kit."""

from urllib.parse import quote

from injectors.hookspec import Reply, ServerCall
from scenarios.seeding import derive_seed

LOGIN_PATH = "/login"   # every site's sign-in page (GET renders it, POST signs in)
EXPIRED_MESSAGE = "Your session has expired. Sign in to continue."


def login_required(call: ServerCall) -> Reply:
    """How a signed-out session is refused: pages go to the sign-in page, JSON calls get 401."""
    if call.kind == "page":
        path = call.path + (("?" + "&".join(f"{k}={quote(v, safe='')}" for k, v in call.query.items()))
                            if call.query else "")
        return Reply.redirect(f"{LOGIN_PATH}?next={quote(path, safe='')}&expired=1")
    return Reply.error(401, EXPIRED_MESSAGE)


def safe_next(raw: str | None) -> str:
    """A same-site path to go to after signing in; anything else (other hosts, schemes) is '/'."""
    if not raw or not raw.startswith("/") or raw.startswith("//") or "\\" in raw or any(ord(c) < 32 for c in raw):
        return "/"
    return raw


def remembered_password(seed: int, prefix: str) -> str:
    """The browser's remembered password for the user: fixed per episode, never shown to the grader."""
    return f"{prefix}-{derive_seed('password', seed) % 10**8:08d}"

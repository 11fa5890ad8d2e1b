"""One ASGI entry for every site: the request's Host picks the site app."""

from starlette.types import ASGIApp, Receive, Scope, Send

from scenarios.secret import SECRET_HEADER, refusal, secret_matches

_SECRET_HEADER = SECRET_HEADER.encode()


class HostDispatch:
    def __init__(self, apps: dict[str, ASGIApp]) -> None:
        self.apps = apps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            # Site apps keep no lifespan state; acknowledge and return.
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        host = ""
        for name, value in scope.get("headers", []):
            if name == b"host":
                host = value.decode("latin-1").rsplit(":", 1)[0].lower()
                break
        app = self.apps.get(host)
        if app is None:
            body = f"unknown site host {host!r}".encode()
            await send({
                "type": "http.response.start", "status": 404,
                "headers": [(b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode())],
            })
            await send({"type": "http.response.body", "body": body})
            return
        await app(scope, receive, send)


class RequireSecret:
    """Refuse (401) every HTTP request that does not carry the stack's secret (scenarios/secret.py).

    Wraps both servers of the sites process: the public one (the proxy adds the secret to what it
    forwards) and the oracle (the harness adds it). A process of the same user that found the
    ports with `ss -ltnp` gets nothing but the refusal."""

    def __init__(self, app: ASGIApp, secret: str, what: str) -> None:
        self.app = app
        self.secret = secret
        self.body = refusal(what).encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)  # lifespan (websockets: none are served)
            return
        given: bytes | None = None
        for name, value in scope.get("headers", []):
            if name == _SECRET_HEADER:
                given = value
                break
        if not secret_matches(given, self.secret):
            await send({
                "type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                            (b"content-length", str(len(self.body)).encode()),
                            (b"www-authenticate", SECRET_HEADER.encode())],
            })
            await send({"type": "http.response.body", "body": self.body})
            return
        await self.app(scope, receive, send)

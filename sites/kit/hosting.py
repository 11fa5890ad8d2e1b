"""One ASGI entry for every site: the request's Host picks the site app."""

from starlette.types import ASGIApp, Receive, Scope, Send


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

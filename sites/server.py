"""The sites server process: every site on one port (by Host), the oracle on another.

    python -m sites.server --port 8101 --oracle-port 8102 --secret-fd 3 3<secret-file

Both ports answer 401 to any request without the stack's secret in `x-webchaos-secret`
(see scenarios/secret.py: the harness hands it over through an inherited pipe; the proxy
adds it to what it forwards).
"""

import argparse
import asyncio
from collections.abc import Iterable
from typing import Any

import uvicorn
from starlette.types import ASGIApp

from scenarios.secret import SecretError, forbid_dumps, read_secret_fd
from sites.kit.app import site_app
from sites.kit.hosting import HostDispatch, RequireSecret
from sites.kit.oracle import oracle_app
from sites.kit.progress import ReportEvents
from sites.kit.site import Site
from sites.kit.store import EpisodeStore
from sites.registry import all_sites


def build(store: EpisodeStore | None = None, secret: str | None = None, extra: Iterable[Site[Any]] = ()
          ) -> tuple[ASGIApp, ASGIApp, EpisodeStore]:
    """The public (sites) app, the oracle app, and the store they share. With `secret`, both
    apps refuse (401) any request without it (the served process always has one). `extra` sites
    (declared outside `sites/`, e.g. the tests' tiny site) are served next to the discovered ones."""
    sites = all_sites(extra)
    store = store or EpisodeStore(sites)
    public: ASGIApp = ReportEvents(HostDispatch({site.host: site_app(site, store) for site in sites.values()}), store)
    oracle: ASGIApp = oracle_app(store)
    if secret is not None:
        public = RequireSecret(public, secret, "the sites server")
        oracle = RequireSecret(oracle, secret, "the oracle")
    return public, oracle, store


# How long the public port keeps an idle keep-alive connection. Longer than a browser keeps one (Chromium
# drops a used idle socket after 5 min), so the client side always hangs up first: a server that closes an
# idle connection (uvicorn's default: after 5 s) may do so as the proxy writes the next request down it, and
# that request (a write the agent made ~5 s after the page's last request) fails with no answer.
PUBLIC_KEEP_ALIVE_S = 600


def config(app: ASGIApp, host: str, port: int, keep_alive_s: int = 5) -> uvicorn.Config:
    return uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False, lifespan="off",
                          timeout_keep_alive=keep_alive_s)


async def serve(host: str, port: int, oracle_port: int, secret: str) -> None:
    public, oracle, _ = build(secret=secret)
    # the oracle's client drops its idle connections itself, well before the server's 5 s
    servers = [uvicorn.Server(config(public, host, port, PUBLIC_KEEP_ALIVE_S)),
               uvicorn.Server(config(oracle, host, oracle_port))]
    await asyncio.gather(*(s.serve() for s in servers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8101, help="public port, reached only via the proxy")
    parser.add_argument("--oracle-port", type=int, default=8102, help="oracle API port (loopback only)")
    parser.add_argument("--secret-fd", type=int, required=True,
                        help="inherited file descriptor to read the stack's secret from (a pipe or a 0600 file)")
    args = parser.parse_args()
    try:
        secret = read_secret_fd(args.secret_fd)
    except SecretError as exc:
        parser.error(str(exc))
    forbid_dumps()
    try:
        asyncio.run(serve(args.host, args.port, args.oracle_port, secret))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

"""The sites server process: every site on one port (by Host), the oracle on another.

    python -m sites.server --port 8101 --oracle-port 8102
"""

import argparse
import asyncio

import uvicorn
from starlette.types import ASGIApp

from sites.kit.app import site_app
from sites.kit.hosting import HostDispatch
from sites.kit.oracle import oracle_app
from sites.kit.store import EpisodeStore
from sites.registry import all_sites


def build(store: EpisodeStore | None = None) -> tuple[ASGIApp, ASGIApp, EpisodeStore]:
    """The public (sites) app, the oracle app, and the store they share."""
    sites = all_sites()
    store = store or EpisodeStore(sites)
    public = HostDispatch({site.host: site_app(site, store) for site in sites.values()})
    return public, oracle_app(store), store


async def serve(host: str, port: int, oracle_port: int) -> None:
    public, oracle, _ = build()
    servers = [
        uvicorn.Server(uvicorn.Config(app, host=host, port=p, log_level="warning", access_log=False,
                                      lifespan="off"))
        for app, p in ((public, port), (oracle, oracle_port))
    ]
    await asyncio.gather(*(s.serve() for s in servers))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8101, help="public port, reached only via the proxy")
    parser.add_argument("--oracle-port", type=int, default=8102, help="oracle API port (loopback only)")
    args = parser.parse_args()
    try:
        asyncio.run(serve(args.host, args.port, args.oracle_port))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

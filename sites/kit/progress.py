"""Tell the proxy which semantic events each request caused, for its faults' triggers.

Every response of an episode's request carries `EVENTS_HEADER`: the events logged since the
last response that named some (JSON `[[seq, kind, name], …]`), so each event is named once, in
order, by whichever response leaves first. The proxy reads it and takes it off before the agent
sees the response (proxy_addons/arming.py).
"""

import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from scenarios.triggers import EVENTS_HEADER
from sites.kit.deps import EPISODE_HEADER
from sites.kit.store import EpisodeStore

_EPISODE = EPISODE_HEADER.encode()


class ReportEvents:
    def __init__(self, app: ASGIApp, store: EpisodeStore) -> None:
        self.app = app
        self.store = store

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        episode_id = next((v.decode("latin-1") for k, v in scope.get("headers", []) if k == _EPISODE), None)

        async def send_with_events(message: Message) -> None:
            if message["type"] == "http.response.start" and episode_id is not None:
                episode = self.store.get(episode_id)
                if episode is not None and episode.events_reported < len(episode.events):
                    fresh = episode.events[episode.events_reported:]
                    episode.events_reported = len(episode.events)
                    value = json.dumps([[e.seq, e.kind.value, e.name] for e in fresh], separators=(",", ":"))
                    message = {**message, "headers": [*message.get("headers", []),
                                                      (EVENTS_HEADER.encode(), value.encode())]}
            await send(message)

        await self.app(scope, receive, send_with_events)

"""Async client for the sites server's oracle API (the harness's, beside control_client.py)."""

import json
from typing import Any
from urllib.parse import quote

import aiohttp

from scenarios.events import SemanticEvent
from scenarios.secret import SECRET_HEADER


class OracleError(RuntimeError):
    """`status`: the oracle's HTTP status (0 when it did not answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


# The sites server (uvicorn) closes a connection idle for 5 s; aiohttp would keep it 15 s and could send
# the next call down a socket the server has just closed. Idle connections are dropped well before that.
KEEPALIVE_S = 2.0
# A long poll's request may take its whole wait and then the answer's way back.
LONG_POLL_MARGIN_S = 10.0


class OracleClient:
    """`secret`: the stack's secret (`Services.secret`); the oracle answers 401 without it."""

    def __init__(self, base_url: str, secret: str | None = None, timeout_s: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)
        self._headers = {SECRET_HEADER: secret} if secret else {}
        self._session: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> "OracleClient":
        self._session = self._new_session()
        return self

    def _new_session(self) -> aiohttp.ClientSession:
        return aiohttp.ClientSession(timeout=self._timeout, headers=self._headers,
                                     connector=aiohttp.TCPConnector(keepalive_timeout=KEEPALIVE_S))

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        if self._session is not None:
            await self._session.close()
            self._session = None

    @property
    def session(self) -> aiohttp.ClientSession:
        if self._session is None:
            self._session = self._new_session()
        return self._session

    async def _request(self, method: str, path: str, **kwargs: Any) -> bytes:
        async with self.session.request(method, self.base_url + path, **kwargs) as response:
            body = await response.read()
            if response.status >= 400:
                raise OracleError(f"oracle {method} {path} -> {response.status}: {body[:300].decode(errors='replace')}",
                                  response.status)
            return body

    async def health(self) -> dict[str, Any]:
        return dict(json.loads(await self._request("GET", "/health")))

    async def create_episode(self, **fields: Any) -> dict[str, Any]:
        return dict(json.loads(await self._request("POST", "/episodes", json=fields)))

    async def initial_state_bytes(self, episode_id: str) -> bytes:
        return await self._request("GET", f"/episodes/{episode_id}/state/initial")

    async def state_bytes(self, episode_id: str) -> bytes:
        return await self._request("GET", f"/episodes/{episode_id}/state")

    async def events(self, episode_id: str, since: int = 0, wait_s: float = 0.0) -> list[SemanticEvent]:
        """The semantic events so far (from the `since`-th on). With `wait_s`, a long poll
        (scenarios/feed.py): waits for the next when there is none yet; OracleError 410 once closed."""
        params = {**({"since": since} if since else {}), **({"wait_s": wait_s} if wait_s else {})}
        extra: dict[str, Any] = {"timeout": aiohttp.ClientTimeout(total=wait_s + LONG_POLL_MARGIN_S)} if wait_s else {}
        raw = json.loads(await self._request("GET", f"/episodes/{episode_id}/events", params=params or None, **extra))
        return [SemanticEvent.model_validate(e) for e in raw]

    async def ledger(self, episode_id: str) -> list[dict[str, Any]]:
        """The sites server's seed- and server-layer fault ledger lines, in order."""
        return list(json.loads(await self._request("GET", f"/episodes/{episode_id}/ledger")))

    async def delete_episode(self, episode_id: str) -> None:
        await self._request("DELETE", f"/episodes/{episode_id}")

    async def arm_fault(self, episode_id: str, envelope: dict[str, Any]) -> dict[str, Any]:
        """Arm a server fault on an open episode (the sites' half of run-time arming)."""
        return dict(json.loads(await self._request("POST", f"/episodes/{episode_id}/faults", json=envelope)))

    async def disarm_fault(self, episode_id: str, fault_id: str) -> dict[str, Any]:
        path = f"/episodes/{episode_id}/faults/{quote(fault_id, safe='')}"
        return dict(json.loads(await self._request("DELETE", path)))

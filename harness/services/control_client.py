"""Async client for the proxy's control API (its own loopback port, never proxied)."""

import json
from pathlib import Path
from typing import Any
from urllib.parse import quote

import aiohttp

from scenarios.secret import SECRET_HEADER

# A long poll's request may take its whole wait and then the answer's way back.
LONG_POLL_MARGIN_S = 10.0


class ControlError(RuntimeError):
    """`status`: the control API's HTTP status (0 when it did not answer)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class ControlClient:
    """`secret`: the stack's secret (`Services.secret`); the control API answers 401 without it."""

    def __init__(self, base_url: str, secret: str | None = None, timeout_s: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self._session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s),
                                              headers={SECRET_HEADER: secret} if secret else {})

    async def close(self) -> None:
        await self._session.close()

    async def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        async with self._session.request(method, self.base_url + path, **kwargs) as response:
            body = await response.read()
            if response.status >= 400:
                raise ControlError(f"proxy {method} {path} -> {response.status}: {body[:500].decode(errors='replace')}",
                                   response.status)
            return json.loads(body) if body else None

    async def open_episode(self, episode_id: str, seed: int, faults: list[dict[str, Any]], out_dir: Path,
                           port: int | None = None, record_replay: bool = True) -> dict[str, Any]:
        payload = {"episode_id": episode_id, "seed": seed, "faults": faults, "out_dir": str(out_dir), "port": port,
                   "record_replay": record_replay}
        return dict(await self._request("POST", "/episodes", json=payload))

    async def har(self, episode_id: str) -> dict[str, Any]:
        return dict(await self._request("GET", f"/episodes/{episode_id}/har"))

    async def close_episode(self, episode_id: str) -> dict[str, Any]:
        return dict(await self._request("DELETE", f"/episodes/{episode_id}"))

    async def arm_fault(self, episode_id: str, envelope: dict[str, Any]) -> dict[str, Any]:
        return dict(await self._request("POST", f"/episodes/{episode_id}/faults", json=envelope))

    async def disarm_fault(self, episode_id: str, fault_id: str) -> dict[str, Any]:
        return dict(await self._request("DELETE", f"/episodes/{episode_id}/faults/{quote(fault_id, safe='')}"))

    async def actions(self, episode_id: str, since: int = 0, wait_s: float = 0.0) -> list[dict[str, Any]]:
        """The episode's GUI actions from the `since`-th on, in arrival order. With `wait_s`, a long poll
        (scenarios/feed.py): waits for the next when there is none yet; ControlError 410 once closed."""
        params = {"since": since, **({"wait_s": wait_s} if wait_s else {})}
        timeout = aiohttp.ClientTimeout(total=wait_s + LONG_POLL_MARGIN_S) if wait_s else None
        return list(await self._request("GET", f"/episodes/{episode_id}/actions", params=params,
                                        **({"timeout": timeout} if timeout else {})))

"""Malformed input to every JSON write of every site: a 4xx with a message, never a 500, and no
partial write. The routes and their bodies are read off each site's app, so a new site is covered
without a line here."""

import json
import re
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from sites.kit.site import WorldSetup
from sites.registry import all_sites
from sites.server import build

WRITES = {"POST", "PUT", "PATCH", "DELETE"}
HUGE = "x" * 100_000


def _routes(public: Any, site: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    """(method, path, body schema) of every JSON write, from the site's OpenAPI description."""
    schema = public.app.apps[all_sites()[site].host].openapi()
    components = schema.get("components", {}).get("schemas", {})
    out = []
    for path, operations in sorted(schema["paths"].items()):
        if not path.startswith("/api/"):
            continue
        for method, operation in sorted(operations.items()):
            if method.upper() not in WRITES:
                continue
            body = (operation.get("requestBody") or {}).get("content", {}).get("application/json", {}).get("schema")
            if body is not None and "$ref" in body:
                body = components[body["$ref"].rsplit("/", 1)[-1]]
            out.append((method.upper(), path, body))
    return out


def _bad_bodies(model: dict[str, Any] | None) -> list[tuple[str, Any]]:
    """Bodies no write may accept: not JSON objects, missing fields, wrong types, oversized text."""
    cases: list[tuple[str, Any]] = [("not json", b"{not json"), ("a list", []), ("a string", "x"),
                                    ("unknown field", {"__nope__": 1})]
    if model is None:
        return cases
    if model.get("required"):
        cases.append(("missing fields", {}))
    for name in model.get("properties", {}):
        cases.append((f"{name}: wrong type", {name: {"nested": ["object"]}}))
        cases.append((f"{name}: oversized", {name: HUGE}))
    return cases


def _path_with(path: str, value: str) -> str:
    return re.sub(r"\{[^}]+\}", value, path)


BUILT = build()  # the sites' apps and store, built once: the cases read their OpenAPI descriptions
CASES = [(site, method, path, label, body)
         for site in sorted(all_sites())
         for method, path, model in _routes(BUILT[0], site)
         for label, body in _bad_bodies(model)]


@pytest.fixture(scope="module")
def server() -> Any:
    return BUILT


@dataclass
class Shared:
    """An episode the cases of one site share, the bytes of its state as opened, and whether the last case
    that used it showed that it changed nothing."""

    episode: Any
    opened: bytes
    clean: bool = True


@pytest.fixture(scope="module")
def shared() -> dict[str, Shared]:
    """Per site, one episode for its cases. A case that changes nothing leaves it as it was opened, so the next
    case starts from the world it would have opened itself (opening one took half of this file's time); after
    a case that did not show that (it failed), the next one opens a new one."""
    return {}


def _episode(server: Any, shared: dict[str, Shared], site: str) -> Shared:
    _, _, store = server
    if site in shared and not shared[site].clean:
        store.delete(shared.pop(site).episode.id)
    if site not in shared:
        episode = store.create(site=site, task_id="bad-input", seed=3, setup=WorldSetup(), episode_id=f"bad-{site}")
        shared[site] = Shared(episode, episode.state_bytes())
    return shared[site]


@pytest.mark.parametrize(("site", "method", "path", "label", "body"), CASES,
                         ids=[f"{c[0]}-{c[1]}-{c[2]}-{c[3]}" for c in CASES])
async def test_malformed_body_gets_a_4xx_with_a_message_and_changes_nothing(
        server: Any, shared: dict[str, Shared], site: str, method: str, path: str, label: str, body: Any) -> None:
    public, _, _ = server
    world = _episode(server, shared, site)
    world.clean = False  # until this case has shown it changed nothing
    content = body if isinstance(body, bytes) else json.dumps(body).encode()
    transport = httpx.ASGITransport(app=public)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{all_sites()[site].host}",
                                 headers={"x-webchaos-episode": world.episode.id,
                                          "content-type": "application/json"}) as client:
        # Unknown ids in the path and malformed bodies alike.
        for target in (_path_with(path, "1"), _path_with(path, "no-such-id"), _path_with(path, "%3Cscript%3E")):
            response = await client.request(method, target, content=content)
            assert 400 <= response.status_code < 500, (target, label, response.status_code, response.text[:300])
            assert response.json().get("detail"), (target, label)
    assert world.episode.state_bytes() == world.opened
    world.clean = True

"""Lies: the network says something that is not what happened.

An agent that trusts the first answer it sees fails these; one that checks the
world (reloads, reads the cart, looks at the order list) passes. They stress
**verification** (a success that is not one, a page that lies), **state_tracking**
(a write that happened twice, a view that is out of date, headers that change what
is cached or kept) and **backtracking** (start over after an expired session or a
conflict).
"""

from __future__ import annotations

import asyncio
import fnmatch
import json
from typing import Any, ClassVar, Literal
from urllib.parse import quote

from mitmproxy import http
from pydantic import Field, model_validator

from proxy_addons.ledger import marks, request_summary
from proxy_addons.network.engine import (
    FaultContext,
    HookPoint,
    NetworkFault,
    answer,
    answer_json,
    is_write,
    state_of,
    wants_json,
)
from proxy_addons.network.errors import fail
from proxy_addons.network.relay import replay
from scenarios.faults import ArmedFault, Primitive, register


def _request_json(flow: http.HTTPFlow) -> dict[str, Any]:
    try:
        data = json.loads(flow.request.get_text(strict=False) or "")
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _referer_path(flow: http.HTTPFlow) -> str | None:
    """The path and query of the page the request came from (its Referer), without host or fragment."""
    referer = flow.request.headers.get("referer", "").split("#", 1)[0]
    if "://" not in referer:
        return None
    rest = referer.split("://", 1)[1]
    return "/" + rest.split("/", 1)[1] if "/" in rest else "/"


def plan_success(flow: http.HTTPFlow, armed: ArmedFault, status: int | None, body: str | None) -> dict[str, Any]:
    """What a successful write usually looks like (drawn once, for the ledger); `send_success` answers it.

    API calls get a JSON echo of the request's fields plus a fresh-looking id and, when the request
    names the page it came from (its Referer), a `url` back to that page (path and query): the sites'
    pages go to an answer's `url` after a write (with their success notice), so the echo sends them
    back where they were instead of nowhere. A form post gets a 303 back to the page it came from,
    as most sites do after a write.
    """
    if body is not None:
        return {"status": status or 200, "body": "custom"}
    if wants_json(flow):
        code = status or (201 if flow.request.method.upper() == "POST" else 200)
        plan = {"status": code, "body": "json_echo", "id": f"{armed.rng.getrandbits(32):08x}"}
        url = _referer_path(flow)
        return {**plan, "url": url} if url is not None else plan
    return {"status": status or 303, "location": _referer_path(flow) or "/"}


def send_success(flow: http.HTTPFlow, plan: dict[str, Any], body: str | None, content_type: str) -> None:
    if plan.get("body") == "custom" and body is not None:
        answer(flow, plan["status"], body, {"content-type": content_type})
    elif plan.get("body") == "json_echo":
        echo = {"ok": True, "id": plan["id"], **_request_json(flow)}
        if "url" in plan:
            echo["url"] = plan["url"]  # where the page goes next, over any `url` the request sent
        answer_json(flow, plan["status"], echo)
    else:
        answer(flow, plan["status"], b"", {"location": plan["location"]})


class FakeSuccess(NetworkFault):
    """Base of the lies that answer a success the site did not give (the answer's shape lives here)."""

    status: int | None = Field(default=None, ge=200, le=399, description="status answered; default by kind")
    body: str | None = Field(default=None, description="exact body answered; default: a JSON echo")
    content_type: str = Field(default="application/json", description="content type of a custom body")

    def planned_success(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return plan_success(flow, armed, self.status, self.body)

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        send_success(flow, ctx.detail, self.body, self.content_type)


@register
class SwallowedWrite(FakeSuccess):
    name: ClassVar[str] = "swallowed_write"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Answer a write with a realistic success and never forward it: the site never sees it. Default "
        "answer: an API call gets a 201/200 JSON echo of the request fields plus an id and a url naming the "
        "page it came from (its Referer: the page goes back there and says it worked); a form gets a 303 "
        "back to the page."
    )
    writes_only: ClassVar[bool] = True

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"forwarded": False, **self.planned_success(flow, armed)}


@register
class MisleadingSuccess(FakeSuccess):
    name: ClassVar[str] = "misleading_success"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Forward the request; if the site refuses it (4xx/5xx), answer a success anyway. The write did "
        "not happen but the client is told it did."
    )
    hook: ClassVar[HookPoint] = "response"

    min_status: int = Field(default=400, ge=300, le=599, description="site answers from this status are hidden")

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        return flow.response is not None and flow.response.status_code >= self.min_status

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        assert flow.response is not None
        return {"site_status": flow.response.status_code, **self.planned_success(flow, armed)}


@register
class DuplicateSubmit(NetworkFault):
    name: ClassVar[str] = "duplicate_submit"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Forward a write, then send it to the site once more (a double click); the client sees the first "
        "answer (or the second with answer=second). The agent should notice two items/orders."
    )
    hook: ClassVar[HookPoint] = "response"
    writes_only: ClassVar[bool] = True

    gap_ms: int = Field(default=0, ge=0, description="pause between the first answer and the duplicate")
    answer: Literal["first", "second"] = Field(default="first", description="which answer the client gets")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        assert flow.response is not None
        return {"first_status": flow.response.status_code, "answer": self.answer}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        if self.gap_ms:
            await asyncio.sleep(self.gap_ms / 1000)
        status, headers, body = await replay(flow)
        marks(flow)["duplicate_status"] = status
        if self.answer == "second":
            flow.response = http.Response.make(status, body, headers)


@register
class StaleResponse(NetworkFault):
    name: ClassVar[str] = "stale_response"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "For window_ms after a write, a matching GET is answered with the previous answer of the same URL "
        "(from before the write): the page does not show the change yet. Reloading after the window helps."
    )

    window_ms: int = Field(default=5000, ge=0, description="how long after a write reads are stale")

    @staticmethod
    def _key(flow: http.HTTPFlow) -> str:
        return f"{request_summary(flow)['host']}{flow.request.path}"

    def observe(self, flow: http.HTTPFlow, armed: ArmedFault, hook: HookPoint, now_ms: float) -> None:
        s = state_of(armed)
        if hook == "request":
            if is_write(flow):
                s["last_write_ms"] = now_ms
            return
        response = flow.response
        if (response is None or flow.request.method.upper() != "GET" or not 200 <= response.status_code < 300
                or response.stream):
            return
        req = request_summary(flow)
        if armed.spec.match.matches_request(req["host"], req["path"], "GET", b"",
                                            response.headers.get("content-type", "")):
            s.setdefault("cache", {})[self._key(flow)] = (now_ms, response.copy())

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        if flow.request.method.upper() != "GET":
            return False
        s = state_of(armed)
        last_write = s.get("last_write_ms")
        cached = s.get("cache", {}).get(self._key(flow))
        return (last_write is not None and cached is not None and cached[0] < last_write
                and now_ms - last_write < self.window_ms)

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        s = state_of(armed)
        cached_at, _ = s["cache"][self._key(flow)]
        return {"age_ms": round(s["last_write_ms"] - cached_at), "window_ms": self.window_ms}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        _, cached = state_of(armed)["cache"][self._key(flow)]
        flow.response = cached.copy()
        flow.response.headers["cache-control"] = "no-store"
        marks(flow)["local"] = True


def _walk(node: Any, parts: list[str]) -> list[tuple[Any, str | int]]:
    """(container, key) pairs addressed by a dotted path; `*` means every element."""
    if not parts:
        return []
    head, rest = parts[0], parts[1:]
    keys: list[str | int]
    if isinstance(node, dict):
        keys = list(node) if head == "*" else ([head] if head in node else [])
    elif isinstance(node, list):
        if head == "*":
            keys = list(range(len(node)))
        else:
            keys = [int(head)] if head.lstrip("-").isdigit() and -len(node) <= int(head) < len(node) else []
    else:
        return []
    if not rest:
        return [(node, k) for k in keys]
    out = []
    for k in keys:
        out += _walk(node[k], rest)
    return out


@register
class BodyPatch(NetworkFault):
    name: ClassVar[str] = "body_patch"
    primitive: ClassVar[Primitive] = Primitive.verification
    description: ClassVar[str] = (
        "Change the response body: set a JSON field (dotted path, * for every element) to json_value, or "
        "replace text (HTML, plain text) find -> replace. The page shows something the site never said."
    )
    hook: ClassVar[HookPoint] = "response"

    json_field: str | None = Field(default=None, description="dotted path in a JSON body, e.g. items.*.price_cents")
    json_value: Any = Field(default=None, description="the value written at json_field")
    find: str | None = Field(default=None, description="text to replace (any text body)")
    replace: str = Field(default="", description="replacement for find")
    count: int = Field(default=0, ge=0, description="at most this many text replacements (0: all)")

    @model_validator(mode="after")
    def _one_mode(self) -> BodyPatch:
        if (self.json_field is None) == (self.find is None):
            raise ValueError("give exactly one of json_field or find")
        if self.find == "":
            raise ValueError("find must not be empty")
        return self

    def _json(self, flow: http.HTTPFlow) -> Any:
        assert flow.response is not None
        if "json" not in flow.response.headers.get("content-type", "").lower():
            return None
        try:
            return json.loads(flow.response.get_text(strict=False) or "")
        except ValueError:
            return None

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        if flow.response is None:
            return False
        if self.json_field is not None:
            return bool(_walk(self._json(flow), self.json_field.split(".")))
        text = flow.response.get_text(strict=False) or ""
        return self.find is not None and self.find in text

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        if self.json_field is not None:
            targets = _walk(self._json(flow), self.json_field.split("."))
            return {"field": self.json_field, "old": targets[0][0][targets[0][1]], "new": self.json_value,
                    "changed": len(targets)}
        assert flow.response is not None and self.find is not None
        found = (flow.response.get_text(strict=False) or "").count(self.find)
        return {"find": self.find, "replace": self.replace, "changed": min(found, self.count) if self.count else found}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        assert flow.response is not None
        if self.json_field is not None:
            data = self._json(flow)
            for container, key in _walk(data, self.json_field.split(".")):
                container[key] = self.json_value
            flow.response.text = json.dumps(data, separators=(",", ":"))
        else:
            assert self.find is not None
            text = flow.response.get_text(strict=False) or ""
            flow.response.text = text.replace(self.find, self.replace, self.count or -1)


@register
class HeaderPatch(NetworkFault):
    name: ClassVar[str] = "header_patch"
    primitive: ClassVar[Primitive] = Primitive.state_tracking
    description: ClassVar[str] = (
        "Set or remove request or response headers (e.g. drop Set-Cookie, force caching, change the "
        "content type): what the browser keeps or shows changes without the site knowing."
    )

    target: Literal["request", "response"] = Field(default="response", description="which headers change")
    set_headers: dict[str, str] = Field(default_factory=dict, description="headers set (replacing any)")
    remove_headers: list[str] = Field(default_factory=list, description="header names removed")

    @model_validator(mode="after")
    def _something(self) -> HeaderPatch:
        if not self.set_headers and not self.remove_headers:
            raise ValueError("give set_headers and/or remove_headers")
        return self

    def hook_point(self) -> HookPoint:
        return self.target

    def _headers(self, flow: http.HTTPFlow) -> http.Headers:
        if self.target == "request":
            return flow.request.headers
        assert flow.response is not None
        return flow.response.headers

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        present = self._headers(flow)
        return {"target": self.target, "set": sorted(self.set_headers),
                "removed": sorted(h for h in self.remove_headers if h in present)}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        headers = self._headers(flow)
        for name in self.remove_headers:
            headers.pop(name, None)
        for name, value in self.set_headers.items():
            headers[name] = value


@register
class SessionExpiry(NetworkFault):
    name: ClassVar[str] = "session_expiry"
    primitive: ClassVar[Primitive] = Primitive.state_tracking  # as the server's: sign in, carry on where one was
    description: ClassVar[str] = (
        "From the firing on (default schedule: once), the session looks expired until the agent signs in "
        "again (a POST to login_path): API/JSON calls get 401, pages a 302 to "
        "login_path?next=<path>&expired=1. The agent must sign in and return to where it was."
    )
    default_schedule: ClassVar[dict[str, Any] | None] = {"mode": "once"}

    login_path: str = Field(default="/login", description="the site's sign-in page (GET) and action (POST)")
    api_status: int = Field(default=401, ge=400, le=499, description="status for API/JSON requests")
    exempt: list[str] = Field(
        default_factory=lambda: ["/login*", "/logout*", "/static/*", "/favicon.ico"],
        description="path globs that keep working while expired")

    def _exempt(self, flow: http.HTTPFlow) -> bool:
        path = flow.request.path.split("?", 1)[0]
        return path == self.login_path or any(fnmatch.fnmatchcase(path, g) for g in self.exempt)

    def observe(self, flow: http.HTTPFlow, armed: ArmedFault, hook: HookPoint, now_ms: float) -> None:
        if (hook == "request" and flow.request.method.upper() == "POST"
                and flow.request.path.split("?", 1)[0] == self.login_path):
            s = state_of(armed)
            if s.get("expired"):
                s["expired"] = False
                s["sign_ins"] = s.get("sign_ins", 0) + 1

    def in_effect(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        return bool(state_of(armed).get("expired")) and not self._exempt(flow)

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        return not self._exempt(flow)

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        if wants_json(flow):
            return {"status": self.api_status}
        after = flow.request.path if flow.request.method.upper() == "GET" else (_referer_path(flow) or "/")
        return {"status": 302, "location": f"{self.login_path}?next={quote(after, safe='/')}&expired=1"}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        state_of(armed)["expired"] = True
        if "location" in ctx.detail:
            answer(flow, 302, b"", {"location": ctx.detail["location"]})
        else:
            answer_json(flow, self.api_status, {"detail": "Your session has expired. Sign in again."},
                        {"www-authenticate": 'Cookie realm="site"'})


@register
class ConcurrentModification(NetworkFault):
    name: ClassVar[str] = "concurrent_modification"
    # Patience: refused once, the write goes through when sent again (the reference agent's "retry after an
    # error"); the specificity matrix showed the agent lacking patience failing it, the one lacking
    # backtracking passing.
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Refuse the first write (default schedule: once) with 409 Conflict, as if someone else changed the "
        "item; not forwarded. The agent should reload and do it again."
    )
    writes_only: ClassVar[bool] = True
    default_schedule: ClassVar[dict[str, Any] | None] = {"mode": "once"}

    status: int = Field(default=409, ge=400, le=499, description="HTTP status answered")
    message: str = Field(default="This was changed by someone else in the meantime. Reload and try again.",
                         description="the error message shown")

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"status": self.status}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        fail(flow, self.status, None, message=self.message)

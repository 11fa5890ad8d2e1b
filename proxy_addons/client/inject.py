"""The addon that injects the client-fault script into an episode's HTML pages.

For each HTML response (2xx, `text/html`, not HEAD) of an episode with client
faults, every client fault whose `match` fits the page (host, path glob on the
page path, methods) counts one eligible event and the scheduler decides
(`ArmedFault.decide`). If at least one fault is armed for this page load, an
inline `<script>` is inserted right after `<head ...>` (else after `<html ...>`,
else after a doctype, else at the very start). It defines a frozen config (the
armed faults: id, type, params, target) and runs `webchaos.js`. Pages with no
armed fault are left byte-for-byte alone.

Injected pages get `cache-control: no-store` (and lose `etag`/`last-modified`) so
a cached copy never replays a decision. CSP (simple approach): if the page sends
a `Content-Security-Policy` header whose `script-src` (or `default-src`) would
block an inline script, the script gets a fresh nonce that is added to that
directive; if `connect-src` (or `default-src`) would block the same-origin report
`fetch`, `'self'` is added to it. CSP `<meta>` tags are not rewritten.

Each armed fault also gets a ledger line (layer `client`, detail `event:
"injected"`); the browser reports `fired` / `dismissed` itself through
`/__webchaos/report` (see recorder.py).
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from pathlib import Path
from typing import Any, ClassVar

from mitmproxy import http

from proxy_addons.episodes import Episode, Episodes
from proxy_addons.ledger import marks, request_summary
from proxy_addons.network.engine import error_response
from scenarios.faults import ArmedFault, FaultType, Layer

logger = logging.getLogger(__name__)

SCRIPT_SOURCE = (Path(__file__).with_name("webchaos.js")).read_text(encoding="utf-8")
assert "</script" not in SCRIPT_SOURCE.lower()

_HEAD = re.compile(rb"<head(\s[^>]*)?>", re.IGNORECASE)
_HTML = re.compile(rb"<html(\s[^>]*)?>", re.IGNORECASE)
_DOCTYPE = re.compile(rb"<!doctype[^>]*>", re.IGNORECASE)
_SELF_OK = {"'self'", "*", "http:"}


class ClientFault(FaultType):
    """Base of client fault types; their parameters go to the browser script as-is."""

    layer: ClassVar[Layer] = Layer.client


def fault_config(armed: ArmedFault) -> dict[str, Any]:
    match = armed.spec.match
    return {
        "id": armed.id,
        "type": armed.spec.type,
        "params": armed.params.model_dump(mode="json"),
        "target": {"selector": match.selector, "role": match.role, "name": match.name},
    }


def script_tag(configs: list[dict[str, Any]], nonce: str | None = None) -> bytes:
    config = json.dumps({"faults": configs, "report": "/__webchaos/report"}, ensure_ascii=True)
    config = config.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    attrs = f' nonce="{nonce}"' if nonce else ""
    body = (
        "(function () {\n\"use strict\";\n"
        f"var WEBCHAOS_CONFIG = {config};\n{SCRIPT_SOURCE}\n}})();\n"
    )
    return f"<script data-webchaos{attrs}>\n{body}</script>".encode("ascii")


def insert_script(html: bytes, tag: bytes) -> bytes:
    for pattern in (_HEAD, _HTML, _DOCTYPE):
        found = pattern.search(html)
        if found:
            return html[: found.end()] + tag + html[found.end():]
    return tag + html


def relax_csp(policy: str, nonce: str) -> tuple[str, bool]:
    """Let our inline script (by nonce) and its same-origin report through one CSP policy.

    Returns the new policy and whether the script needs the nonce.
    """
    dirs = [d.split() for d in policy.split(";") if d.strip()]

    def find(name: str) -> int | None:
        return next((i for i, d in enumerate(dirs) if d[0].lower() == name), None)

    def widen(name: str, extra: str) -> None:
        own = find(name)
        index = own if own is not None else find("default-src")
        assert index is not None
        kept = [v for v in dirs[index][1:] if v.lower() != "'none'"]
        if own is not None:
            dirs[index] = [dirs[index][0], *kept, extra]
        else:  # default-src governs: add an explicit directive derived from it
            dirs.append([name, *kept, extra])

    def governing(name: str) -> list[str] | None:
        index = find(name)
        index = index if index is not None else find("default-src")
        return None if index is None else [v.lower() for v in dirs[index][1:]]

    need_nonce = False
    for name in ("script-src-elem", "script-src"):
        values = governing(name) if name == "script-src" or find(name) is not None else None
        if values is None:
            continue
        hashed = any(v.startswith(("'nonce-", "'sha")) for v in values)
        if "'unsafe-inline'" not in values or hashed:
            widen(name, f"'nonce-{nonce}'")
            need_nonce = True
    values = governing("connect-src")
    if values is not None and not _SELF_OK & set(values):
        widen("connect-src", "'self'")
    return "; ".join(" ".join(d) for d in dirs), need_nonce


class ClientInject:
    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes

    def response(self, flow: http.HTTPFlow) -> None:
        m = marks(flow)
        if m.get("local") or "site" not in m or flow.response is None:
            return
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None or not episode.faults_of(Layer.client):
            return
        resp = flow.response
        if flow.request.method == "HEAD" or not 200 <= resp.status_code < 300 or resp.stream:
            return
        content_type = resp.headers.get("content-type", "")
        if not content_type.lower().startswith("text/html"):
            return
        try:
            self._inject(flow, episode, content_type)
        except Exception as exc:
            logger.exception("webchaos: client injection raised")
            error = f"{type(exc).__name__}: {exc}"
            episode.ledger.write("client", "hook_error", flow=flow, detail={"hook": "response", "error": error})
            error_response(flow, f"client fault injection failed ({error})")

    def _inject(self, flow: http.HTTPFlow, episode: Episode, content_type: str) -> None:
        assert flow.response is not None
        req = request_summary(flow)
        body = flow.request.raw_content or b""
        armed_now = []
        for armed in episode.faults_of(Layer.client):
            if not armed.spec.match.matches_request(req["host"], req["path"], req["method"], body, content_type):
                continue
            if armed.decide(episode.elapsed_ms()):
                armed_now.append(armed)
        if not armed_now:
            return
        for armed in armed_now:
            episode.ledger.write("client", armed.spec.type, flow=flow, fault_id=armed.id,
                                 detail={"event": "injected", "page": req["path"]})
        headers = flow.response.headers
        nonce = None
        policies = headers.get_all("content-security-policy")
        if policies:
            candidate = secrets.token_urlsafe(18)
            relaxed = [relax_csp(p, candidate) for p in policies]
            headers.set_all("content-security-policy", [p for p, _ in relaxed])
            if any(needed for _, needed in relaxed):
                nonce = candidate
        html = flow.response.content or b""
        flow.response.content = insert_script(html, script_tag([fault_config(a) for a in armed_now], nonce))
        headers["cache-control"] = "no-store"
        headers.pop("etag", None)
        headers.pop("last-modified", None)
        marks(flow)["injected"] = [a.id for a in armed_now]

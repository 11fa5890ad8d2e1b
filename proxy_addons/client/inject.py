"""The addon that injects the client script into an episode's HTML pages.

For each HTML response (2xx, `text/html`, not HEAD) of an episode, every client
fault whose `match` fits the page (host, path glob on the page path, methods)
counts one eligible event and the scheduler decides (`ArmedFault.decide`). If at
least one fault is armed for this page load, or the episode records GUI actions
(`record_actions`, on by default) or the page for replay (`record_replay`, on by
default; needs rrweb installed, see proxy_addons/rrweb.py), an inline `<script>` is inserted right after
`<head ...>` (else after `<html ...>`, else after a doctype, else at the very
start). It is one IIFE: a frozen config (the armed faults: id, type, params,
target; the report and actions paths), `core.js`, the JS file of each armed
fault's family (`ClientFault.script`), `recorder.js` when actions are recorded,
`rrweb.js` when the page is recorded (config `rrweb`: the endpoint, `rrweb_rec`: this page
load's recording number, `rrweb_script`: where it loads rrweb's recorder from once the page
has loaded), then `boot()`. The
script removes its own element as it runs, defines no global and registers only
capture-phase listeners. Pages of an episode that records neither actions nor
replay and has no armed fault are left byte-for-byte alone.

Injected pages get `cache-control: no-store` (and lose `etag`/`last-modified`) so
a cached copy never replays a decision. CSP (simple approach): if the page sends
a `Content-Security-Policy` header whose `script-src` (or `default-src`) would
block an inline script, the script gets a fresh nonce that is added to that
directive; if `connect-src` (or `default-src`) would block the same-origin report
`fetch`, `'self'` is added to it. CSP `<meta>` tags are not rewritten.

A decision belongs to the fault, not to the page: a fault injected into a page the agent left
before the fault acted (no report from it other than `target_missing`) is injected again into the
next page it matches, without a new schedule draw (ledger detail `carried_over: true`). So `once`
on a commit page means the first time the agent is there to commit, not its first visit.

Each armed fault also gets a ledger line (layer `client`, detail `event:
"injected"`); the browser reports `fired` / `dismissed` / `restored` / `hit` /
`target_missing` itself through `/__webchaos/report`, and the GUI actions through
`/__webchaos/actions` (both answered by recorder.py, never forwarded).

Client fault types subclass `ClientFault`: its fields are the trigger every type
shares (`delay_ms`, `after_input_in`, `after_clicks`), a subclass adds its own
parameters and names the JS file that implements it; `check_match` validates the
target (`match.selector`, or `match.role` + `match.name`) when a catalog loads.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
from pathlib import Path
from typing import Any, ClassVar

from mitmproxy import http
from pydantic import Field

from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.ledger import marks, request_summary
from proxy_addons.network.engine import error_response
from proxy_addons.rrweb import RRWEB_PATH, record_script_url
from scenarios.faults import ArmedFault, FaultType, Layer, Match, lookup

logger = logging.getLogger(__name__)

_HERE = Path(__file__).parent
REPORT_PATH = "/__webchaos/report"
ACTIONS_PATH = "/__webchaos/actions"


def _js(name: str) -> str:
    text = (_HERE / name).read_text(encoding="utf-8")
    assert "</script" not in text.lower() and "<!--" not in text, name
    return text


CORE_JS = _js("core.js")
RECORDER_JS = _js("recorder.js")
RRWEB_JS = _js("rrweb.js")

_HEAD = re.compile(rb"<head(\s[^>]*)?>", re.IGNORECASE)
_HTML = re.compile(rb"<html(\s[^>]*)?>", re.IGNORECASE)
_DOCTYPE = re.compile(rb"<!doctype[^>]*>", re.IGNORECASE)
_SELF_OK = {"'self'", "*", "http:"}


# WAI-ARIA 1.2 roles a client fault may target with `match.role`.
ARIA_ROLES = frozenset("""
alert alertdialog application article banner blockquote button caption cell checkbox code columnheader
combobox complementary contentinfo definition deletion dialog directory document emphasis feed figure form
generic grid gridcell group heading img insertion link list listbox listitem log main marquee math menu
menubar menuitem menuitemcheckbox menuitemradio meter navigation none note option paragraph presentation
progressbar radio radiogroup region row rowgroup rowheader scrollbar search searchbox separator slider
spinbutton status strong subscript superscript switch tab table tablist tabpanel term textbox time timer
toolbar tooltip tree treegrid treeitem
""".split())


class ClientFault(FaultType):
    """Base of client fault types; their parameters go to the browser script as-is.

    The shared trigger: find the target, then (if set) wait until the agent has typed
    into the `after_input_in` field, then until it has clicked the target
    `after_clicks` times, then wait `delay_ms`; then the fault acts (within the last
    click when there is no delay: before a link's click leaves the page).
    """

    layer: ClassVar[Layer] = Layer.client
    script: ClassVar[str]  # the JS file (in this folder) that implements the type
    needs_target: ClassVar[bool] = True  # False: page-level, the target is optional
    target_hint: ClassVar[str] = "an element"

    delay_ms: int = Field(default=0, ge=0, le=600_000,
                          description="trigger: wait this long (after the target appears and the other triggers)")
    after_input_in: str | None = Field(default=None, min_length=1, max_length=200,
                                       description="trigger: only after the agent typed into this field "
                                                   "(CSS selector, or the field's accessible name)")
    after_clicks: int = Field(default=0, ge=0, le=100,
                              description="trigger: only after the agent clicked the target this many times")

    @classmethod
    def check_match(cls, match: Match) -> str | None:
        if match.selector is not None and (match.role is not None or match.name is not None):
            return "set match.selector, or match.role and match.name, not both"
        if match.selector is not None and (not match.selector.strip()
                                           or match.selector.count("[") != match.selector.count("]")):
            return f"not a valid CSS selector: {match.selector!r}"
        if match.name is not None and match.role is None:
            return "match.name needs match.role"
        if match.within is not None and match.role is None:
            return "match.within needs match.role"
        if match.role is not None and match.role not in ARIA_ROLES:
            return f"unknown ARIA role {match.role!r}; allowed: {', '.join(sorted(ARIA_ROLES))}"
        if cls.needs_target and match.selector is None and match.role is None:
            return (f"a {cls.name!r} fault needs a target ({cls.target_hint}): "
                    "set match.selector, or match.role and match.name")
        return None


def fault_config(armed: ArmedFault) -> dict[str, Any]:
    match = armed.spec.match
    return {
        "id": armed.id,
        "type": armed.spec.type,
        "params": armed.params.model_dump(mode="json"),
        "target": {"selector": match.selector, "role": match.role, "name": match.name, "within": match.within},
    }


def script_source(configs: list[dict[str, Any]], record_actions: bool, rrweb_rec: int | None = None,
                  actions_at_once: bool = False) -> str:
    """The body of the injected script: config, core, the armed faults' families, recorder, rrweb, boot.

    `rrweb_rec`: this page load's recording number (None: the page is not recorded). `actions_at_once`:
    send each GUI action as it happens (a fault's trigger counts them), not in 250 ms batches."""
    script_url = record_script_url() if rrweb_rec is not None else None
    settings: dict[str, Any] = {"faults": configs, "report": REPORT_PATH,
                                "actions": ACTIONS_PATH if record_actions else None}
    if actions_at_once:
        settings["flush_ms"] = 0
    if script_url is not None:
        settings.update(rrweb=RRWEB_PATH, rrweb_rec=rrweb_rec, rrweb_script=script_url)
    config = json.dumps(settings, ensure_ascii=True)
    config = config.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    families: list[str] = []
    for c in configs:
        kind = lookup(c["type"], Layer.client)
        if kind is not None and issubclass(kind, ClientFault) and kind.script not in families:
            families.append(kind.script)
    parts = [f"var WEBCHAOS_CONFIG = {config};", CORE_JS, *(_js(f) for f in families)]
    if record_actions:
        parts.append(RECORDER_JS)
    if script_url is not None:
        parts.append(RRWEB_JS)
    parts.append("boot();")
    return "(function () {\n\"use strict\";\n" + "\n".join(parts) + "\n})();\n"


def script_tag(configs: list[dict[str, Any]], nonce: str | None = None, record_actions: bool = False,
               rrweb_rec: int | None = None, actions_at_once: bool = False) -> bytes:
    attrs = f' nonce="{nonce}"' if nonce else ""
    body = script_source(configs, record_actions, rrweb_rec, actions_at_once)
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

    @staticmethod
    def _replay(episode: ProxyEpisode) -> bool:
        return episode.record_replay and record_script_url() is not None

    def response(self, flow: http.HTTPFlow) -> None:
        m = marks(flow)
        if m.get("local") or "site" not in m or flow.response is None:
            return
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None or not (episode.faults_of(Layer.client) or episode.record_actions or self._replay(episode)):
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

    def _inject(self, flow: http.HTTPFlow, episode: ProxyEpisode, content_type: str) -> None:
        assert flow.response is not None
        req = request_summary(flow)
        body = flow.request.raw_content or b""
        armed_now = []
        carried: set[str] = set()
        for armed in episode.faults_of(Layer.client):
            if not armed.spec.match.matches_request(req["host"], req["path"], req["method"], body, content_type):
                continue
            if armed.id in episode.client_unfired and armed.active:
                carried.add(armed.id)  # decided for an earlier page that was left before it acted
                armed_now.append(armed)
            elif armed.decide(episode.elapsed_ms()):
                armed_now.append(armed)
        replay = self._replay(episode)
        if not armed_now and not episode.record_actions and not replay:
            return
        rrweb_rec = None
        if replay:
            episode.replay_pages += 1
            rrweb_rec = episode.replay_pages
        for armed in armed_now:
            detail: dict[str, Any] = {"event": "injected", "page": req["path"]}
            if armed.id in carried:
                detail["carried_over"] = True
            episode.ledger.write("client", armed.spec.type, flow=flow, fault_id=armed.id, detail=detail)
            episode.client_unfired.add(armed.id)
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
        at_once = any(a.trigger is not None and a.trigger.trigger.uses_actions for a in episode.faults)
        tag = script_tag([fault_config(a) for a in armed_now], nonce, episode.record_actions, rrweb_rec, at_once)
        flow.response.content = insert_script(html, tag)
        headers["cache-control"] = "no-store"
        headers.pop("etag", None)
        headers.pop("last-modified", None)
        marks(flow)["injected"] = [a.id for a in armed_now]

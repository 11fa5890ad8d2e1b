"""`iframe_widget`: the target button moves into a widget frame served from another origin (`frames.js`).

Payment and sign-in widgets live in cross-origin frames; an agent that reads only the top document
does not find their controls. The type has two halves of one name, on two layers (as `session_expiry`
has), armed together:

- client `iframe_widget`: on the page, the target button is hidden (`display: none`, so it leaves the
  layout and the accessibility tree) and an `<iframe>` from `pay.<site host>` (same scheme) takes its
  place, showing a button with the same accessible name. Activating that button posts a message to
  the page; the injected script accepts it only from that frame (the message's `origin` is the
  frame host's and its `source` the frame's own window) and clicks the hidden original, so the site
  does exactly what it does without the fault. Ledger: `fired` when the control moves, `hit` each
  time it is activated through the frame. Fair: look inside the page's frames.
- network `iframe_widget`: answers the frame's page, `GET /widget/<client fault id>` on the frame
  host (`match.host: "pay.*"`), from the proxy; one ledger line per page served. The page shows the
  button (the client half's `match.name`) and the provider's name, and holds the GUI-action recorder
  so clicks in the frame reach the actions log.

The issue asks for "a kit host". The frame host is served here, by the proxy, instead: it passes the
same guard as the sites (harness/services/processes.py admits `frame_hosts` beside the site hosts,
so an unarmed frame host is a plain 404 from the sites server), it is scoped to the episode of the
listener the request arrives on (the page names only a client `iframe_widget` armed in that episode
and holds nothing but its button's name: no other episode's state, no answer), it is never forwarded
(so it never carries the stack's secret), and with `--https` the proxy's CA signs the frame host like
any site host. That is the same separate origin, without touching the kit; and the whole type stays
in this module and its script, in its own validation digest.
"""

from __future__ import annotations

import html
import json
from typing import Any, ClassVar
from urllib.parse import quote, unquote

from mitmproxy import http
from pydantic import Field

from proxy_addons.client.inject import ClientFault, script_source
from proxy_addons.ledger import marks, request_summary
from proxy_addons.network.engine import FaultContext, NetworkFault, answer
from scenarios.faults import ArmedFault, Layer, Match, Primitive, register

FRAME_HOST_LABEL = "pay"  # the frame host is `pay.<site host>` (frames.js builds the same name)
WIDGET_PATH = "/widget/"  # + the client fault's id, percent-encoded (frames.js builds the same path)


def frame_host(site_host: str) -> str:
    return f"{FRAME_HOST_LABEL}.{site_host}"


def frame_hosts(site_hosts: list[str]) -> list[str]:
    """The widget frame host of each site host, for the guard's list of admitted hosts."""
    return [frame_host(host) for host in site_hosts]


def widget_path(fault_id: str) -> str:
    return WIDGET_PATH + quote(fault_id, safe="")


@register
class IframeWidget(ClientFault):
    name: ClassVar[str] = "iframe_widget"
    primitive: ClassVar[Primitive] = Primitive.exploration
    description: ClassVar[str] = (
        "Move the target button into a widget frame served from another origin (pay.<site host>, answered by "
        "the network iframe_widget: arm both); the frame's same-named button makes the page do what the "
        "original does. Target: a button (role + name)."
    )
    script: ClassVar[str] = "frames.js"
    target_hint: ClassVar[str] = "a button, by role and name"

    provider: str = Field(default="PayBridge", min_length=1, max_length=60,
                          description="the widget provider named in the frame ('Secured by …') and its title")
    width_px: int = Field(default=340, ge=120, le=1200, description="the frame's width")
    height_px: int = Field(default=104, ge=60, le=800, description="the frame's height")

    @classmethod
    def check_match(cls, match: Match) -> str | None:
        refused = super().check_match(match)
        if refused is not None:
            return refused
        if match.role != "button" or not match.name:
            return "an 'iframe_widget' fault moves a button into its frame: set match.role 'button' and match.name"
        return None


@register
class IframeWidgetHost(NetworkFault):
    name: ClassVar[str] = "iframe_widget"
    primitive: ClassVar[Primitive] = Primitive.exploration
    description: ClassVar[str] = (
        "The frame host of the client iframe_widget: answer its widget page (GET /widget/<fault id> on "
        "pay.<site host>, match.host 'pay.*') from the proxy, for the episode's own client iframe_widget."
    )

    @classmethod
    def check_match(cls, match: Match) -> str | None:
        if match.host is None or not match.host.lower().startswith(FRAME_HOST_LABEL + "."):
            return (f"the network 'iframe_widget' answers the widget frame host: set match.host to "
                    f"'{FRAME_HOST_LABEL}.<site host>' or '{FRAME_HOST_LABEL}.*'")
        return None

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        req = request_summary(flow)
        return (req["method"] == "GET" and req["host"].startswith(FRAME_HOST_LABEL + ".")
                and req["path"].startswith(WIDGET_PATH) and len(req["path"]) > len(WIDGET_PATH))

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        return {"widget": unquote(request_summary(flow)["path"][len(WIDGET_PATH):])}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        client = ctx.episode.fault(ctx.detail["widget"])
        if client is None or client.spec.layer != Layer.client or not isinstance(client.params, IframeWidget):
            answer(flow, 404, "No such widget.\n", {"content-type": "text/plain; charset=utf-8"})
            return
        scheme = marks(flow).get("client_target", (flow.request.scheme,))[0]
        parent = f"{scheme}://{request_summary(flow)['host'][len(FRAME_HOST_LABEL) + 1:]}"
        page = widget_page(client, parent, ctx.episode.record_actions)
        answer(flow, 200, page, {"content-type": "text/html; charset=utf-8",
                                 "content-security-policy": f"frame-ancestors {parent}"})


def _json_in_script(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


WIDGET_STYLE = """
html, body { margin: 0; height: 100%; background: transparent; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1b1f24; }
.widget { box-sizing: border-box; height: 100%; padding: 12px 14px; border: 1px solid #d5d9e0; border-radius: 10px;
          background: #fff; display: flex; flex-direction: column; justify-content: center; gap: 8px; }
.provider { margin: 0; font-size: 12px; color: #5b6472; display: flex; align-items: center; gap: 6px; }
.provider svg { flex: none; }
button { width: 100%; padding: 10px 16px; border: 0; border-radius: 8px; background: #2f5bea; color: #fff;
         font-family: inherit; font-size: 15px; font-weight: 600; line-height: 1.2; cursor: pointer; }
button:hover { background: #2449c4; }
button:focus-visible { outline: 3px solid #9db4ff; outline-offset: 2px; }
"""

LOCK_ICON = ('<svg width="12" height="12" viewBox="0 0 16 16" aria-hidden="true"><path fill="#5b6472" d="M4 7V5a4 4 '
             '0 1 1 8 0v2h1v8H3V7h1zm2 0h4V5a2 2 0 1 0-4 0v2z"/></svg>')


def widget_page(client: ArmedFault, parent_origin: str, record_actions: bool) -> str:
    """The frame's page: the provider's line and the button; a click posts `activate` to the parent page."""
    params = client.params
    assert isinstance(params, IframeWidget)
    name = client.spec.match.name or ""
    message = {"kind": "widget-activate", "widget": client.id}
    activate = ("(function () {\n"
                f"  var parentOrigin = {_json_in_script(parent_origin)};\n"
                f"  var message = {_json_in_script(message)};\n"
                "  document.getElementById(\"widget-action\").addEventListener(\"click\", function () {\n"
                "    window.parent.postMessage(message, parentOrigin);\n"
                "  });\n"
                "})();\n")
    recorder = script_source([], record_actions) if record_actions else ""
    provider = html.escape(params.provider)
    return (
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        f"<title>{provider} secure widget</title><style>{WIDGET_STYLE}</style>"
        + (f"<script>\n{recorder}</script>" if recorder else "")
        + "</head><body><div class=\"widget\">"
        f"<p class=\"provider\">{LOCK_ICON}<span>Secured by {provider}</span></p>"
        f"<button type=\"button\" id=\"widget-action\">{html.escape(name)}</button>"
        f"</div><script>\n{activate}</script></body></html>\n"
    )

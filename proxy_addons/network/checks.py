"""Checks the open web puts before a page: "verify you are human" and "checking your browser".

Both answer a page load (a GET asking for HTML) with an interstitial page of the proxy's own instead of
the page asked for, and keep answering it on that host until the agent has got past it; then the page
asked for loads as it would have, with no site state lost (the check never forwarded anything).

- `human_check`: a challenge the agent must solve on the page. Its mode says which one, and what it
  stresses: `checkbox` (tick "I am not a robot", then Continue is enabled only after `wait_ms`:
  patience and grounding), `word` (read the word the page states and type it: planning), `slider` (move
  a slider to its end, by mouse or the End key: grounding and patience). Every mode asks for steps the
  task's plan does not have, so the type's primitive is planning; a recipe names its mode's own.
  Continue submits the form to the page's own address with the proxy's key `__webchaos_check` in the
  query: the proxy answers it (the site never sees it), and a right answer marks the host verified for
  this episode's armed fault only and redirects (303) to the address first asked for, so the browser
  asks for it again and gets the page; a wrong one shows an error and a new challenge (a new word,
  seeded). `times`: how many challenges a host asks in the episode (after each pass, the page asked for
  goes through once).
- `bot_wall`: "Checking your browser…" for `wait_ms` from when it is first shown, after which the page
  reloads itself (a script) and the proxy lets that load through. Every page load on the host before then
  gets the wall again; an agent that gives up or goes elsewhere fails. Primitive: patience.

Ledger: the first showing of a challenge or a wall is the firing (detail: mode, word, challenge number /
wait, wall number); showing it again, an answer and the pass are notes (`detail.note`), not firings.
The interstitial gets the GUI-action recorder and the page recorder as a site's page would (the client
injection skips pages the proxy answers itself), so the solve shows in the actions log and the replay.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal
from urllib.parse import parse_qs, urlsplit

from mitmproxy import http
from pydantic import Field

from proxy_addons.client.inject import insert_script, script_tag
from proxy_addons.episodes import ProxyEpisode
from proxy_addons.ledger import marks
from proxy_addons.network.engine import FaultContext, HookPoint, NetworkFault, answer, state_of
from proxy_addons.rrweb import record_script_url
from scenarios.faults import ArmedFault, Primitive, register

CHECK_KEY = "__webchaos_check"  # the query key of an answer: the proxy's own, never forwarded
# Short, common, unambiguous words (no homophones, nothing a spell checker would change).
WORDS = ("harbor", "lantern", "meadow", "copper", "falcon", "orchard", "pebble", "velvet", "summit", "canyon",
         "maple", "thistle", "beacon", "walnut", "glacier", "saddle", "willow", "ember", "quartz", "harvest")
SLIDER_END = 100
HTML_TYPE = {"content-type": "text/html; charset=utf-8"}


def page_load(flow: http.HTTPFlow) -> bool:
    """A GET that asks for a page (a browser's navigation), not a script's call or an image."""
    return flow.request.method == "GET" and "text/html" in flow.request.headers.get("accept", "").lower()


def answered_challenge(flow: http.HTTPFlow) -> str | None:
    """The challenge number an answer names (None: not an answer to a check)."""
    if flow.request.method != "GET":
        return None
    values = parse_qs(urlsplit(flow.request.path).query).get(CHECK_KEY)
    return values[0] if values else None


def form_field(flow: http.HTTPFlow, name: str) -> str:
    values = parse_qs(urlsplit(flow.request.path).query, keep_blank_values=True).get(name)
    return values[0] if values else ""


def host_of(flow: http.HTTPFlow) -> str:
    return str(marks(flow).get("site") or flow.request.pretty_host)


def with_recorders(page: str, episode: ProxyEpisode) -> str:
    """The page with the recorders a site's page gets (GUI actions; rrweb when it is installed), no faults."""
    replay = episode.record_replay and record_script_url() is not None
    if not (episode.record_actions or replay):
        return page
    rec = None
    if replay:
        episode.replay_pages += 1
        rec = episode.replay_pages
    tag = script_tag([], None, episode.record_actions, rec)
    return insert_script(page.encode(), tag).decode()


STYLE = """
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:#1f2328;background:#f6f7f9}main{max-width:560px;margin:12vh auto 0;padding:0 24px}
.host{font-size:28px;font-weight:600;margin:0 0 8px}h1{font-size:20px;font-weight:600;margin:24px 0 8px}
.lead{color:#59636e;margin:0 0 20px}.box{background:#fff;border:1px solid #d0d7de;border-radius:6px;
padding:18px 20px;display:flex;flex-direction:column;gap:14px;max-width:420px}
label.tick{display:flex;align-items:center;gap:12px;font-size:16px;cursor:pointer}
label.tick input{width:26px;height:26px;margin:0;accent-color:#1a7f37;cursor:pointer}
.prompt{margin:0}.prompt strong{font:600 20px/1.2 ui-monospace,Menlo,Consolas,monospace;letter-spacing:.06em}
input[type=text]{font:inherit;padding:8px 10px;border:1px solid #8c959f;border-radius:6px;width:100%}
input[type=range]{width:100%;accent-color:#0969da}
button{font:inherit;font-weight:600;padding:8px 18px;border-radius:6px;border:1px solid #1a7f37;
background:#1f883d;color:#fff;cursor:pointer;align-self:flex-start}
button:disabled{background:#94d3a2;border-color:#94d3a2;cursor:not-allowed}
.status{color:#59636e;font-size:14px;margin:0;min-height:1.5em}
.error{color:#d1242f;margin:0;font-weight:600}
.spinner{width:28px;height:28px;border:3px solid #d0d7de;border-top-color:#0969da;border-radius:50%;
animation:spin 1s linear infinite}@keyframes spin{to{transform:rotate(360deg)}}
.checking{display:flex;align-items:center;gap:14px;margin:20px 0}
footer{margin-top:48px;padding-top:12px;border-top:1px solid #d0d7de;color:#59636e;font-size:13px}
"""


def document(title: str, host: str, body: str, script: str = "", reference: str = "") -> str:
    ray = f"<span>Reference: {html.escape(reference)}</span> · " if reference else ""
    return (
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        f"<meta name=\"robots\" content=\"noindex, nofollow\"><title>{html.escape(title)}</title>"
        f"<style>{STYLE}</style></head><body><main>"
        f"<p class=\"host\">{html.escape(host)}</p>{body}"
        f"<footer>{ray}Security check for {html.escape(host)}</footer>"
        f"</main>{f'<script>{script}</script>' if script else ''}</body></html>"
    )


@dataclass
class Challenge:
    number: int         # of the fault's challenges in this episode, from 1
    mode: str
    word: str | None
    back: str           # the address first asked for (path and query), asked for again once passed
    shown_ms: float     # episode time it was first shown


@dataclass
class HostCheck:
    """One host's check in one episode (for one armed fault)."""

    challenge: Challenge | None = None
    passes: int = 0
    admit: str | None = None  # the address the browser is sent back to after a pass: it goes through once


@dataclass
class Checks:
    hosts: dict[str, HostCheck] = field(default_factory=dict)
    issued: int = 0
    now_ms: float = 0.0  # the episode time of the flow at hand (from `observe`)


def checks_of(armed: ArmedFault) -> Checks:
    found: Checks = state_of(armed).setdefault("checks", Checks())
    return found


@register
class HumanCheck(NetworkFault):
    name: ClassVar[str] = "human_check"
    primitive: ClassVar[Primitive] = Primitive.planning
    description: ClassVar[str] = (
        "Answer a page load with a 'Verify you are human' page until it is solved on the page: mode checkbox "
        "(tick 'I am not a robot', wait wait_ms for Continue), word (type the word the page shows) or slider "
        "(slide to the end, End key works); each asks for steps the plan does not have (planning). Solved, the "
        "host is verified for the episode and the page asked for loads; a wrong word gets a new challenge."
    )

    mode: Literal["checkbox", "word", "slider"] = Field(default="checkbox", description="the challenge asked")
    wait_ms: int = Field(default=2000, ge=0, le=60_000,
                         description="checkbox: how long Continue stays disabled after the box is ticked")
    times: int = Field(default=1, ge=1, le=20,
                       description="challenges a host asks in the episode (the next after each pass)")

    def observe(self, flow: http.HTTPFlow, armed: ArmedFault, hook: HookPoint, now_ms: float) -> None:
        checks_of(armed).now_ms = now_ms

    def in_effect(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        if answered_challenge(flow) is not None:
            return True
        host = checks_of(armed).hosts.get(host_of(flow))
        return page_load(flow) and host is not None and host.challenge is not None

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        if not page_load(flow):
            return False
        host = checks_of(armed).hosts.setdefault(host_of(flow), HostCheck())
        if host.admit is not None and host.admit == flow.request.path:
            host.admit = None  # the page asked for before the check: it goes through, once
            return False
        return host.passes < self.times

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        checks = checks_of(armed)
        host = checks.hosts.setdefault(host_of(flow), HostCheck())
        pending = host.challenge
        number = answered_challenge(flow)
        if number is None:
            if pending is not None:
                return {"note": "shown again", "challenge": pending.number}
            return {"mode": self.mode, "challenge": checks.issued + 1, **self._word(armed)}
        if pending is None or number != str(pending.number):
            return {"note": "stale answer", "answered": number[:20]}
        if self._solved(flow, pending, checks.now_ms):
            return {"note": "passed", "challenge": pending.number}
        return {"note": "wrong answer", "challenge": pending.number, "next": checks.issued + 1, **self._word(armed)}

    def _word(self, armed: ArmedFault) -> dict[str, Any]:
        return {"word": armed.rng.choice(WORDS)} if self.mode == "word" else {}

    def _solved(self, flow: http.HTTPFlow, challenge: Challenge, now_ms: float) -> bool:
        if challenge.mode == "checkbox":
            return form_field(flow, "confirm") == "human" and now_ms - challenge.shown_ms >= self.wait_ms
        if challenge.mode == "word":
            return form_field(flow, "answer").strip().casefold() == (challenge.word or "").casefold()
        return form_field(flow, "position").strip() == str(SLIDER_END)

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        checks = checks_of(armed)
        host = checks.hosts.setdefault(host_of(flow), HostCheck())
        note = ctx.detail.get("note")
        error = None
        if note == "passed":
            assert host.challenge is not None
            back, host.challenge = host.challenge.back, None
            host.passes += 1
            host.admit = back
            answer(flow, 303, b"", {"location": back})
            return
        if note == "stale answer":
            back = host.challenge.back if host.challenge is not None else urlsplit(flow.request.path).path or "/"
            answer(flow, 303, b"", {"location": back})
            return
        if note == "shown again" and host.challenge is not None:
            host.challenge.back = flow.request.path  # the page wanted now: where a pass sends the agent
        if note is None or note == "wrong answer":
            back = host.challenge.back if host.challenge is not None else flow.request.path
            checks.issued += 1
            host.challenge = Challenge(checks.issued, self.mode, ctx.detail.get("word"), back, ctx.now_ms)
            if note == "wrong answer":
                error = ("That was not the word shown. Please try this one." if self.mode == "word"
                         else "We could not verify you. Please try again.")
        assert host.challenge is not None
        page = self.page(host_of(flow), host.challenge, error)
        answer(flow, 403, with_recorders(page, ctx.episode), HTML_TYPE)

    def page(self, host: str, challenge: Challenge, error: str | None) -> str:
        """The challenge page: its form asks the page's own address again, with the proxy's key."""
        action = html.escape(urlsplit(challenge.back).path or "/")
        parts = ["<h1>Verify you are human</h1>",
                 f"<p class=\"lead\">{html.escape(host)} needs to check that you are a person before you "
                 "continue. Complete the action below.</p>"]
        form = [f"<form class=\"box\" method=\"get\" action=\"{action}\" aria-label=\"Human check\">",
                f"<input type=\"hidden\" name=\"{CHECK_KEY}\" value=\"{challenge.number}\">"]
        if error:
            form.append(f"<p class=\"error\" role=\"alert\">{html.escape(error)}</p>")
        script = ""
        if challenge.mode == "checkbox":
            form += ["<label class=\"tick\"><input type=\"checkbox\" name=\"confirm\" value=\"human\" "
                     "data-check> I am not a robot</label>",
                     "<p class=\"status\" role=\"status\" data-status></p>",
                     "<button type=\"submit\" disabled data-continue>Continue</button>"]
            script = _CHECKBOX_JS.replace("WAIT_MS", str(self.wait_ms))
        elif challenge.mode == "word":
            word = html.escape(challenge.word or "")
            form += [f"<p class=\"prompt\" id=\"wc-prompt\">Type the word shown: <strong>{word}</strong></p>",
                     "<label for=\"wc-answer\">Word</label>",
                     "<input type=\"text\" id=\"wc-answer\" name=\"answer\" autocomplete=\"off\" "
                     "autocapitalize=\"off\" spellcheck=\"false\" aria-describedby=\"wc-prompt\">",
                     "<button type=\"submit\">Continue</button>"]
        else:
            form += ["<label for=\"wc-slider\">Slide to verify</label>",
                     f"<input type=\"range\" id=\"wc-slider\" name=\"position\" min=\"0\" max=\"{SLIDER_END}\" "
                     "step=\"1\" value=\"0\" data-slider>",
                     "<p class=\"status\" role=\"status\" data-status>Move the slider all the way to the right.</p>",
                     "<button type=\"submit\" disabled data-continue>Continue</button>"]
            script = _SLIDER_JS
        parts.append("".join(form) + "</form>")
        return document("Verify you are human", host, "".join(parts), script, f"{challenge.number:04d}")


_CHECKBOX_JS = """(function(){var box=document.querySelector('[data-check]'),go=document.querySelector(
'[data-continue]'),status=document.querySelector('[data-status]'),timer=null;box.addEventListener('change',
function(){clearTimeout(timer);go.disabled=true;if(!box.checked){status.textContent='';return;}
status.textContent='Verifying\\u2026';timer=setTimeout(function(){go.disabled=false;
status.textContent='Verified. Press Continue.';},WAIT_MS);});})();"""

_SLIDER_JS = """(function(){var s=document.querySelector('[data-slider]'),go=document.querySelector(
'[data-continue]'),status=document.querySelector('[data-status]');function seen(){var done=
Number(s.value)>=Number(s.max);go.disabled=!done;status.textContent=done?'Done. Press Continue.':
'Move the slider all the way to the right.';}s.addEventListener('input',seen);s.addEventListener('change',
seen);})();"""


@dataclass
class Wall:
    number: int
    shown_ms: float


@dataclass
class HostWall:
    wall: Wall | None = None
    passes: int = 0


@dataclass
class Walls:
    hosts: dict[str, HostWall] = field(default_factory=dict)
    shown: int = 0
    now_ms: float = 0.0


def walls_of(armed: ArmedFault) -> Walls:
    found: Walls = state_of(armed).setdefault("walls", Walls())
    return found


@register
class BotWall(NetworkFault):
    name: ClassVar[str] = "bot_wall"
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = (
        "Answer a page load with a 'Checking your browser…' page (503) for wait_ms from when it is first "
        "shown; the page then reloads itself and that load goes through. Page loads on the host before then "
        "get the wall again: an agent that goes elsewhere or gives up fails."
    )

    wait_ms: int = Field(default=5000, ge=0, le=120_000, description="how long the wall stands once shown")
    times: int = Field(default=1, ge=1, le=20, description="walls a host puts up in the episode")

    def observe(self, flow: http.HTTPFlow, armed: ArmedFault, hook: HookPoint, now_ms: float) -> None:
        walls_of(armed).now_ms = now_ms

    def in_effect(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        host = walls_of(armed).hosts.get(host_of(flow))
        return page_load(flow) and host is not None and host.wall is not None

    def eligible(self, flow: http.HTTPFlow, armed: ArmedFault, now_ms: float) -> bool:
        host = walls_of(armed).hosts.get(host_of(flow))
        return page_load(flow) and (host is None or host.passes < self.times)

    def draw(self, flow: http.HTTPFlow, armed: ArmedFault) -> dict[str, Any]:
        walls = walls_of(armed)
        host = walls.hosts.get(host_of(flow))
        if host is None or host.wall is None:
            return {"wait_ms": self.wait_ms, "wall": walls.shown + 1}
        if walls.now_ms - host.wall.shown_ms >= self.wait_ms:
            return {"note": "passed", "wall": host.wall.number}
        return {"note": "shown again", "wall": host.wall.number}

    async def apply(self, flow: http.HTTPFlow, armed: ArmedFault, ctx: FaultContext) -> None:
        walls = walls_of(armed)
        host = walls.hosts.setdefault(host_of(flow), HostWall())
        note = ctx.detail.get("note")
        if note == "passed":
            host.wall = None
            host.passes += 1
            return  # the load goes on to the site
        if host.wall is None:
            walls.shown += 1
            host.wall = Wall(walls.shown, ctx.now_ms)
        left_ms = max(0, round(self.wait_ms - (ctx.now_ms - host.wall.shown_ms)))
        page = self.page(host_of(flow), host.wall, left_ms)
        answer(flow, 503, with_recorders(page, ctx.episode), {**HTML_TYPE, "retry-after": str(-(-left_ms // 1000))})

    def page(self, host: str, wall: Wall, left_ms: int) -> str:
        body = ("<h1>Checking your browser before accessing " + html.escape(host) + "</h1>"
                "<div class=\"checking\" role=\"status\"><div class=\"spinner\" aria-hidden=\"true\"></div>"
                "<span>Checking your browser…</span></div>"
                "<p class=\"lead\">This process is automatic. Your browser will redirect to your requested content "
                "shortly. Please allow up to a few seconds.</p>")
        # Reloads the page asked for once the wall has stood its time (the proxy counts from the first showing).
        script = f"setTimeout(function(){{location.reload();}},{json.dumps(left_ms + 50)});"
        return document("Just a moment…", host, body, script, f"{wall.number:04d}")

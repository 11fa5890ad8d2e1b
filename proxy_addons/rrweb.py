"""Page recording with rrweb: where the npm bundles are, and the endpoint that stores recordings.

rrweb (https://github.com/rrweb-io/rrweb) is a pinned npm dependency in `third_party/rrweb/`
(`package.json` + `package-lock.json`), installed by `make rrweb` (`npm ci`; `make install`,
`make test` and `make demo` run it). Nothing is committed from it and nothing is loaded from a
CDN: the proxy serves the record bundle (`@rrweb/record`, UMD, ~77 KB) itself at
`GET /__webchaos/rrweb-record.js?v=<digest>` (immutable, so the browser fetches it once per episode;
kept out of the HAR like every other endpoint here), the client script it injects loads it once the
page has loaded, and `webchaos replay` inlines rrweb-player's JS and CSS into `replay.html`. Without
the bundles (npm missing, `make rrweb` not run) recording is off, with one warning, and
everything else works as before. `WEBCHAOS_RRWEB_DIR` points at another `node_modules` folder.

The served script defines no global: it leaves rrweb's exports on its own `<script>` element
(`webchaosRecord`), where the injected script, which created that element, picks them up and then
removes the element.

`POST /__webchaos/rrweb` on any site host of an episode listener is answered here and never
forwarded (nor kept for the HAR: it is the recorder's traffic, not the agent's). Body (identity
encoding only, size capped by the guard's `webchaos_max_request_body`)::

    {"rec": 3, "events": [{"type": 2, "timestamp": 1764560000123, "data": {...}}, ...]}

`rec` is the page load's recording number, given by the proxy when it injects the script
(1, 2, ... per episode); `events` are rrweb events, each an object with an integer `type` and a
numeric `timestamp` (ms since the epoch, the browser's clock). Each event becomes one line of
`<out_dir>/rrweb.jsonl`::

    {"rec": 3, "event": {...}}

after a first line `{"webchaos_rrweb": 1, "opened_epoch_ms": ..., "cap_bytes": ...}` (the
episode's opening on the epoch clock, so a replay can put rrweb time and the ledger's `t_ms`
on one axis). Answers: 204 stored; 400 a bad batch; 404 no open episode that records;
405 not POST; 415 a Content-Encoding; 413 once the episode's file would pass
`webchaos_rrweb_max_bytes` (the batch is dropped, one line `{"truncated": true, ...}` is
written, and every later batch of the episode gets 413 too: the client script then stops
recording).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from mitmproxy import ctx, http
from mitmproxy.addonmanager import Loader

from proxy_addons.episodes import Episodes, ProxyEpisode
from proxy_addons.guard import RRWEB_PATH, RRWEB_SCRIPT_PATH, content_encoding, normalized_path
from proxy_addons.ledger import marks

logger = logging.getLogger(__name__)

RRWEB_FILE = "rrweb.jsonl"
MAX_RRWEB_BYTES = 8 * 1024 * 1024
MAX_EVENTS_PER_BATCH = 20_000
NPM_DIR = Path(__file__).resolve().parent.parent / "third_party" / "rrweb"
RECORD_BUNDLE = "@rrweb/record/dist/record.umd.min.cjs"
PLAYER_JS = "rrweb-player/dist/rrweb-player.umd.min.cjs"
PLAYER_CSS = "rrweb-player/dist/style.min.css"
_TEXT = {"content-type": "text/plain; charset=utf-8"}


def modules_dir() -> Path:
    override = os.environ.get("WEBCHAOS_RRWEB_DIR")
    return Path(override) if override else NPM_DIR / "node_modules"


def _bundle(relative: str) -> str | None:
    path = modules_dir() / relative
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    # The source map comment would make devtools look for a file that is not served.
    return "\n".join(line for line in text.splitlines() if not line.startswith("//# sourceMappingURL="))


@cache
def record_script() -> tuple[bytes, str] | None:
    """The script served at RRWEB_SCRIPT_PATH and its URL (versioned by digest), or None when rrweb is
    not installed (warned once)."""
    text = _bundle(RECORD_BUNDLE)
    if text is None:
        logger.warning(f"webchaos: rrweb is not installed ({modules_dir() / RECORD_BUNDLE} missing or unusable): "
                       "page recording for replay is off. Install Node.js with npm, then run `make rrweb`.")
        return None
    # A UMD bundle: run it with `this` = a holder and no CommonJS/AMD names in sight, so it defines
    # no global and never touches the page's own module loader; its exports go on its own element.
    body = ("(function () { var holder = {}; (function (exports, module, define) {\n" + text
            + "\n}).call(holder); var me = document.currentScript;"
            + " if (me) { me.webchaosRecord = holder.rrwebRecord || null; } })();\n").encode("utf-8")
    return body, f"{RRWEB_SCRIPT_PATH}?v={hashlib.sha256(body).hexdigest()[:16]}"


def record_script_url() -> str | None:
    """Where an injected page loads rrweb's recorder from (None: recording is off)."""
    script = record_script()
    return script[1] if script is not None else None


def player_assets() -> tuple[str, str] | None:
    """rrweb-player's JS (UMD, defines `rrwebPlayer`) and CSS, or None when not installed."""
    js, css = _bundle(PLAYER_JS), _bundle(PLAYER_CSS)
    if js is None or css is None:
        return None
    return js, css


def rrweb_version() -> str | None:
    try:
        return str(json.loads((modules_dir() / "@rrweb/record/package.json").read_text())["version"])
    except (OSError, ValueError, KeyError):
        return None


@dataclass
class RrwebFile:
    path: Path
    written: int
    cap: int
    truncated: bool = False


def _problem(batch: Any) -> str | None:
    if not isinstance(batch, dict) or set(batch) != {"rec", "events"}:
        return 'expected {"rec": n, "events": [...]}'
    rec, events = batch["rec"], batch["events"]
    if not isinstance(rec, int) or isinstance(rec, bool) or rec < 1:
        return "rec: not a positive integer"
    if not isinstance(events, list) or len(events) > MAX_EVENTS_PER_BATCH:
        return f"events: not a list of at most {MAX_EVENTS_PER_BATCH}"
    for i, event in enumerate(events):
        if not isinstance(event, dict):
            return f"events[{i}]: not an object"
        kind, stamp = event.get("type"), event.get("timestamp")
        if not isinstance(kind, int) or isinstance(kind, bool) or not 0 <= kind <= 10:
            return f"events[{i}].type: not an rrweb event type"
        if not isinstance(stamp, int | float) or isinstance(stamp, bool) or not stamp > 0:
            return f"events[{i}].timestamp: not a positive number"
    return None


class RrwebRecorder:
    """Answers `POST /__webchaos/rrweb` and appends each episode's recording to its rrweb.jsonl."""

    def __init__(self, episodes: Episodes) -> None:
        self.episodes = episodes
        self.files: dict[str, RrwebFile] = {}
        self.cap = MAX_RRWEB_BYTES

    def load(self, loader: Loader) -> None:
        loader.add_option(
            "webchaos_rrweb_max_bytes", int, MAX_RRWEB_BYTES,
            "Largest rrweb.jsonl (page recording for replay) per episode, in bytes; past it the recording "
            "is cut, marked truncated, and the page's recorder stops.",
        )

    def configure(self, updated: set[str]) -> None:
        if "webchaos_rrweb_max_bytes" in updated:
            self.cap = max(1, int(ctx.options.webchaos_rrweb_max_bytes))

    def _file(self, episode: ProxyEpisode) -> RrwebFile:
        current = self.files.get(episode.id)
        path = episode.out_dir / RRWEB_FILE
        if current is None or current.path != path:
            for gone in [i for i in self.files if i not in self.episodes.by_id]:
                del self.files[gone]  # closed episodes
            opened_epoch_ms = (time.time() - (time.monotonic() - episode.opened_at)) * 1000
            head = json.dumps({"webchaos_rrweb": 1, "opened_epoch_ms": round(opened_epoch_ms, 1),
                               "cap_bytes": self.cap, "rrweb": rrweb_version()}) + "\n"
            path.write_text(head, encoding="utf-8")
            current = self.files[episode.id] = RrwebFile(path, len(head.encode()), self.cap)
        return current

    def request(self, flow: http.HTTPFlow) -> None:
        if flow.response:
            return
        m = marks(flow)
        where = normalized_path(flow.request.path)
        if "site" not in m or where not in (RRWEB_PATH, RRWEB_SCRIPT_PATH):
            return
        m["local"] = True
        episode = self.episodes.get(m.get("episode", ""))
        if episode is None or not episode.record_replay:
            flow.response = http.Response.make(404, "webchaos: no page recording here\n", _TEXT)
            return
        if where == RRWEB_SCRIPT_PATH:
            self._serve_script(flow)
            return
        if flow.request.method != "POST":
            flow.response = http.Response.make(405, "webchaos: POST only\n", {**_TEXT, "allow": "POST"})
            return
        encoding = content_encoding(flow.request)
        if encoding is not None:
            flow.response = http.Response.make(
                415, f"webchaos: Content-Encoding {encoding!r} not accepted, send identity\n", _TEXT)
            return
        try:
            batch = json.loads(flow.request.raw_content or b"")
        except ValueError:
            batch = None
        problem = _problem(batch)
        if problem is None and batch["rec"] > episode.replay_pages:
            problem = "rec: no such recording"
        if problem is not None:
            flow.response = http.Response.make(400, f"webchaos: bad rrweb batch ({problem})\n", _TEXT)
            return
        self._store(episode, flow, batch["rec"], batch["events"])

    @staticmethod
    def _serve_script(flow: http.HTTPFlow) -> None:
        script = record_script()
        if script is None:
            flow.response = http.Response.make(404, "webchaos: rrweb is not installed\n", _TEXT)
        elif flow.request.method not in ("GET", "HEAD"):
            flow.response = http.Response.make(405, "webchaos: GET only\n", {**_TEXT, "allow": "GET, HEAD"})
        else:
            # The URL carries the script's digest, so a cached copy is never stale.
            flow.response = http.Response.make(200, script[0] if flow.request.method == "GET" else b"", {
                "content-type": "text/javascript; charset=utf-8",
                "cache-control": "public, max-age=31536000, immutable"})

    def _store(self, episode: ProxyEpisode, flow: http.HTTPFlow, rec: int, events: list[dict[str, Any]]) -> None:
        log = self._file(episode)
        if log.truncated:
            flow.response = http.Response.make(413, "webchaos: recording is full\n", _TEXT)
            return
        text = "".join(json.dumps({"rec": rec, "event": e}, separators=(",", ":")) + "\n" for e in events)
        data = text.encode("utf-8")
        if log.written + len(data) > log.cap:
            log.truncated = True
            marker = json.dumps({"rec": rec, "truncated": True, "t_ms": round(episode.elapsed_ms(), 1),
                                 "written_bytes": log.written, "cap_bytes": log.cap,
                                 "dropped_events": len(events)}) + "\n"
            with log.path.open("a", encoding="utf-8") as handle:
                handle.write(marker)
            log.written += len(marker.encode())
            logger.info(f"webchaos: episode {episode.id}: rrweb recording reached {log.cap} bytes, cut")
            flow.response = http.Response.make(413, "webchaos: recording is full\n", _TEXT)
            return
        with log.path.open("ab") as handle:
            handle.write(data)
        log.written += len(data)
        flow.response = http.Response.make(204, b"", {"cache-control": "no-store"})

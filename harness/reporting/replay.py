"""An episode as one page you can watch: runs/<id>/episodes/<episode>/replay.html.

Self-contained and offline: rrweb-player's JS and CSS (from the pinned npm package in
`third_party/rrweb/`, see proxy_addons/rrweb.py) are inlined, and so is the data — the rrweb
recording (`rrweb.jsonl`), the GUI actions (`actions.jsonl`), the semantic events
(`events.jsonl`), the requests of the HAR (`trace.har`: method, URL, status, time; no bodies),
every ledger line that is a fault firing (`faults.jsonl`) and the verdict (`result.json`).

One time axis: milliseconds since the episode opened (the ledger's and the actions' `t_ms`).
The recording's header line gives the episode's opening on the epoch clock, so an rrweb
timestamp `ts` sits at `ts - opened_epoch_ms`; HAR entries are placed by `startedDateTime` the
same way. Semantic events carry only the site's seeded clock, so each is placed at the request
that most plausibly caused it (the first later page or API request naming its target, or the
first later write for a commit) and marked approximate.

Several page loads are several rrweb recordings (`rec`). The player plays one chain of them in
time order; a recording that starts while the previous one is still going (another tab, a
popup) is left out of the player and named in the page; a page being left may log events up
to NAVIGATION_OVERLAP_MS after the next one began, and those are cut. Events before the first recording
seek to its start; a recording cut at `webchaos_rrweb_max_bytes` says so.
"""

from __future__ import annotations

import functools
import json
import logging
import os
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from proxy_addons.rrweb import RRWEB_FILE, player_assets
from scenarios.ledger import is_firing

log = logging.getLogger(__name__)
TEMPLATES = Path(__file__).parent / "templates"
REPLAY_NAME = "replay.html"
MAX_REQUESTS = 2000
NAVIGATION_OVERLAP_MS = 2000  # a recording may outlive the next page's start by this much (unload events)
_ASSET_SUFFIXES = (".css", ".js", ".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".ico", ".woff", ".woff2")


class ReplayError(RuntimeError):
    pass


def _jsonl(path: Path) -> list[dict[str, Any]]:
    lines: list[dict[str, Any]] = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return lines
    for raw in text.splitlines():
        try:
            value = json.loads(raw)
        except ValueError:
            continue  # a line cut by a crash: the rest is still worth showing
        if isinstance(value, dict):
            lines.append(value)
    return lines


def _json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def _recordings(lines: list[dict[str, Any]]) -> dict[str, Any]:
    """The rrweb file as: opened_epoch_ms, the chain of recordings the player plays, the rest."""
    head = lines[0] if lines and "webchaos_rrweb" in lines[0] else {}
    by_rec: dict[int, list[dict[str, Any]]] = {}
    truncated = None
    for line in lines:
        if line.get("truncated"):
            truncated = line
        elif isinstance(line.get("rec"), int) and isinstance(line.get("event"), dict):
            by_rec.setdefault(line["rec"], []).append(line["event"])
    spans = []
    for rec, events in by_rec.items():
        events.sort(key=lambda e: e.get("timestamp", 0))
        if any(e.get("type") == 2 for e in events):  # a full snapshot: something to show
            spans.append((events[0]["timestamp"], events[-1]["timestamp"], rec, events))
    spans.sort()
    chain: list[dict[str, Any]] = []
    skipped = []
    end = float("-inf")
    for start, stop, rec, events in spans:
        if start < end - NAVIGATION_OVERLAP_MS:  # the previous page goes on: this one is in another tab
            skipped.append(rec)
            continue
        # A page that is being left may still report a few events after the next one began: cut them.
        while chain and chain[-1]["timestamp"] > start:
            chain.pop()
        chain.extend(events)
        end = stop
    return {"opened_epoch_ms": head.get("opened_epoch_ms"), "events": chain, "skipped": skipped,
            "recordings": len(spans), "truncated": truncated, "rrweb": head.get("rrweb")}


def _epoch_ms(text: str | None) -> float | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000
    except ValueError:
        return None


def _requests(har: dict[str, Any], opened_epoch_ms: float | None) -> list[dict[str, Any]]:
    entries = har.get("log", {}).get("entries", []) if isinstance(har.get("log"), dict) else []
    out = []
    for entry in entries[:MAX_REQUESTS]:
        request, response = entry.get("request", {}), entry.get("response", {})
        started = _epoch_ms(entry.get("startedDateTime"))
        if started is None or opened_epoch_ms is None:
            continue
        url = str(request.get("url", ""))
        parts = urlsplit(url)
        path = parts.path + ("?" + parts.query if parts.query else "")
        out.append({
            "t_ms": round(started - opened_epoch_ms, 1), "method": request.get("method", "?"),
            "host": parts.hostname or "", "path": path[:300], "status": response.get("status"),
            "ms": round(float(entry.get("time") or 0), 1),
            "asset": parts.path.lower().endswith(_ASSET_SUFFIXES),
            "faults": [f.get("fault_id") or f.get("type") for f in entry.get("_webchaos", []) if isinstance(f, dict)],
        })
    return out


def _place_events(events: list[dict[str, Any]], requests: list[dict[str, Any]]) -> None:
    """Give each semantic event a t_ms: the request that most plausibly caused it (in order)."""
    pages = [r for r in requests if not r["asset"] and not r["path"].startswith("/__webchaos")]
    cursor = 0
    last_t = 0.0
    for event in events:
        target = str(event.get("target") or "")
        commit = event.get("kind") == "commit"
        found = None
        for i in range(cursor, len(pages)):
            r = pages[i]
            if commit and r["method"] != "GET":
                found = i
                break
            if not commit and r["method"] == "GET" and target and target in r["path"]:
                found = i
                break
        if found is None and not commit:  # no request names it: the next page or API read
            found = next((i for i in range(cursor, len(pages)) if pages[i]["method"] == "GET"), None)
        if found is not None:
            last_t = pages[found]["t_ms"]
            cursor = found + 1
        event["t_ms"] = last_t
        event["approx"] = True


def _firings(ledger: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line for line in ledger if is_firing(line)]


def replay_data(episode_dir: Path) -> dict[str, Any]:
    """Everything replay.html shows, as plain JSON-able data."""
    meta = _json(episode_dir / "episode.json")
    result = _json(episode_dir / "result.json")
    recording = _recordings(_jsonl(episode_dir / RRWEB_FILE))
    opened = recording["opened_epoch_ms"]
    har = _json(episode_dir / "trace.har")
    if opened is None:  # no recording: put t=0 at the first request
        starts = [s for s in (_epoch_ms(e.get("startedDateTime")) for e in
                              har.get("log", {}).get("entries", [])) if s is not None] if har else []
        opened = min(starts) if starts else None
    requests = _requests(har, opened)
    events = _jsonl(episode_dir / "events.jsonl")
    _place_events(events, requests)
    verdict = result.get("verdict") or {}
    failed = [c for c in [*verdict.get("checks", []), *verdict.get("negative_checks", [])] if not c.get("passed")]
    process = verdict.get("process") or {}
    return {
        "episode_id": meta.get("episode_id") or episode_dir.name,
        "task_id": meta.get("task_id"), "variant_id": meta.get("variant_id"), "seed": meta.get("seed"),
        "instruction": meta.get("instruction") or result.get("instruction"),
        "agent": result.get("agent"), "success": result.get("success"), "score": result.get("score"),
        "status": (result.get("outcome") or {}).get("status"), "error": result.get("error"),
        "failed_checks": failed, "failures": verdict.get("failures", []), "answer": verdict.get("answer"),
        "first_wrong_step": process.get("first_wrong_step"),
        "opened_epoch_ms": opened, "rrweb": recording,
        "actions": _jsonl(episode_dir / "actions.jsonl"),
        "events": events, "requests": requests,
        "firings": _firings(_jsonl(episode_dir / "faults.jsonl")),
    }


def _script_json(value: Any) -> str:
    """JSON safe inside a <script> element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026") \
        .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


@functools.cache
def _template() -> Template:
    """Compiled once per process: a run writes a replay page after every episode."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      trim_blocks=True, lstrip_blocks=True)
    return env.get_template("replay.html.j2")


def render_replay(episode_dir: Path) -> str:
    data = replay_data(episode_dir)
    assets = player_assets()
    js, css = assets if assets is not None else ("", "")
    if "</script" in js.lower() or "</style" in css.lower():
        raise ReplayError("the rrweb-player bundle cannot be inlined (it contains a closing tag)")
    return _template().render(
        d=data, data_json=_script_json(data), player_js=js, player_css=css, have_player=assets is not None)


def write_replay(episode_dir: Path) -> Path:
    """Write <episode_dir>/replay.html (via a temp file and rename); returns its path."""
    if not (episode_dir / "episode.json").is_file():
        raise ReplayError(f"{episode_dir} is not an episode folder (no episode.json)")
    text = render_replay(episode_dir)
    path = episode_dir / REPLAY_NAME
    tmp = path.with_suffix(".html.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return path


def write_replay_quietly(episode_dir: Path) -> Path | None:
    """`write_replay`, logging instead of raising: a replay page must never cost a run its results."""
    if not (episode_dir / "episode.json").is_file():
        return None  # the episode never opened
    try:
        return write_replay(episode_dir)
    except Exception:
        log.exception("could not write %s", episode_dir / REPLAY_NAME)
        return None

"""What an episode folder holds besides the states, loaded the same way online and offline.

Online grading (harness/episodes/manager.py) and `webchaos grade <dir>` both call
`load_trace(dir)`, so the verdict is computed from the same bytes either way.
"""

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

EVENTS_FILE = "events.jsonl"
LEDGER_FILE = "faults.jsonl"
ACTIONS_FILE = "actions.jsonl"
HAR_FILE = "trace.har"


@dataclass
class HarEntry:
    start_ms: float  # wall clock, ms since the epoch
    duration_ms: float
    method: str
    path: str
    status: int
    marks: list[dict[str, Any]] = field(default_factory=list)  # the entry's `_webchaos` list


@dataclass
class EpisodeTrace:
    events: list[dict[str, Any]] = field(default_factory=list)
    ledger: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] | None = None  # None: no actions.jsonl recorded
    attempts: int | None = None  # the agent's own count, the fallback for GUI steps
    har: list[HarEntry] | None = None  # loaded only when the ledger has lines


def _jsonl(path: Path) -> list[dict[str, Any]] | None:
    try:
        text = path.read_text()
    except OSError:
        return None
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line:
            try:
                item = json.loads(line)
            except json.JSONDecodeError:
                continue  # a line cut short by a killed run
            if isinstance(item, dict):
                out.append(item)
    return out


def _har(path: Path) -> list[HarEntry] | None:
    try:
        raw = json.loads(path.read_bytes())
    except (OSError, json.JSONDecodeError):
        return None
    entries = []
    for e in raw.get("log", {}).get("entries", []):
        try:
            start = datetime.fromisoformat(e["startedDateTime"]).timestamp() * 1000
            path_part = urlsplit(e["request"]["url"]).path or "/"
            entries.append(HarEntry(start, float(e.get("time") or 0.0), e["request"]["method"], path_part,
                                    int(e["response"]["status"]), list(e.get("_webchaos") or [])))
        except (KeyError, TypeError, ValueError):
            continue
    return entries


def load_trace(episode_dir: Path, attempts: int | None = None) -> EpisodeTrace:
    """Events, ledger, actions and (if faults fired) the HAR of an episode folder; missing files are empty."""
    ledger = _jsonl(episode_dir / LEDGER_FILE) or []
    if attempts is None:
        try:
            result = json.loads((episode_dir / "result.json").read_bytes())
            attempts = int(result["outcome"]["attempts"])
        except (OSError, ValueError, KeyError, TypeError):
            attempts = None
    return EpisodeTrace(
        events=_jsonl(episode_dir / EVENTS_FILE) or [],
        ledger=ledger,
        actions=_jsonl(episode_dir / ACTIONS_FILE),
        attempts=attempts,
        har=_har(episode_dir / HAR_FILE) if ledger else None,
    )

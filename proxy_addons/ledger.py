"""The fault ledger: one append-only `faults.jsonl` per episode, written as things happen.

Each line is one JSON object::

    {"seq": 1, "t_ms": 12.3, "layer": "network", "type": "latency", "fault_id": "latency#0",
     "flow_id": "...", "request": {"method": "POST", "host": "<site>.test", "path": "/api/…"},
     "detail": {"delay_ms": 600}}

Lines are flushed one by one, so an interrupted run keeps everything written so far.
Apart from `t_ms` and `flow_id` the content is deterministic for a given seed and
sequence of requests. Every line that concerns a flow is also appended to the flow's
`flow.metadata["webchaos"]["faults"]`, from where the recorder copies it into the HAR.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any

from mitmproxy import http

from scenarios.ledger import is_firing, make_line

LEDGER_FILE = "faults.jsonl"


def marks(flow: http.HTTPFlow) -> dict[str, Any]:
    """The flow's webchaos metadata dict (created on first use)."""
    return flow.metadata.setdefault("webchaos", {})


def request_summary(flow: http.HTTPFlow) -> dict[str, str]:
    """Method, site host (as the agent asked for it) and path (query excluded) of a flow."""
    req = flow.request
    host = marks(flow).get("site") or req.pretty_host
    return {"method": req.method, "host": host, "path": req.path.split("?", 1)[0]}


class Ledger:
    def __init__(self, path: Path, opened_at: float | None = None) -> None:
        self.path = path
        self.opened_at = time.monotonic() if opened_at is None else opened_at
        self.seq = 0
        self.firings = 0  # lines that are firings (scenarios.ledger.is_firing)
        self._file: IO[str] | None = path.open("w", encoding="utf-8", buffering=1)

    @property
    def closed(self) -> bool:
        return self._file is None

    def write(self, layer: str, type: str, *, flow: http.HTTPFlow | None = None,
              fault_id: str | None = None, detail: dict[str, Any] | None = None,
              request: dict[str, str] | None = None) -> dict[str, Any]:
        """Append one line; also mark the flow. Lines after `close()` are dropped (not raised)."""
        self.seq += 1
        line = make_line(self.seq, self.opened_at, layer, type, fault_id=fault_id,
                         flow_id=flow.id if flow is not None else None,
                         request=request if request is not None else (request_summary(flow) if flow else None),
                         detail=detail)
        if is_firing(line):
            self.firings += 1
        if flow is not None:
            marks(flow).setdefault("faults", []).append(
                {"fault_id": fault_id, "layer": layer, "type": type, "detail": line["detail"]}
            )
        if self._file is not None:
            self._file.write(json.dumps(line, sort_keys=False, separators=(",", ":")) + "\n")
            self._file.flush()
        return line

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

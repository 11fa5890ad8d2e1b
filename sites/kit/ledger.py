"""The sites server's half of an episode's fault ledger: seed- and server-layer lines.

Same line format as the proxy's (`proxy_addons/ledger.py`)::

    {"seq": 1, "t_ms": 0.0, "layer": "server", "type": "write_fails_after_commit",
     "fault_id": "write_fails_after_commit#0", "flow_id": null,
     "request": {"method": "POST", "host": "shop.test", "path": "/api/cart"}, "detail": {...}}

Lines are kept in memory with the episode and served by the oracle
(`GET /episodes/{id}/ledger`); the harness appends them to `faults.jsonl` when the
episode closes, continuing the proxy's `seq`. `t_ms` counts from the episode's creation.
"""

import time
from typing import Any


class SiteLedger:
    def __init__(self, opened_at: float | None = None) -> None:
        self.opened_at = time.monotonic() if opened_at is None else opened_at
        self.lines: list[dict[str, Any]] = []

    def write(self, layer: str, type: str, *, fault_id: str | None = None,
              request: dict[str, str] | None = None, detail: dict[str, Any] | None = None) -> dict[str, Any]:
        line: dict[str, Any] = {
            "seq": len(self.lines) + 1,
            "t_ms": round((time.monotonic() - self.opened_at) * 1000, 1),
            "layer": layer,
            "type": type,
            "fault_id": fault_id,
            "flow_id": None,
            "request": request,
            "detail": dict(detail or {}),
        }
        self.lines.append(line)
        return line

    def firings(self) -> list[dict[str, Any]]:
        """Lines that are firings (not hook errors or notes such as a sign-in)."""
        return [line for line in self.lines if line["type"] != "hook_error" and not line["detail"].get("note")]

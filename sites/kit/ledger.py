"""The sites server's half of an episode's fault ledger: seed- and server-layer lines.

The line format and what counts as a firing are `scenarios.ledger`'s. Lines are kept in memory
with the episode and served by the oracle (`GET /episodes/{id}/ledger`); the harness appends them
to `faults.jsonl` when the episode closes, continuing the proxy's `seq`. `t_ms` counts from the
episode's creation.
"""

import time
from typing import Any

from scenarios.ledger import make_line


class SiteLedger:
    def __init__(self, opened_at: float | None = None) -> None:
        self.opened_at = time.monotonic() if opened_at is None else opened_at
        self.lines: list[dict[str, Any]] = []

    def write(self, layer: str, type: str, *, fault_id: str | None = None,
              request: dict[str, str] | None = None, detail: dict[str, Any] | None = None) -> dict[str, Any]:
        line = make_line(len(self.lines) + 1, self.opened_at, layer, type, fault_id=fault_id, flow_id=None,
                         request=request, detail=detail)
        self.lines.append(line)
        return line

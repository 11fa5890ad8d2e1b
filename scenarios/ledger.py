"""The fault ledger's line format and the one definition of a *firing*.

Every layer writes the same line (`faults.jsonl`, the proxy's and the sites' halves)::

    {"seq": 1, "t_ms": 12.3, "layer": "network", "type": "latency", "fault_id": "latency#0",
     "flow_id": "...", "request": {"method": "POST", "host": "<site host>", "path": "/api/…"},
     "detail": {"delay_ms": 600}}

Not every line is a firing: a fault armed, disarmed, triggered or spent (`detail.control`),
the guard's refusals, a hook that raised (`hook_error`), a note
(`detail.note`, e.g. the agent signed in again) and a client fault's lifecycle (`detail.event`
other than `fired`: injected, dismissed, restored, hit, target_missing) are context. The
ledgers' counts, the recorder, the grader's recoveries and the report all ask `is_firing`.

A server fault that creates records while the episode runs (new records arriving from others)
lists their ids under `detail.created_ids` (`CREATED_IDS`): they are the
world's doing, not the agent's, so the grader leaves them out of the state diff.
"""

import time
from collections.abc import Mapping
from typing import Any

GUARD_LAYER = "guard"
HOOK_ERROR = "hook_error"
CLIENT_FIRED = "fired"
CREATED_IDS = "created_ids"
# `detail.control` of the lines that say how a fault's life changed (never firings).
ARMED, DISARMED = "armed", "disarmed"


def is_firing(line: Mapping[str, Any]) -> bool:
    """Whether a ledger line records a fault doing what it does (as opposed to context)."""
    if line.get("layer") == GUARD_LAYER or line.get("type") == HOOK_ERROR:
        return False
    detail = line.get("detail") or {}
    if detail.get("note") or detail.get("control"):
        return False
    if line.get("layer") == "client":
        return bool(detail.get("event") == CLIENT_FIRED)
    return True


def count_firings(lines: list[dict[str, Any]]) -> int:
    return sum(1 for line in lines if is_firing(line))


def make_line(seq: int, opened_at: float, layer: str, type: str, *, fault_id: str | None,
              flow_id: str | None, request: dict[str, str] | None, detail: dict[str, Any] | None) -> dict[str, Any]:
    """One ledger line; `t_ms` counts from `opened_at` (time.monotonic) of the episode."""
    return {
        "seq": seq,
        "t_ms": round((time.monotonic() - opened_at) * 1000, 1),
        "layer": layer,
        "type": type,
        "fault_id": fault_id,
        "flow_id": flow_id,
        "request": request,
        "detail": dict(detail or {}),
    }


def fault_created_ids(lines: list[dict[str, Any]]) -> set[str]:
    """The ids of every record a fault created during the episode (see `CREATED_IDS`)."""
    return {str(i) for line in lines if is_firing(line)
            for i in (line.get("detail") or {}).get(CREATED_IDS, []) or []}

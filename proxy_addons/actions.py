"""The GUI action log of one episode, `<out_dir>/actions.jsonl`, from batches the injected recorder script
sends to `POST /__webchaos/actions` (answered by the recorder addon, recorder.py), one JSON object per line::

    {"seq": 3, "t_ms": 812.4, "kind": "click", "page": "/items/42",
     "target": {"role": "button", "name": "Save", "selector": "form > button", "tag": "button"},
     "x": 640, "y": 412, "button": 0}

`kind` is one of click, input, key, scroll, navigation, tab_open (see `ActionIn`);
`t_ms` is counted from the episode's opening, like the ledger's (the browser stamps
each action with its own clock, so batching does not blur the times). When the
episode closes the file is rewritten in time order with `seq` 1..n.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import IO, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

ACTIONS_FILE = "actions.jsonl"
MAX_ACTIONS_BYTES = 256 * 1024


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Target(_Action):
    role: str | None = Field(default=None, max_length=40)
    name: str | None = Field(default=None, max_length=300)
    selector: str | None = Field(default=None, max_length=1000)
    tag: str | None = Field(default=None, max_length=40)
    fault_id: str | None = Field(default=None, max_length=200)


class ActionIn(_Action):
    """One GUI action as the injected recorder sends it (`t`: ms since the epoch)."""

    kind: Literal["click", "input", "key", "scroll", "navigation", "tab_open"]
    t: float = Field(gt=0)
    page: str = Field(max_length=2000)
    target: Target | None = None
    x: int | None = None
    y: int | None = None
    button: int | None = None
    input_type: str | None = Field(default=None, max_length=40)
    value_length: int | None = Field(default=None, ge=0)
    value: str | None = Field(default=None, max_length=2000)
    key: str | None = Field(default=None, max_length=40)
    modifiers: list[str] | None = Field(default=None, max_length=4)
    dx: int | None = None
    dy: int | None = None
    url: str | None = Field(default=None, max_length=4000)
    nav_type: str | None = Field(default=None, max_length=40)
    referrer: str | None = Field(default=None, max_length=4000)
    frame: bool | None = None
    opener: bool | None = None


class ActionBatch(_Action):
    actions: list[ActionIn] = Field(max_length=1000)


class ActionLog:
    """`actions.jsonl` of one episode: appended as batches arrive, sorted by time on close."""

    def __init__(self, path: Path, opened_at_monotonic: float) -> None:
        self.path = path
        # The episode's opening on the wall clock, which the browser's stamps use too.
        self.opened_epoch_ms = (time.time() - (time.monotonic() - opened_at_monotonic)) * 1000
        self.lines: list[dict[str, Any]] = []
        self._file: IO[str] | None = path.open("w", encoding="utf-8", buffering=1)

    def add(self, actions: list[ActionIn]) -> list[dict[str, Any]]:
        """Append a batch; returns its lines."""
        first = len(self.lines)
        for action in actions:
            line: dict[str, Any] = {"seq": len(self.lines) + 1,
                                    "t_ms": round(action.t - self.opened_epoch_ms, 1)}
            line.update(action.model_dump(exclude={"t", "target"}, exclude_none=True))
            if action.kind in ("click", "input", "key", "scroll"):
                target = action.target.model_dump() if action.target is not None else None
                if target is not None and target["fault_id"] is None:
                    del target["fault_id"]
                line["target"] = target
            self.lines.append(line)
            if self._file is not None:
                self._file.write(json.dumps(line, separators=(",", ":")) + "\n")
        return self.lines[first:]

    def close(self) -> None:
        if self._file is None:
            return
        self._file.close()
        self._file = None
        ordered = sorted(self.lines, key=lambda line: line["t_ms"])  # stable: arrival order on ties
        for seq, line in enumerate(ordered, 1):
            line["seq"] = seq
        self.path.write_text("".join(json.dumps(line, separators=(",", ":")) + "\n" for line in ordered),
                             encoding="utf-8")

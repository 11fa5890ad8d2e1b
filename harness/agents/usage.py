"""What an agent spent on an episode, as it reports it: tokens in and out, dollars, the model.

Every field is optional: an agent reports what it knows. A field nobody reported stays None, and is
shown as "not reported", never as zero (zero tokens is a claim; an absent count is not).

A `cmd:` agent writes `usage.json` in its episode folder (`$WEBCHAOS_OUT_DIR/usage.json`, also given as
WEBCHAOS_USAGE_FILE); the Python API adds up `ep.report_usage(...)` calls; the Inspect integration reads
the model usage Inspect records for the sample.
"""

import json
import math
from pathlib import Path
from typing import Any

from pydantic import Field, StrictInt, ValidationError, field_validator

from scenarios.strict import Strict

USAGE_FILE = "usage.json"
"""In the episode folder: where a `cmd:` agent leaves what it spent (WEBCHAOS_USAGE_FILE)."""
MAX_USAGE_FILE_BYTES = 64 * 1024
_FIELD_EXPECTED = {"input_tokens": "a whole number >= 0", "output_tokens": "a whole number >= 0",
                   "cost_usd": "a number of US dollars >= 0", "model": "text of at most 200 characters"}
USAGE_FIELDS = tuple(_FIELD_EXPECTED)
_EXPECTED = "a JSON object with any of " + ", ".join(f'"{name}" ({what})' for name, what in _FIELD_EXPECTED.items())


class Usage(Strict):
    """Tokens and dollars an agent spent (None: not reported)."""

    input_tokens: StrictInt | None = Field(default=None, ge=0, description="prompt tokens, summed over calls")
    output_tokens: StrictInt | None = Field(default=None, ge=0, description="completion tokens, summed over calls")
    cost_usd: float | None = Field(default=None, ge=0, description="what the calls cost, in US dollars")
    model: str | None = Field(default=None, max_length=200, description="the model (several: comma-separated)")

    @field_validator("cost_usd", mode="before")
    @classmethod
    def _a_finite_number(cls, value: Any) -> Any:
        # A bool is an int to Python and "0.1" would be coerced: a cost is a JSON number, finite.
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not math.isfinite(value)):
            raise ValueError("not a finite number")
        return value

    @property
    def reported(self) -> bool:
        """Whether anything at all was reported."""
        return any(getattr(self, name) is not None for name in USAGE_FIELDS)

    def __add__(self, other: "Usage") -> "Usage":
        """Two reports of one episode (or two episodes) together: a count reported by neither stays None."""

        def both(a: Any, b: Any) -> Any:
            return b if a is None else a if b is None else a + b

        models = [m for m in (self.model, other.model) if m]
        names = list(dict.fromkeys(name.strip() for m in models for name in m.split(",") if name.strip()))
        return Usage(input_tokens=both(self.input_tokens, other.input_tokens),
                     output_tokens=both(self.output_tokens, other.output_tokens),
                     cost_usd=both(self.cost_usd, other.cost_usd),
                     model=", ".join(names)[:200] or None)

    def shown(self) -> str:
        """One line for a report: what was reported, and "not reported" for the rest."""
        if not self.reported:
            return "not reported"
        parts = [f"{self.input_tokens:,} in" if self.input_tokens is not None else "input not reported",
                 f"{self.output_tokens:,} out" if self.output_tokens is not None else "output not reported",
                 f"${self.cost_usd:.4f}" if self.cost_usd is not None else "cost not reported"]
        return " · ".join(parts) + (f" · {self.model}" if self.model else "")


def add_usage(first: Usage | None, second: Usage | None) -> Usage | None:
    """Either, or both added; None when neither reported anything."""
    if first is None or not first.reported:
        return second if second is not None and second.reported else None
    if second is None or not second.reported:
        return first
    return first + second


class UsageFileError(ValueError):
    pass


def parse_usage(raw: str, where: str = "usage") -> Usage | None:
    """A usage report as an agent writes it (JSON, see `_EXPECTED`); None when it reports nothing."""
    text = raw.strip()
    if not text:
        return None
    try:
        decoded: Any = json.loads(text)
    except ValueError as exc:
        raise UsageFileError(f"{where}: not JSON ({exc}); expected {_EXPECTED}") from None
    if not isinstance(decoded, dict):
        raise UsageFileError(f"{where}: got {type(decoded).__name__}; expected {_EXPECTED}")
    unknown = sorted(set(decoded) - set(USAGE_FIELDS))
    if unknown:
        raise UsageFileError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))}; expected {_EXPECTED}")
    try:
        usage = Usage.model_validate(decoded)
    except ValidationError as exc:
        problems = "; ".join(f"{e['loc'][0]}: expected {_FIELD_EXPECTED[str(e['loc'][0])]}, got {e['input']!r}"
                             for e in exc.errors())
        raise UsageFileError(f"{where}: {problems}") from None
    return usage if usage.reported else None


def read_usage(path: Path) -> Usage | None:
    """The usage an agent left in `path`; None for no file (nothing reported). Raises UsageFileError,
    naming the file, the field and what is expected, for a malformed one."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(MAX_USAGE_FILE_BYTES + 1)
    except FileNotFoundError:
        return None
    if len(raw) > MAX_USAGE_FILE_BYTES:
        raise UsageFileError(f"{path}: larger than {MAX_USAGE_FILE_BYTES} bytes; expected {_EXPECTED}")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UsageFileError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return parse_usage(text, str(path))

"""Property tests for the fault envelope parser: whatever a catalog or the control API hands it, `parse_fault`
either returns a usable fault or raises `FaultError` naming the index and the field; nothing else escapes.

Inputs: arbitrary JSON/YAML-like values, and mutations of every valid envelope of the catalog (plus a default
envelope of every registered type that parses with its defaults): a value replaced by anything, a key
dropped, an unknown key added, `type`/`layer` swapped for another registered one.
"""

from __future__ import annotations

import copy
import datetime
from pathlib import Path
from typing import Any, ClassVar

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from pydantic import model_validator

from proxy_addons.episodes import arm_proxy_faults
from scenarios.faults import (
    ArmedFault,
    FaultError,
    FaultSpec,
    FaultType,
    Layer,
    Match,
    Primitive,
    parse_fault,
    register,
    registry,
    unregister,
)
from scenarios.loader import CATALOG_DIR, parse_yaml
from tests.mutation import SETTINGS, mutation_slots

ENVELOPE_FIELDS = tuple(FaultSpec.model_fields)

# What YAML can produce: JSON values, plus int keys and dates.
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(-3, 3), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["", "*", "[", "/api/cart*", "POST", "always", "network", "client",
                                           "button", "Add to cart", "{target.name}"]),
    st.dates().map(lambda d: d), st.datetimes().map(lambda d: d),
)
keys = st.one_of(st.text(max_size=10), st.sampled_from(ENVELOPE_FIELDS), st.integers(-2, 2))
json_like = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=16,
)


def _catalog_envelopes() -> list[dict[str, Any]]:
    out = []
    for path in sorted(Path(CATALOG_DIR).rglob("*.yaml")):
        for variant in (parse_yaml(path.read_text()) or {}).get("variants") or []:
            out += variant["faults"]
    return out


def _default_envelopes() -> list[dict[str, Any]]:
    out = []
    for kind in registry().values():
        raw = {"type": kind.name, "layer": kind.layer.value}
        if kind.layer == Layer.client:
            raw["match"] = {"role": "button", "name": "Add to cart"}
        try:
            parse_fault(raw, 0)
        except FaultError:
            continue
        out.append(raw)
    return out


VALID = _catalog_envelopes() + _default_envelopes()
TYPES = sorted({(kind.layer.value, kind.name) for kind in registry().values()})


def check(raw: Any, index: int) -> None:
    """The property: a usable fault, or a FaultError that names the index and a field."""
    try:
        spec, params = parse_fault(raw, index)
    except FaultError as exc:
        message = str(exc)
        prefix = f"faults[{index}]."
        assert message.startswith(prefix), message
        where = message[len(prefix):]
        extra = [str(k) or repr(k) for k in raw] if isinstance(raw, dict) else []
        named = [*ENVELOPE_FIELDS, *extra] if isinstance(raw, dict) else ["(root)"]
        assert any(where.startswith(f"{name}:") or where.startswith(f"{name}.") for name in named), message
        return
    assert spec.id and spec.type == params.name and spec.layer == params.layer
    fault = ArmedFault(spec, params, seed=3)
    for t in (0.0, 50.0, 1e9):
        assert isinstance(fault.decide(t), bool)


def test_every_valid_envelope_parses() -> None:
    assert len(VALID) > 50
    for index, raw in enumerate(VALID):
        parse_fault(raw, index)


@SETTINGS
@given(raw=json_like, index=st.integers(0, 99))
@example(raw={"type": "overlay", "layer": "client", "params": {"kind": ["cookie"]}}, index=0)
@example(raw={"type": "overlay", "layer": "client", "params": {"kind": {"a": 1}}}, index=1)
@example(raw=[], index=0)
@example(raw={"type": "latency", "layer": "network", "toxicity": float("nan"), "params": {"delay_ms": 1}}, index=2)
def test_arbitrary_values_parse_or_raise_a_fault_error(raw: Any, index: int) -> None:
    check(raw, index)


@st.composite
def mutated(draw: st.DrawFn) -> dict[str, Any]:
    raw = copy.deepcopy(draw(st.sampled_from(VALID)))
    for _ in range(draw(st.integers(1, 3))):
        container, key = draw(st.sampled_from(mutation_slots(raw)))  # key None: add a key to it
        action = draw(st.sampled_from(["replace", "drop", "swap_type"] if key is not None else ["add", "swap_type"]))
        if action == "replace":
            container[key] = draw(json_like)
        elif action == "drop":
            del container[key]
        elif action == "add":
            container[draw(keys)] = draw(json_like)
        else:
            raw["layer"], raw["type"] = draw(st.sampled_from(TYPES))
    return raw


@SETTINGS
@given(raw=mutated(), index=st.integers(0, 99))
def test_mutated_envelopes_parse_or_raise_a_fault_error(raw: dict[str, Any], index: int) -> None:
    check(raw, index)


@SETTINGS
@given(raws=st.lists(st.one_of(mutated(), json_like), max_size=4), seed=st.integers())
def test_arming_a_list_raises_only_fault_errors(raws: list[Any], seed: int) -> None:
    try:
        armed = arm_proxy_faults(raws, seed)
    except FaultError as exc:
        assert str(exc).startswith("faults"), exc
        return
    assert all(a.spec.layer in (Layer.network, Layer.client) for a in armed)


def test_dates_are_values_too() -> None:
    check({"type": "latency", "layer": "network", "params": {"delay_ms": datetime.date(2024, 1, 1)}}, 0)


class _Fussy(FaultType):
    """A third-party type whose validator and match check trip over their input (KeyError, TypeError)."""

    name: ClassVar[str] = "fussy_test_only"
    layer: ClassVar[Layer] = Layer.network
    primitive: ClassVar[Primitive] = Primitive.patience
    description: ClassVar[str] = "test only"
    limit: int = 0

    @model_validator(mode="before")
    @classmethod
    def _lookup(cls, data: Any) -> Any:
        return {"limit": {"low": 1, "high": 9}[data["level"]]} if isinstance(data, dict) and data else data

    @classmethod
    def check_match(cls, match: Match) -> str | None:
        return None if match.path is None else f"{len(match.path) + None}"  # type: ignore[operator]


def test_a_type_whose_own_checks_raise_anything_still_gives_a_fault_error() -> None:
    register(_Fussy)
    try:
        _, params = parse_fault({"type": "fussy_test_only", "layer": "network", "params": {"level": "high"}}, 0)
        assert isinstance(params, _Fussy) and params.limit == 9
        with pytest.raises(FaultError, match=r"^faults\[4\]\.params: not valid for 'fussy_test_only' \(KeyError"):
            parse_fault({"type": "fussy_test_only", "layer": "network", "params": {"level": "max"}}, 4)
        with pytest.raises(FaultError, match=r"^faults\[5\]\.match: not valid for 'fussy_test_only' \(TypeError"):
            parse_fault({"type": "fussy_test_only", "layer": "network", "match": {"path": "/x"}}, 5)
    finally:
        unregister(_Fussy)

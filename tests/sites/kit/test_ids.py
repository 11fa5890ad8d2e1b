"""The kit's ids: counted per kind in the state's own `next_ids`, padded to the state's width."""

from typing import ClassVar

from pydantic import BaseModel

from sites.kit.ids import TakesIds


class PaddedState(TakesIds, BaseModel):
    name: str
    next_ids: dict[str, int]
    items: list[str] = []


class PlainState(TakesIds, BaseModel):
    id_width: ClassVar[int] = 0
    next_ids: dict[str, int]


def test_ids_count_up_per_kind_from_the_state_counters() -> None:
    state = PaddedState(name="s", next_ids={"order": 7})
    assert [state.take_id("order", "o"), state.take_id("order", "o"), state.take_id("item", "i")] == [
        "o0007", "o0008", "i0001"]
    assert state.next_ids == {"order": 9, "item": 2}


def test_a_call_may_name_its_width_and_a_state_its_default() -> None:
    padded, plain = PaddedState(name="s", next_ids={}), PlainState(next_ids={"m": 12})
    assert padded.take_id("contact", "ec", 1) == "ec1" and padded.take_id("contact", "ec", 3) == "ec002"
    assert plain.take_id("m", "m") == "m12" and plain.take_id("m", "m", 4) == "m0013"


def test_the_mixin_adds_no_field_and_leaves_the_json_order_as_the_state_declares_it() -> None:
    assert list(PaddedState.model_fields) == ["name", "next_ids", "items"]
    state = PaddedState(name="s", next_ids={}, items=["x"])
    state.take_id("k", "k")
    assert state.model_dump_json() == '{"name":"s","next_ids":{"k":2},"items":["x"]}'

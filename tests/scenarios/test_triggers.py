"""Triggers in the fault envelope: validation, and how they gate schedules (no clock involved)."""

import pytest

from scenarios.faults import ArmedFault, FaultError, parse_fault
from scenarios.triggers import SPENT, TRIGGERED


def armed(raw: dict) -> ArmedFault:
    spec, params = parse_fault(raw, 0)
    return ArmedFault(spec, params, seed=3)


ERROR = {"type": "error", "layer": "network", "params": {"status": 503}}


def test_after_until_gate_the_schedule_which_counts_only_while_active() -> None:
    fault = armed({**ERROR, "schedule": {"mode": "first_n", "n": 2},
                   "trigger": {"after": {"event": "commit", "name": "add_*"},
                               "until": {"event": "navigate", "name": "view_cart"}}})
    assert [fault.decide(0) for _ in range(3)] == [False, False, False]
    assert fault.eligible == 0  # dormant: nothing counted, so first_n starts at the trigger
    assert fault.observe("event", "navigate", "view_cart") is None  # until counts only once started
    assert fault.observe("event", "commit", "add_to_cart") == TRIGGERED
    assert [fault.decide(0) for _ in range(3)] == [True, True, False]
    assert fault.observe("event", "navigate", "view_cart") == SPENT
    assert fault.decide(0) is False and not fault.active


def test_nth_gui_action_of_a_kind_with_a_name_glob() -> None:
    fault = armed({**ERROR, "trigger": {"after": {"action": "click", "name": "Add*", "count": 2}}})
    assert fault.observe("action", "click", "Search") is None
    assert fault.observe("event", "commit", "Add") is None  # a semantic event is not a GUI action
    assert fault.observe("action", "click", "Add to cart") is None
    assert not fault.active
    assert fault.observe("action", "click", "Add to cart") == TRIGGERED
    assert fault.active


def test_toxicity_still_draws_from_the_seeded_rng_after_the_trigger() -> None:
    runs = []
    for _ in range(2):
        fault = armed({**ERROR, "toxicity": 0.5, "trigger": {"after": {"event": "inspect"}}})
        fault.observe("event", "inspect", "view_product")
        runs.append([fault.decide(0) for _ in range(20)])
    assert runs[0] == runs[1] and 0 < sum(runs[0]) < 20


@pytest.mark.parametrize(("trigger", "message"), [
    ({}, "after, until or both"),
    ({"after": {"event": "commit", "action": "click"}}, "exactly one of event"),
    ({"after": {"event": "explode"}}, "trigger.after.event"),
    ({"after": {"action": "click", "count": 0}}, "trigger.after.count"),
    ({"after": {"event": "commit"}, "when": 3}, "trigger.when"),
])
def test_bad_triggers_name_the_field(trigger: dict, message: str) -> None:
    with pytest.raises(FaultError, match=message) as error:
        parse_fault({**ERROR, "trigger": trigger}, 4)
    assert str(error.value).startswith("faults[4].")


def test_triggers_that_cannot_be_seen_where_the_fault_acts_are_refused() -> None:
    with pytest.raises(FaultError, match="seed faults act once"):
        parse_fault({"type": "decoy_items", "layer": "seed", "trigger": {"after": {"event": "commit"}}}, 0)
    with pytest.raises(FaultError, match="semantic events only"):
        parse_fault({"type": "stale_read", "layer": "server", "trigger": {"after": {"action": "click"}}}, 0)
    spec, _ = parse_fault({"type": "stale_read", "layer": "server", "trigger": {"after": {"event": "commit"}}}, 0)
    assert spec.trigger is not None

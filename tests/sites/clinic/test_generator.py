"""Seeded CareBridge worlds: byte-identical per seed, different across seeds, traps in place."""

from typing import Any

import pytest

from sites.kit.dates import day_label, time_label

from . import new_world


def test_people_and_traps_change_with_the_seed() -> None:
    worlds = [new_world(seed)[2] for seed in (1, 2, 3, 4)]
    assert len({w.bindings["book"]["surname"] for w in worlds}) > 1
    assert len({w.state.patient.name for w in worlds}) > 1


@pytest.mark.parametrize(("params", "message"), [({"focus": "x"}, "focus must be one of"),
                                                 ({"size": 3}, "unknown clinic setup param")])
def test_setup_params_are_refused(params: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        new_world(1, **params)


@pytest.mark.parametrize("seed", range(1, 9))
def test_seeded_traps(seed: int) -> None:
    episode = new_world(seed)[2]
    state, b = episode.state, episode.bindings
    now = episode.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    # Every slot is after the clock's now; a booked visit holds its slot.
    assert all(s.start > now for s in state.slots)
    for a in state.appointments:
        if a.status == "booked":
            slot = state.slot(a.slot_id or "")
            assert slot is not None and slot.taken and slot.start == a.start
    # Two cardiologists at one location share a surname; both have the task's opening.
    book = b["book"]
    pair = [p for p in state.providers if p.last_name == book["surname"]]
    assert len(pair) == 2 and {p.id for p in pair} == {book["provider_id"], book["other_id"]}
    assert len({(p.specialty, p.location_id) for p in pair}) == 1
    same_time = [s for s in state.slots if s.provider_id in {p.id for p in pair}
                 and (day_label(s.start), time_label(s.start)) == (book["day"], book["time"])]
    assert len(same_time) == 2 and not any(s.taken for s in same_time)
    # Cancel: the visit with the namesake comes first.
    wanted, other = state.appointment(b["cancel"]["appointment_id"]), state.appointment(
        b["cancel"]["other_appointment_id"])
    assert wanted and other and other.start < wanted.start
    # Three results of one test; only one is out of range, and never the newest.
    same = sorted((r for r in state.results if r.test == b["flagged"]["test"]), key=lambda r: r.collected_at)
    flagged = [r for r in same if any(c.flag for c in r.components)]
    assert len(same) == 3 and [r.id for r in flagged] == [b["flagged"]["result_id"]] and same[-1] is not flagged[0]
    # The card marked primary has expired; the current one is not primary.
    today = episode.clock.now().date().isoformat()
    old, new = state.card(b["previsit"]["old_card_id"]), state.card(b["previsit"]["card_id"])
    assert old and new and old.primary and old.valid_to < today and not new.primary and new.valid_to > today
    # Refill: the prescriber's medications with refills left are exactly the task's.
    family = [m for m in state.medications if state.provider(m.prescriber_id).name == b["refill"]["prescriber_name"]]  # type: ignore[union-attr]
    assert sorted(m.id for m in family if m.refills_left) == sorted(b["refill"]["ids"])
    # Opening: of the dermatologists at that location, only one is free that day.
    derm = [p for p in state.providers if p.specialty == "Dermatology"]
    free_that_day = {s.provider_id for s in state.slots if not s.taken and day_label(s.start) == b["opening"]["day"]
                     and s.provider_id in {p.id for p in derm}}
    assert free_that_day == {b["opening"]["provider_id"]}
    assert derm[-1].id == b["opening"]["provider_id"]

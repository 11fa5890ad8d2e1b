"""A fault's `match` is written for the episode's world before the proxy gets it (as a plan step is)."""

import pytest

from grader.bindings import BindingError
from harness.episodes.manager import matched_in_world

BINDINGS = {"outdated": {"old_marker": "Answered in 2019", "question_id": "q12"}}


def test_a_match_naming_the_world_is_filled_and_the_rest_is_left_alone() -> None:
    faults = [
        {"type": "false_toast", "layer": "client", "params": {"text": "Saved {not a placeholder"},
         "match": {"host": "forum.test", "role": "button", "name": "Upvote", "within": "{outdated.old_marker}",
                   "path": "/questions/{outdated.question_id}"}},
        {"type": "latency", "layer": "network", "params": {"delay_ms": 10}},
    ]
    filled = matched_in_world(faults, BINDINGS)
    assert filled[0]["match"]["within"] == "Answered in 2019"
    assert filled[0]["match"]["path"] == "/questions/q12"
    assert filled[0]["params"] == faults[0]["params"]
    assert filled[1] == faults[1]
    assert faults[0]["match"]["within"] == "{outdated.old_marker}"  # the catalog's fault is not changed


def test_a_match_naming_what_the_world_lacks_is_refused_by_name() -> None:
    fault = {"type": "overlay", "layer": "client", "match": {"role": "button", "within": "{outdated.gone}"}}
    with pytest.raises(BindingError, match=r"outdated\.gone"):
        matched_in_world([fault], BINDINGS)

"""A variant left out of default runs says why."""

import pytest
from pydantic import ValidationError

from scenarios.schema import Variant

BASE = {"id": "v", "title": "t", "tasks": ["a"], "target_primitive": "patience",
        "faults": [{"type": "latency", "layer": "network"}]}


@pytest.mark.parametrize("status", ["unfair", "ineffective", "harmless"])
def test_a_marked_variant_needs_a_reason_and_is_out_of_default_runs(status: str) -> None:
    with pytest.raises(ValidationError, match=f"status {status} needs a reason"):
        Variant.model_validate({**BASE, "status": status})
    marked = Variant.model_validate({**BASE, "status": status, "reason": "why"})
    assert not marked.by_default
    assert Variant.model_validate(BASE).by_default

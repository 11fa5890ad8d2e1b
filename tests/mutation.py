"""What the property tests that mutate a valid document (a fault envelope, a task's canonical diff) share: the
places in it a mutation can touch, and the Hypothesis settings they run under."""

from typing import Any

from hypothesis import HealthCheck, settings

# Many examples, no deadline: one example parses a whole document, which a loaded machine makes slow.
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def mutation_slots(raw: Any) -> list[tuple[Any, Any]]:
    """Every (container, key in it) of the JSON-like `raw`, its nested lists and dicts included, that a
    mutation may replace or drop, and (dict, None) for each dict it may add a key to."""
    slots: list[tuple[Any, Any]] = [(raw, None)]
    stack: list[Any] = [raw]
    while stack:
        container = stack.pop()
        items = container.items() if isinstance(container, dict) else enumerate(container)
        for key, value in list(items):
            slots.append((container, key))
            if isinstance(value, dict | list):
                stack.append(value)
                if isinstance(value, dict):
                    slots.append((value, None))
    return slots

"""A checkout that flaps: 503 bursts armed and disarmed around the agent's steps.

Once the agent has reached its cart, the checkout page answers 503 once; once it has reached the
checkout page, placing the order answers 503 once. Each burst is armed with a trigger (so it starts
exactly at that step, whatever the timing) and disarmed as soon as the agent is past the step.

    webchaos script examples/scripts/flapping_checkout.py --seeds 1-3 -a reference
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotation: a script needs nothing imported to run
    import webchaos

TASKS = ["shop_buy_by_seller"]


def burst(path: str, method: str, after: str) -> dict:
    return {"type": "error", "layer": "network", "match": {"path": path, "methods": [method]},
            "schedule": {"mode": "first_n", "n": 1}, "params": {"status": 503},
            "trigger": {"after": {"event": "navigate", "name": after}}}


async def scenario(ep: webchaos.Episode) -> None:
    checkout_page = await ep.arm(burst("/checkout", "GET", after="view_cart"))
    place_order = await ep.arm(burst("/api/orders", "POST", after="view_checkout"))
    await ep.wait_for(kind="navigate", name="view_checkout", timeout_s=300)  # through, after the 503
    await ep.disarm(checkout_page)
    await ep.wait_for(kind="commit", name="place_order", timeout_s=300)  # ordered, after the 503
    await ep.disarm(place_order)

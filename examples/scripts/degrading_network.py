"""A network that degrades as the session goes on: every N requests the site serves, latency climbs.

The script counts the site's own events (one per page or API call it served) and, every
`EVERY_N` of them, swaps the latency fault for one `STEP_MS` slower, up to `MAX_MS`.

    webchaos script examples/scripts/degrading_network.py --seeds 1-3 -a reference
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotation: a script needs nothing imported to run
    import webchaos

TASKS = ["shop_add_to_cart"]
EVERY_N = 2
STEP_MS = 250
MAX_MS = 1500


async def scenario(ep: webchaos.Episode) -> None:
    served = 0
    current: str | None = None
    async for event in ep.events():
        if event["source"] != "site":
            continue
        served += 1
        if served % EVERY_N:
            continue
        delay_ms = min(MAX_MS, STEP_MS * served // EVERY_N)
        if current is not None:
            await ep.disarm(current)
        current = await ep.arm({"id": f"latency-{delay_ms}ms", "type": "latency", "layer": "network",
                                "match": {"host": "shop.test"}, "params": {"delay_ms": delay_ms}})

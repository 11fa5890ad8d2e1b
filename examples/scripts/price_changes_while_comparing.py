"""A price that changes while the agent compares.

The task has several listings that look alike; the agent opens them one by one to compare. From
the second product page it opens, the price of what it will buy is changing on the server: when
it places the order, the item costs 20% more and the order is refused once so it can review it.

    webchaos script examples/scripts/price_changes_while_comparing.py --seeds 1-3 -a reference
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotation: a script needs nothing imported to run
    import webchaos

TASKS = ["shop_buy_by_seller"]


async def scenario(ep: webchaos.Episode) -> None:
    await ep.arm({"type": "price_change_at_checkout", "layer": "server", "params": {"change_pct": 20},
                  "schedule": {"mode": "once"},
                  "trigger": {"after": {"event": "inspect", "name": "view_product", "count": 2}}})

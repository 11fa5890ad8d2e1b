"""The session expires right after the cart is reached.

A server fault armed at the start with a trigger: it stays dormant until the site has shown the cart,
then signs the user out on the very next request (the agent must sign in again and go on).

    webchaos script examples/scripts/session_expires_at_cart.py --seeds 1-3 -a reference
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotation: a script needs nothing imported to run
    import webchaos

TASKS = ["shop_buy_by_seller"]


async def scenario(ep: webchaos.Episode) -> None:
    expiry = await ep.arm({"type": "session_expiry", "layer": "server", "schedule": {"mode": "once"},
                           "trigger": {"after": {"event": "navigate", "name": "view_cart"}}})
    await ep.wait_for(kind="navigate", name="view_cart", timeout_s=300)
    # Once the agent has signed in again (the sign-in page's POST is a page load of the site),
    # the fault has done its work: take it off.
    await ep.wait_for(kind="navigate", name="view_checkout", timeout_s=300)
    await ep.disarm(expiry)

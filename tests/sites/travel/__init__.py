"""Tests of the Wayfarer travel site (the HTML reader is tests.sites.html)."""

from typing import Any

from tests.sites.html import Doc
from tests.sites.worlds import client_maker, world_maker

__all__ = ["Doc", "client_for", "new_world", "stay_query"]

new_world = world_maker("travel")
client_for = client_maker("travel.test")


def stay_query(stay: dict[str, Any]) -> str:
    return f"check_in={stay['check_in']}&check_out={stay['check_out']}&guests={stay['guests']}&rooms=1"

"""Tests of the Meridian Bank site (the HTML reader is tests.sites.html)."""

from tests.sites.html import Doc
from tests.sites.worlds import client_maker, world_maker

__all__ = ["Doc", "client_for", "new_world"]

new_world = world_maker("bank")
client_for = client_maker("bank.test")

"""Tests of the Lark Mail site (the HTML reader is tests.sites.html)."""

from tests.sites.html import Doc, Element
from tests.sites.worlds import client_maker, world_maker

__all__ = ["Doc", "Element", "client_for", "new_world"]

new_world = world_maker("mail")
client_for = client_maker("mail.test")

"""Cartwheel: the seeded online store site (catalogue, cart, checkout, account)."""

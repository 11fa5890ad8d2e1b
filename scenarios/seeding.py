"""Seeded randomness: every random choice (a world, a fault draw) flows from the episode seed."""

import hashlib
import random


def derive_seed(*parts: object) -> int:
    """A stable 64-bit integer from any parts (str() of each), independent of PYTHONHASHSEED."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def episode_rng(*parts: object) -> random.Random:
    return random.Random(derive_seed(*parts))

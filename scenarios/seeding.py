"""Seeded randomness: every random choice (a world, a fault draw) flows from the episode seed."""

import hashlib
import random


def derive_seed(*parts: object) -> int:
    """A stable 64-bit integer from any parts (str() of each), independent of PYTHONHASHSEED."""
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def episode_rng(*parts: object) -> random.Random:
    return random.Random(derive_seed(*parts))


class SeedsError(ValueError):
    """A seed list that is not '1', '1,2,5' or '1-10' (the message quotes it)."""


def parse_seeds(text: str) -> list[int]:
    """Seeds as the CLI and the Inspect tasks take them: '1', '1,2,5' or '1-10' (both ends included)."""
    expected = f"seeds must look like '1', '1,2,5' or '1-10' (each >= 0), got {text!r}"
    try:
        if "-" in text and "," not in text:
            low, high = (int(p) for p in text.split("-", 1))
            if low > high:
                raise SeedsError(f"{expected}: a range runs from low to high")
            seeds = list(range(low, high + 1))
        else:
            seeds = [int(p) for p in text.split(",") if p.strip()]
    except ValueError as exc:
        if isinstance(exc, SeedsError):
            raise
        raise SeedsError(expected) from exc
    if not seeds or min(seeds) < 0:
        raise SeedsError(expected)
    return seeds

"""The episode clock: state never reads the wall clock.

The epoch is derived from the seed, so seeded dates ("ordered 3 days ago") are
relative to it and the same seed gives the same bytes on any day. Each state
change advances the clock by a fixed step.
"""

from datetime import UTC, datetime, timedelta

from scenarios.seeding import derive_seed

_BASE_EPOCH = datetime(2025, 1, 6, 9, 0, tzinfo=UTC)
STEP = timedelta(seconds=37)
_ISO = "%Y-%m-%dT%H:%M:%SZ"


class EpisodeClock:
    def __init__(self, seed: int) -> None:
        # Spread epochs over a year at whole minutes so seeds do not share a day.
        offset_min = derive_seed("clock", seed) % (365 * 24 * 60)
        self.epoch = _BASE_EPOCH + timedelta(minutes=offset_min)
        self._ticks = 0

    def now(self) -> datetime:
        return self.epoch + self._ticks * STEP

    def advance(self) -> datetime:
        """Move forward one step (call once per state change) and return the new time."""
        self._ticks += 1
        return self.now()

    def stamp(self) -> str:
        """Advance and return an ISO-8601 timestamp for a state change."""
        return iso(self.advance())

    def ago(self, **delta: float) -> str:
        """An ISO timestamp before the epoch, for seeded history."""
        return iso(self.epoch - timedelta(**delta))


def iso(moment: datetime) -> str:
    return moment.strftime(_ISO)


def parse_iso(stamp: str) -> datetime:
    """The moment an `iso` stamp names (naive, in UTC as every stamp is)."""
    return datetime.strptime(stamp, _ISO)

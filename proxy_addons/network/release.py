"""When held flows go on: one release clock per event loop.

A delayed flow must reach the site at its deadline, to the millisecond, however many others are
held with it. Two things made bursts late (benchmarks/latency_accuracy.py, 32 held flows at once):

- each held flow slept on its own timer and then spun the loop for its last 2 ms (a selector
  rounds its timeout up to whole milliseconds), so 32 flows were 32 coroutines spinning at once,
  competing with the forwarding of the ones already due;
- the after-work of finished flows (the client script, the HAR entry) ran between two releases.

Here one clock keeps every deadline in a heap, sleeps until just before the earliest, spins alone
up to it and releases every flow that is due in the same pass; and a response that comes while a
release is imminent waits for it (`yield_to_releases`, bounded), so the release goes first; the
gate's responses also go one at a time while releases are close (`pace`).
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import weakref

# A selector wakes up to a millisecond late, so the clock sleeps to this much short of a deadline
# and then spins (one callback per loop pass; I/O is polled between passes, other flows go on).
SPIN_BEFORE_S = 0.002
# A long sleep also wakes late in proportion to its length (measured here: 4.5 ms after 2 s, 3 ms
# after 0.8 s, timer slack), so the clock first wakes this share of the wait early, then sleeps again
# for the short rest: 2 s is then kept to a fraction of a millisecond.
EARLY_SHARE = 0.01
# A response waits while a release is due within this window, and never longer than MAX_YIELD_S
# in total: a burst of releases goes out first, then the responses' work catches up.
YIELD_WINDOW_S = 0.005
MAX_YIELD_S = 0.1
# Between the releases of a burst, responses let go all at once made the next release late by their
# summed work (mitmproxy's response hooks, about half a millisecond each): 32 of them, 5-10 ms. So
# while a release is due within PACE_HORIZON_S, the gate lets one response go per PACE_S.
PACE_HORIZON_S = 0.02
PACE_S = 0.0015


class ReleaseClock:
    """The deadlines of the flows held on one event loop, and the one timer that releases them."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._heap: list[tuple[float, int, asyncio.Future[None]]] = []
        self._order = itertools.count()
        self._timer: asyncio.TimerHandle | None = None
        self._spinning = False
        self._paced_until = 0.0  # the loop time before which a paced response waits

    def hold(self, deadline: float) -> asyncio.Future[None]:
        """A future done at the loop's time `deadline` (at once if that has passed)."""
        future: asyncio.Future[None] = self._loop.create_future()
        if deadline <= self._loop.time():
            future.set_result(None)
            return future
        heapq.heappush(self._heap, (deadline, next(self._order), future))
        self._arm()
        return future

    def next_due(self) -> float | None:
        """The earliest deadline still waited for (None: nothing is held)."""
        while self._heap and self._heap[0][2].done():  # a held flow that was cancelled
            heapq.heappop(self._heap)
        return self._heap[0][0] if self._heap else None

    async def yield_to_releases(self, pace: bool = False) -> None:
        """Return once no release is due within YIELD_WINDOW_S, or after MAX_YIELD_S.

        With `pace`, also wait while a release is due within PACE_HORIZON_S and another paced response
        went on less than PACE_S ago: responses then go one at a time instead of all together."""
        give_up = self._loop.time() + MAX_YIELD_S
        while (due := self.next_due()) is not None:
            now = self._loop.time()
            if now >= give_up:
                return
            if due <= now:  # due but not yet released: the clock's next pass does it
                await asyncio.sleep(0)
            elif due <= now + YIELD_WINDOW_S:  # same deadline, queued after the held flows: released after them
                await self.hold(due)
            elif not pace or due > now + PACE_HORIZON_S:
                return
            elif now < self._paced_until:
                await asyncio.sleep(min(self._paced_until, give_up) - now)
            else:
                self._paced_until = now + PACE_S
                return

    def _arm(self) -> None:
        due = self.next_due()
        if self._spinning or due is None:
            return
        wake = due - SPIN_BEFORE_S
        wake -= EARLY_SHARE * max(0.0, wake - self._loop.time())
        if self._timer is not None:
            if self._timer.when() <= wake:
                return
            self._timer.cancel()
        self._timer = self._loop.call_at(wake, self._tick)

    def _tick(self) -> None:
        self._timer = None
        now = self._loop.time()
        while self._heap and self._heap[0][0] <= now:
            future = heapq.heappop(self._heap)[2]
            if not future.done():
                future.set_result(None)
        due = self.next_due()
        self._spinning = due is not None and due - SPIN_BEFORE_S <= now
        if self._spinning:
            self._loop.call_soon(self._tick)
        else:
            self._arm()


_CLOCKS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, ReleaseClock] = weakref.WeakKeyDictionary()


def release_clock() -> ReleaseClock:
    """The running loop's release clock."""
    loop = asyncio.get_running_loop()
    clock = _CLOCKS.get(loop)
    if clock is None:
        clock = _CLOCKS[loop] = ReleaseClock(loop)
    return clock


async def hold_until(deadline: float) -> None:
    """Return at the event loop's time `deadline`, within a fraction of a millisecond when the loop is free."""
    await release_clock().hold(deadline)

"""Long-polling an episode's growing log: the sites' semantic events, the proxy's GUI actions.

A reader asks for the entries from its `since`-th on with `wait_s`; when there are none yet, its
request waits until the next one is appended (the append wakes it: no timer, no polling) or the
episode closes, for at most `wait_s` (≤ MAX_WAIT_S). What bounds a stalled or abandoned reader on
a shared server: nothing is queued per reader (the log is the episode's own, read by index), a
waiting request lasts MAX_WAIT_S at most, an episode has at most MAX_READERS of them at once (one
more: 429), an answer carries at most BATCH_LIMIT entries, and closing the episode wakes them all.

The oracle (`GET /episodes/{id}/events`) and the proxy's control API (`GET /episodes/{id}/actions`)
answer a closed episode's reader with 410 once nothing is left for it.
"""

import asyncio
import contextlib
from collections.abc import Callable

MAX_WAIT_S = 30.0
MAX_READERS = 8
BATCH_LIMIT = 500
CLOSED_STATUS = 410


class TooManyReaders(RuntimeError):
    """An episode already has MAX_READERS waiting requests (answered 429)."""


class Feed:
    """Wakes the readers waiting on one episode's log. Used on one event loop; `notify` may also be
    called from another thread (a sync handler in a thread pool)."""

    def __init__(self) -> None:
        self._changed: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self.readers = 0
        self.closed = False

    def notify(self) -> None:
        """Something was appended (or the episode closed): wake every waiting reader."""
        changed, self._changed = self._changed, None
        if changed is None or self._loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self._loop:
            changed.set()
        else:
            self._loop.call_soon_threadsafe(changed.set)

    def close(self) -> None:
        self.closed = True
        self.notify()

    async def wait(self, has_new: Callable[[], bool], wait_s: float) -> None:
        """Return as soon as `has_new()` holds or the feed is closed, or after `wait_s` seconds.
        Raises TooManyReaders when it would have to wait beside MAX_READERS others."""
        if has_new() or self.closed or wait_s <= 0:
            return
        if self.readers >= MAX_READERS:
            raise TooManyReaders(f"{self.readers} readers already wait on this episode (at most {MAX_READERS})")
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(wait_s, MAX_WAIT_S)
        self.readers += 1
        try:
            while not (has_new() or self.closed):
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return
                if self._changed is None:
                    self._changed, self._loop = asyncio.Event(), loop
                changed = self._changed
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(remaining):
                        await changed.wait()
        finally:
            self.readers -= 1

"""Held request bytes written to the site at their deadlines by a thread of their own.

An event loop runs every callback that is ready before it looks at its timers again. Under a burst
(64 new connections, each read, parsed and passed through the hooks) one such pass takes tens of
milliseconds, and a release whose deadline falls inside it waits for the whole pass: 50 ms delays in
a burst of 32 were up to 20 ms late (benchmarks/latency_accuracy.py). The gate (gate.py) has the
request's bytes and its connection to the site ready long before the deadline; this thread only
sleeps to the deadline and writes them, between the loop's callbacks rather than after a whole pass.

It needs the GIL for a moment at each deadline, which the loop's thread gives up at the interpreter's
switch interval: starting the thread lowers that to `SWITCH_INTERVAL_S` (it only matters while two
threads want to run, so the proxy's own throughput does not change).

The thread writes with `os.write` on a duplicate of the socket's descriptor: the socket is
non-blocking, so a write never waits; what the kernel does not take at once (a rare partial write
of a big request) is handed back to the loop, which writes the rest through the transport.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

# Sleep to this much short of a deadline, then poll the clock (sleeping 0 s, which gives up the GIL).
SPIN_BEFORE_S = 0.001
SWITCH_INTERVAL_S = 0.0005


@dataclass(eq=False)
class Release:
    """One held write: `data` to the descriptor `fd` (a duplicate, closed once written or cancelled)."""

    deadline: float  # time.monotonic(), the same clock as the event loop's
    fd: int
    data: bytes
    loop: asyncio.AbstractEventLoop
    written: Callable[[int], None]  # called on the loop with the bytes written (-1: the write failed)
    mark: dict[str, Any] = field(default_factory=dict)  # gets `forwarded` just before the write
    state: Literal["held", "taken", "cancelled"] = "held"


class ReleaseThread:
    """The deadlines of every held write in the process, and the thread that makes them."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Release]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def submit(self, deadline: float, sock_fd: int, data: bytes, loop: asyncio.AbstractEventLoop,
               written: Callable[[int], None], mark: dict[str, Any]) -> Release:
        release = Release(deadline, os.dup(sock_fd), data, loop, written, mark)
        with self._cond:
            if self._thread is None or not self._thread.is_alive():
                sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL_S))
                self._thread = threading.Thread(target=self._run, name="webchaos-release", daemon=True)
                self._thread.start()
            heapq.heappush(self._heap, (deadline, next(self._order), release))
            self._cond.notify()
        return release

    def cancel(self, release: Release) -> bool:
        """Forget a write not made yet (True); False when it is being made or was made."""
        with self._cond:
            if release.state != "held":
                return False
            release.state = "cancelled"
            os.close(release.fd)
            return True

    def _run(self) -> None:
        while True:
            with self._cond:
                while True:
                    while self._heap and self._heap[0][2].state == "cancelled":
                        heapq.heappop(self._heap)
                    if not self._heap:
                        self._cond.wait()
                        continue
                    left = self._heap[0][0] - time.monotonic()
                    if left <= SPIN_BEFORE_S:
                        break
                    self._cond.wait(left - SPIN_BEFORE_S)
                deadline = self._heap[0][0]
            while time.monotonic() < deadline:
                time.sleep(0)
            with self._cond:
                now = time.monotonic()
                due = []
                while self._heap and self._heap[0][0] <= now:
                    release = heapq.heappop(self._heap)[2]
                    if release.state == "held":
                        release.state = "taken"
                        due.append(release)
            for release in due:
                self._write(release)

    @staticmethod
    def _write(release: Release) -> None:
        release.mark["forwarded"] = True  # before the bytes go: an episode closing now waits for the answer
        try:
            sent = os.write(release.fd, release.data)
        except BlockingIOError:
            sent = 0
        except OSError:
            sent = -1
        finally:
            os.close(release.fd)
        try:
            release.loop.call_soon_threadsafe(release.written, sent)
        except RuntimeError:  # the loop is closed: nobody waits for this write any more
            pass


RELEASES = ReleaseThread()

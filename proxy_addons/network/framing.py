"""Where the responses on one connection to a site end, so the gate can tell a site's close of an idle
connection (nothing in progress: not passed on) from a close that ends or cuts a response (passed on).

Framing as in RFC 9112 section 6.3: no body after a HEAD request or a 1xx/204/304 status (a 1xx other
than 101 is followed by the real response); then chunked, or Content-Length; otherwise the body runs
until the site closes. Bytes it cannot frame (a garbled head, a bad chunk size, bytes nobody asked
for) also run until the close: the gate then passes the close on, as it did before it framed anything.
"""

from __future__ import annotations

import contextlib
import enum
from collections import deque
from dataclasses import dataclass

_HEAD_END = b"\r\n\r\n"
_LINE_END = b"\r\n"
# A response head or chunk line longer than this is not framed (until the close, as above).
MAX_LINE_BYTES = 64 * 1024


class _State(enum.Enum):
    IDLE = enum.auto()  # between responses
    HEAD = enum.auto()
    LENGTH = enum.auto()  # Content-Length body: `remaining` bytes left
    CHUNK_SIZE = enum.auto()
    CHUNK_DATA = enum.auto()  # `remaining` bytes of the chunk and its CRLF
    TRAILERS = enum.auto()
    UNTIL_CLOSE = enum.auto()


@dataclass
class SentRequest:
    raw: bytes  # kept so it can go again if the site closes before a byte of its answer
    head_only: bool  # a HEAD request: its response has no body whatever its headers say
    resent: bool = False


class ResponseFraming:
    """Follows the bytes a site sends on one connection against the requests written to it."""

    def __init__(self) -> None:
        self.requests: deque[SentRequest] = deque()  # written, their responses not yet ended
        self.state = _State.IDLE
        self.answered = False  # a byte of the first request's response has come
        self._line = bytearray()  # a head, chunk-size line or trailer part still being read
        self._remaining = 0

    def sent(self, raw: bytes, resent: bool = False) -> None:
        self.requests.append(SentRequest(raw, raw.startswith(b"HEAD "), resent))

    @property
    def in_progress(self) -> bool:
        """A response is owed or partly received: a close now would be more than an idle connection's end."""
        return bool(self.requests) or self.state is not _State.IDLE

    @property
    def unanswered(self) -> list[SentRequest]:
        """Requests written with not a byte of response back: the site may never have read them."""
        return list(self.requests) if self.state is _State.IDLE and not self.answered else []

    def feed(self, data: bytes) -> None:
        at = 0
        while at < len(data):
            if self.state is _State.UNTIL_CLOSE:
                return
            if self.state is _State.IDLE:
                if not self.requests:
                    self.state = _State.UNTIL_CLOSE  # bytes nobody asked for
                    return
                self.state, self.answered = _State.HEAD, True
            if self.state is _State.HEAD:
                at = self._take_until(data, at, _HEAD_END)
                if self.state is _State.HEAD and self._line.endswith(_HEAD_END):
                    head = bytes(self._line)
                    self._line.clear()
                    self._begin_body(head)
            elif self.state in (_State.LENGTH, _State.CHUNK_DATA):
                taken = min(self._remaining, len(data) - at)
                self._remaining -= taken
                at += taken
                if self._remaining == 0:
                    if self.state is _State.LENGTH:
                        self._end_response()
                    else:
                        self.state = _State.CHUNK_SIZE
            elif self.state is _State.CHUNK_SIZE:
                at = self._take_until(data, at, _LINE_END)
                if self.state is _State.CHUNK_SIZE and self._line.endswith(_LINE_END):
                    line = bytes(self._line[:-len(_LINE_END)])
                    self._line.clear()
                    self._begin_chunk(line)
            elif self.state is _State.TRAILERS:
                # The trailers end with an empty line: the CRLF right away when there are none.
                at = self._take_until(data, at, _LINE_END)
                if self._line == _LINE_END or self._line.endswith(_HEAD_END):
                    self._line.clear()
                    self._end_response()

    def _take_until(self, data: bytes, at: int, end: bytes) -> int:
        """Moves `data` from `at` into `_line` up to and including the next `end`; returns where the rest starts."""
        if self._line:  # `end` may straddle the line so far and the new bytes
            tail = min(len(self._line), len(end) - 1)
            probe = bytes(self._line[len(self._line) - tail:]) + data[at:at + len(end) - 1]
            found = probe.find(end)
            if found >= 0:
                cut = at + found + len(end) - tail
                self._line += data[at:cut]
                return cut
        found = data.find(end, at)
        if found < 0:
            self._line += data[at:]
            if len(self._line) > MAX_LINE_BYTES:
                self.state = _State.UNTIL_CLOSE
            return len(data)
        cut = found + len(end)
        self._line += data[at:cut]
        return cut

    def _begin_body(self, head: bytes) -> None:
        lines = head.split(_LINE_END)
        parts = lines[0].split(b" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() and len(parts[1]) == 3 else 0
        if not lines[0].startswith(b"HTTP/") or status == 0:
            self.state = _State.UNTIL_CLOSE
            return
        if 100 <= status < 200 and status != 101:
            self.state = _State.HEAD  # an interim response: the real one follows
            return
        if status == 101:
            self.state = _State.UNTIL_CLOSE  # no longer HTTP (the gate does not take upgrades anyway)
            return
        if self.requests[0].head_only or status in (204, 304):
            self._end_response()
            return
        chunked, length = False, None
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            key = name.strip().lower()
            if key == b"transfer-encoding":
                chunked = value.strip().lower().endswith(b"chunked")
            elif key == b"content-length":
                with contextlib.suppress(ValueError):
                    length = int(value.strip())
        if chunked:
            self.state = _State.CHUNK_SIZE
        elif length is not None and length >= 0:
            self.state, self._remaining = _State.LENGTH, length
            if length == 0:
                self._end_response()
        else:
            self.state = _State.UNTIL_CLOSE

    def _begin_chunk(self, line: bytes) -> None:
        size_text = line.split(b";", 1)[0].strip()
        try:
            size = int(size_text, 16)
        except ValueError:
            self.state = _State.UNTIL_CLOSE
            return
        if size == 0:
            self.state = _State.TRAILERS
        else:
            self.state, self._remaining = _State.CHUNK_DATA, size + len(_LINE_END)

    def _end_response(self) -> None:
        self.requests.popleft()
        self.state, self.answered = _State.IDLE, False

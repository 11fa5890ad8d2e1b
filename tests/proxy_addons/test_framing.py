"""Response framing (proxy_addons/network/framing.py): where each response on a connection ends, whatever
the pieces its bytes come in."""

from __future__ import annotations

import pytest

from proxy_addons.network.framing import ResponseFraming

GET = b"GET / HTTP/1.1\r\nhost: shop.test\r\n\r\n"
HEAD = b"HEAD / HTTP/1.1\r\nhost: shop.test\r\n\r\n"


def fed(requests: list[bytes], answer: bytes, piece: int) -> ResponseFraming:
    framing = ResponseFraming()
    for request in requests:
        framing.sent(request)
    for at in range(0, len(answer), piece):
        framing.feed(answer[at:at + piece])
    return framing


ENDED = [
    ([GET], b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello"),
    ([GET], b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"),
    ([GET], b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1a\r\n" + b"z" * 26
     + b"\r\n0\r\n\r\n"),
    ([GET], b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\nx-sum: 1\r\nx-more: 2\r\n\r\n"),
    ([HEAD], b"HTTP/1.1 200 OK\r\ncontent-length: 500\r\n\r\n"),
    ([GET], b"HTTP/1.1 204 No Content\r\n\r\n"),
    ([GET], b"HTTP/1.1 304 Not Modified\r\ncontent-length: 12\r\n\r\n"),
    ([GET], b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"),
    ([GET, GET], b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\na" + b"HTTP/1.1 204 No Content\r\n\r\n"),
]


@pytest.mark.parametrize("piece", [1, 2, 3, 7, 10_000])
@pytest.mark.parametrize(("requests", "answer"), ENDED)
def test_a_whole_response_leaves_the_connection_idle(requests: list[bytes], answer: bytes, piece: int) -> None:
    framing = fed(requests, answer, piece)
    assert not framing.in_progress and not framing.unanswered


@pytest.mark.parametrize("piece", [1, 5, 10_000])
@pytest.mark.parametrize("answer", [
    b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhell",  # one byte short
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n",  # no last chunk
    b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0\r\n",  # no blank line after the last chunk
    b"HTTP/1.1 200 OK\r\n\r\nuntil the close",  # no length: the close ends it
    b"HTTP/1.0 200 OK\r\ncontent-length: x\r\n\r\n",  # a length it cannot read: the close ends it
    b"HTTP/1.1 200 OK\r\ncontent-len",  # the head still coming
    b"HTTP/1.1 100 Continue\r\n\r\n",  # only the interim response
    b"garbage\r\n\r\n",
])
def test_a_response_not_yet_ended_is_in_progress(answer: bytes, piece: int) -> None:
    framing = fed([GET], answer, piece)
    assert framing.in_progress and not framing.unanswered


def test_bytes_nobody_asked_for_are_in_progress_until_the_close() -> None:
    framing = fed([], b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", 100)
    assert framing.in_progress


def test_a_request_with_no_byte_back_is_unanswered_until_its_response_starts() -> None:
    framing = ResponseFraming()
    framing.feed(b"")
    assert not framing.in_progress
    framing.sent(GET)
    assert framing.in_progress and [r.raw for r in framing.unanswered] == [GET]
    framing.feed(b"H")
    assert framing.in_progress and framing.unanswered == []
    framing.feed(b"TTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")
    assert not framing.in_progress

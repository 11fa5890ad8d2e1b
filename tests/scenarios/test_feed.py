"""The long-poll feed on its own: a waiting reader is woken by the append, bounded, released on close."""

import asyncio
import threading

import pytest

from scenarios.feed import MAX_READERS, Feed, TooManyReaders


async def settle() -> None:
    """Let every ready callback run; no time passes on any clock the feed reads."""
    for _ in range(10):
        await asyncio.sleep(0)


async def test_a_waiting_reader_wakes_on_the_append_not_on_its_timeout() -> None:
    feed, log = Feed(), [1]
    reader = asyncio.ensure_future(feed.wait(lambda: len(log) > 1, wait_s=3600))
    await settle()
    assert not reader.done() and feed.readers == 1
    feed.notify()  # a notify without an append (another reader's entry seen, say) does not end the wait
    await settle()
    assert not reader.done()
    log.append(2)
    feed.notify()
    await settle()
    assert reader.done() and reader.exception() is None and feed.readers == 0


async def test_nothing_to_wait_for_returns_at_once_without_counting_a_reader() -> None:
    feed = Feed()
    await feed.wait(lambda: True, wait_s=3600)
    await feed.wait(lambda: False, wait_s=0)
    assert feed.readers == 0


async def test_readers_are_capped_per_feed_and_released_by_close() -> None:
    feed = Feed()
    readers = [asyncio.ensure_future(feed.wait(lambda: False, wait_s=3600)) for _ in range(MAX_READERS)]
    await settle()
    assert feed.readers == MAX_READERS
    with pytest.raises(TooManyReaders, match=f"at most {MAX_READERS}"):
        await feed.wait(lambda: False, wait_s=3600)
    feed.close()
    await settle()
    assert all(r.done() and r.exception() is None for r in readers) and feed.readers == 0
    await feed.wait(lambda: False, wait_s=3600)  # closed: nothing more will come, so no wait at all


async def test_a_reader_gives_up_after_its_wait_and_leaves_nothing_behind() -> None:
    feed = Feed()
    await feed.wait(lambda: False, wait_s=0.01)
    assert feed.readers == 0


async def test_a_reader_cancelled_by_its_client_leaves_nothing_behind() -> None:
    feed = Feed()
    reader = asyncio.ensure_future(feed.wait(lambda: False, wait_s=3600))
    await settle()
    reader.cancel()
    await settle()
    assert reader.cancelled() and feed.readers == 0


async def test_notify_from_another_thread_wakes_the_reader() -> None:
    feed, log = Feed(), []
    reader = asyncio.ensure_future(feed.wait(lambda: bool(log), wait_s=3600))
    await settle()

    def append() -> None:
        log.append(1)
        feed.notify()

    thread = threading.Thread(target=append)
    thread.start()
    thread.join()
    await asyncio.wait_for(reader, 10)  # the guard only stops a broken wake-up from hanging the suite
    assert feed.readers == 0

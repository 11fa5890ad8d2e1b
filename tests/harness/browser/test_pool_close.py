"""Closing an episode's context when one of its pages never answers its close (no browser: the page is a stand-in)."""

import asyncio

import pytest

from harness.browser import pool as pool_module
from harness.browser.pool import _close_pages_first


class PageThatNeverConfirmsItsClose:
    """A page mid-navigation on a loaded machine: Chromium never answers its close."""
    frames: list[object] = []

    def on(self, *_: object) -> None: ...

    def remove_listener(self, *_: object) -> None: ...

    async def close(self) -> None:
        await asyncio.Event().wait()


class Context:
    def __init__(self) -> None:
        self.pages = [PageThatNeverConfirmsItsClose()]
        self.closed_with: list[str | None] = []

    async def close(self, reason: str | None = None) -> None:
        self.closed_with.append(reason)


async def test_a_page_that_never_confirms_its_close_does_not_hold_its_context_open(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # seen: such a page held the agent's episode until the runner stopped it, 240 s on
    monkeypatch.setattr(pool_module, "PAGE_CLOSE_WAIT_S", 0.01)
    context = Context()
    _close_pages_first(context)  # type: ignore[arg-type]
    await asyncio.wait_for(context.close(reason="episode over"), 60)  # the bound only keeps a hang from hanging CI
    assert context.closed_with == ["episode over"]  # the context's own close ran, and ends the page

"""The lean process's hook dispatch (proxy_addons/dispatch.py): each hook reaches the addons that have it,
in chain order, with mitmproxy's error rules."""

from __future__ import annotations

import logging

import pytest
from mitmproxy import exceptions, master, options
from mitmproxy.proxy.layers.http import HttpRequestHook
from mitmproxy.test import tflow

from proxy_addons.dispatch import HookDispatch


class Recording:
    def __init__(self, name: str, calls: list[str], fail: type[Exception] | None = None) -> None:
        self.name, self.calls, self.fail = name, calls, fail

    def request(self, flow: object) -> None:
        self.calls.append(self.name)
        if self.fail is not None:
            raise self.fail("boom")


class AsyncRecording(Recording):
    async def request(self, flow: object) -> None:  # type: ignore[override]
        self.calls.append(self.name)


class ResponseOnly:
    def __init__(self, calls: list[str]) -> None:
        self.calls = calls

    def response(self, flow: object) -> None:
        self.calls.append("response-only")


@pytest.fixture
async def dispatch() -> HookDispatch:
    return HookDispatch(master.Master(options.Options()))


async def test_a_hook_reaches_the_addons_that_have_it_in_chain_order_sync_or_async(dispatch: HookDispatch) -> None:
    calls: list[str] = []
    dispatch.add(Recording("a", calls), ResponseOnly(calls), AsyncRecording("b", calls))
    await dispatch.trigger_event(HttpRequestHook(tflow.tflow()))
    assert calls == ["a", "b"]
    dispatch.add(Recording("c", calls))  # added later: looked up again
    await dispatch.handle_lifecycle(HttpRequestHook(tflow.tflow()))
    assert calls == ["a", "b", "a", "b", "c"]


async def test_an_addon_error_is_logged_and_the_next_addon_runs(dispatch: HookDispatch,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    calls: list[str] = []
    dispatch.add(Recording("a", calls, fail=ValueError), Recording("b", calls))
    with caplog.at_level(logging.ERROR):
        await dispatch.trigger_event(HttpRequestHook(tflow.tflow()))
    assert calls == ["a", "b"] and "Addon error: boom" in caplog.text


async def test_addon_halt_ends_the_event_and_options_errors_propagate(dispatch: HookDispatch) -> None:
    calls: list[str] = []
    dispatch.add(Recording("a", calls, fail=exceptions.AddonHalt), Recording("b", calls))
    await dispatch.trigger_event(HttpRequestHook(tflow.tflow()))
    assert calls == ["a"]
    dispatch.remove(dispatch.chain[0])
    dispatch.add(Recording("c", calls, fail=exceptions.OptionsError))
    with pytest.raises(exceptions.OptionsError):
        await dispatch.trigger_event(HttpRequestHook(tflow.tflow()))
    assert calls == ["a", "b", "c"]

"""Hook dispatch for the lean proxy process (main.py): each hook goes straight to the addons that have it.

mitmproxy's AddonManager walks the whole chain for every hook of every flow, and for each addon enters a
context manager, starts a coroutine and a generator over the addon's children and looks the hook up by
name; it also dispatches an `update` hook after each one, which nothing in this chain implements. With
eighteen addons that was about a fifth of the proxy's CPU at 16 concurrent flows, as much as all the
webchaos addons' own work (py-spy during benchmarks/proxy_overhead.py). Here the callables for a hook are
looked up once per chain and the hook's arguments built once per event; errors are handled as
mitmproxy's `safecall` does (logged, the next addon runs; `AddonHalt` ends the event; `OptionsError`
propagates).
"""

from __future__ import annotations

import inspect
import logging
import types
from collections.abc import Callable
from typing import Any

from mitmproxy import exceptions, hooks
from mitmproxy.addonmanager import AddonManager, traverse

logger = logging.getLogger(__name__)


class HookDispatch(AddonManager):
    def __init__(self, master: Any) -> None:
        super().__init__(master)
        self._callables: dict[str, list[Callable[..., Any]]] = {}  # by hook name, for the chain as it is

    # Any change to the chain: look the hooks up again.
    def add(self, *addons: Any) -> None:
        super().add(*addons)
        self._callables.clear()

    def register(self, addon: Any) -> Any:
        self._callables.clear()
        return super().register(addon)

    def remove(self, addon: Any) -> None:
        super().remove(addon)
        self._callables.clear()

    def clear(self) -> None:
        super().clear()
        self._callables.clear()

    def _hook_callables(self, name: str) -> list[Callable[..., Any]]:
        found = self._callables.get(name)
        if found is None:
            found = []
            for addon in traverse(self.chain):
                func = getattr(addon, name, None)
                if func is None or isinstance(func, types.ModuleType):  # a module named like a hook: skipped
                    continue
                if not callable(func):
                    raise exceptions.AddonManagerError(f"Addon handler {name} ({addon}) not callable")
                found.append(func)
            self._callables[name] = found
        return found

    async def trigger_event(self, event: hooks.Hook) -> None:
        callables = self._hook_callables(event.name)
        if not callables:
            return
        args = event.args()
        for func in callables:
            try:
                result = func(*args)
                if result is not None and inspect.isawaitable(result):
                    await result
            except exceptions.AddonHalt:
                return
            except exceptions.OptionsError:
                raise
            except Exception as exc:
                logger.error(f"Addon error: {exc}", exc_info=True)

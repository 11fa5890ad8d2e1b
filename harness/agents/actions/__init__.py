"""Step kinds the reference agent performs beyond its core ones (goto, click, fill, check, select, press,
open_each, answer) on the control a step names: choosing a file to upload, saving a download, ...
The agent finds the control (grounding, same-named candidates) and recovers from failures as for any step.

Each module in this package registers the kinds it performs with `action(kind)` and is found by discovery,
so a new kind changes no other file. Validation's digest of the reference agent leaves out the modules of
kinds a run's plans do not use (as it does moves for fault types a run does not use): a new kind leaves the
evidence of every task that does not use it current.
"""

import importlib
import pkgutil
from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Locator, Page

from harness.agents.base import EpisodeContext
from scenarios.answers import Answer
from scenarios.schema import PlanStep

# The page, the episode, the step, the control it found for the step and how long to wait (ms); an answer
# when the step reads one.
Perform = Callable[[Page, EpisodeContext, PlanStep, Locator, int], Awaitable[Answer | None]]

ACTIONS: dict[str, tuple[Perform, str]] = {}  # kind -> (perform, the module that registered it)


def action(kind: str) -> Callable[[Perform], Perform]:
    """Register the decorated coroutine as how the agent performs plan steps `do: <kind>`."""
    def register(perform: Perform) -> Perform:
        if kind in ACTIONS:
            raise ValueError(f"two actions perform {kind!r}")
        ACTIONS[kind] = (perform, perform.__module__)
        return perform
    return register


def action_for(kind: str) -> Perform | None:
    found = ACTIONS.get(kind)
    return found[0] if found is not None else None


def step_key(kind: str) -> str:
    """How validation's digest names a step kind among the things a run uses (beside `layer:type` faults)."""
    return f"step:{kind}"


def action_files() -> dict[Path, frozenset[str]]:
    """Each action module's file with the step kinds it performs, as `step_key`s (for validation's digest)."""
    out: dict[Path, set[str]] = {}
    for kind, (_, module_name) in ACTIONS.items():
        module = importlib.import_module(module_name)
        assert module.__file__ is not None
        out.setdefault(Path(module.__file__).resolve(), set()).add(step_key(kind))
    return {file: frozenset(keys) for file, keys in out.items()}


for _found in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_found.name}")

__all__ = ["ACTIONS", "Perform", "action", "action_files", "action_for", "step_key"]

"""Scenario scripts: Python that arms and disarms faults while any agent runs an episode.

A script is a file that defines::

    TASKS = ["shop_add_to_cart"]          # optional: the tasks it was written for (default of --task)

    async def scenario(ep: webchaos.Episode) -> None:
        await ep.wait_for(kind="commit", name="add_to_cart")
        fault_id = await ep.arm({"type": "error", "layer": "network", "match": {"path": "/api/cart*"}})
        ...

`webchaos script FILE --task … --seeds … -a AGENT` opens each episode as `run` does, starts the
agent and `scenario(ep)` together, stops the script when the agent is done (it may also return
earlier), then grades like `run`. A script that raises makes its episode an infrastructure error
(the agent did not fail). A script must not grade or close the episode: the harness does.
"""

import asyncio
import importlib.util
import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from harness.api import Episode
from harness.episodes.manager import EpisodeSpec, LiveEpisode

Scenario = Callable[[Episode], Awaitable[None]]


class ScriptError(ValueError):
    """A scenario script that cannot be used: the message names the file and what was expected."""


@dataclass(frozen=True)
class ScenarioScript:
    name: str
    path: Path
    scenario: Scenario
    tasks: tuple[str, ...] = ()

    async def run(self, live: LiveEpisode) -> None:
        await self.scenario(Episode(live, asyncio.get_running_loop()))


def load_script(path: Path) -> ScenarioScript:
    """Import a scenario script from its file."""
    if not path.is_file():
        raise ScriptError(f"{path}: no such file (a scenario script is a .py file defining async scenario(ep))")
    name = re.sub(r"[^A-Za-z0-9_-]+", "_", path.stem)
    module_name = f"webchaos_scenario_{name}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ScriptError(f"{path}: not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise ScriptError(f"{path}: importing it raised {type(exc).__name__}: {exc}") from exc
    scenario: Any = getattr(module, "scenario", None)
    if scenario is None or not inspect.iscoroutinefunction(scenario):
        raise ScriptError(f"{path}: scenario: expected `async def scenario(ep)` (a coroutine function)")
    tasks = getattr(module, "TASKS", ())
    if isinstance(tasks, str) or not all(isinstance(t, str) for t in tasks):
        raise ScriptError(f"{path}: TASKS: expected a list of task ids, got {tasks!r}")
    return ScenarioScript(name=name, path=path.resolve(), scenario=scenario, tasks=tuple(tasks))


def with_script(specs: Sequence[EpisodeSpec], script: ScenarioScript) -> list[EpisodeSpec]:
    """Each planned episode, with the script beside its agent."""
    return [replace(spec, script=script) for spec in specs]

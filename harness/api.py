"""The public Python API, exported as the `webchaos` package.

    import webchaos

    async with webchaos.episode(task="shop_add_to_cart", variant="shop_cart_503_then_success", seed=3) as ep:
        run_my_agent(ep.instruction, ep.start_url, cdp_url=ep.cdp_url)   # or proxy=ep.proxy_url
        result = await ep.grade()
    print(result.success, result.score, ep.ledger())

`episode()` without a stack starts one (sites server + proxy, about a second) and stops it
on exit; to run many episodes, share one:

    async with webchaos.Stack() as stack:
        for seed in (1, 2, 3):
            async with stack.episode(task="shop_add_to_cart", seed=seed) as ep:
                ...

Episodes on one stack may run concurrently; each has its own proxy port, its own
server state and (with `cdp=True`, the default) its own Chromium with a fresh profile.
"""

import asyncio
import contextlib
import json
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Coroutine, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from harness.agents.base import AgentOutcome
from harness.agents.usage import Usage
from harness.config import RUNS_DIR, default_state_dir
from harness.episodes.control import EpisodeControl, FaultControlError, WebchaosError, wait_until
from harness.episodes.manager import EpisodeManager, EpisodeSpec, LiveEpisode, episode_id_for
from harness.run.results import EpisodeResult
from harness.run.runner import new_run_id
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from scenarios.answers import Answer, AnswerLike
from scenarios.chaos_profiles import ChaosProfile, load_profile
from scenarios.faults import FaultSpec
from scenarios.loader import Catalog, ScenarioError
from scenarios.schema import Task, Variant
from sites.registry import load_site_catalog

T = TypeVar("T")
__all__ = ["Episode", "FaultControlError", "Stack", "StackThread", "WebchaosError", "episode"]


class Episode:
    """One open episode. Give the agent `proxy_url` or `cdp_url`, `start_url` and `instruction`;
    then `await grade()`. Leaving the `async with` block closes it (graded or not)."""

    def __init__(self, live: LiveEpisode, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._live = live
        self._loop = loop  # the stack's event loop: its clients live there
        self._control = EpisodeControl(live)

    async def _on_stack_loop(self, work: Coroutine[Any, Any, T]) -> T:
        """Run on the stack's loop, awaited from any loop (a pytest-asyncio test, anyio, a thread's loop)."""
        if self._loop is None or self._loop is asyncio.get_running_loop():
            return await work
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self._loop))

    def _sync(self, work: Coroutine[Any, Any, T]) -> T:
        if self._loop is None or not self._loop.is_running():
            work.close()
            raise WebchaosError("the *_sync methods need a stack running on another thread (the pytest plugin's)")
        try:
            current: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            current = None
        if current is self._loop:
            work.close()
            raise WebchaosError("called a *_sync method on the stack's own event loop: await the async one")
        return asyncio.run_coroutine_threadsafe(work, self._loop).result()

    @property
    def id(self) -> str:
        return self._live.opened.episode_id

    @property
    def task(self) -> Task:
        return self._live.opened.spec.task

    @property
    def variant(self) -> Variant | None:
        return self._live.opened.spec.variant

    @property
    def seed(self) -> int:
        return self._live.opened.spec.seed

    @property
    def instruction(self) -> str:
        """What the user asks the agent to do, with the seeded world's names filled in."""
        return self._live.opened.instruction

    @property
    def start_url(self) -> str:
        return self._live.opened.start_url

    @property
    def proxy_url(self) -> str:
        """This episode's own HTTP proxy (http://127.0.0.1:<port>): the sites exist only behind it."""
        return self._live.opened.proxy_url

    @property
    def cdp_url(self) -> str:
        """The DevTools endpoint (http://127.0.0.1:<port>) of this episode's Chromium, already on the
        proxy and showing `start_url`. Raises `WebchaosError` for an episode opened with `cdp=False`."""
        url = self._live.cdp_url
        if url is None:
            raise WebchaosError(f"episode {self.id} has no browser: open it with cdp=True")
        return url

    @property
    def out_dir(self) -> Path:
        """The episode folder: episode.json, then trace.har, faults.jsonl, events.jsonl, result.json …"""
        return self._live.opened.out_dir

    @property
    def result(self) -> EpisodeResult | None:
        """The graded result once `grade()` has run."""
        return self._live.result

    @property
    def given_answer(self) -> Answer | None:
        """The answer given so far with `answer()` (None: none yet)."""
        return self._live.answer

    def answer(self, value: str | list[str] | None = None, *, infeasible: bool = False) -> Answer:
        """Give the agent's final answer now (text, or a list for a list question), or say that the task
        cannot be done (`infeasible=True`); the last answer given before `grade()` counts."""
        return self._live.give_answer(Answer(value=value, infeasible=infeasible))

    @property
    def usage(self) -> Usage | None:
        """What `report_usage()` has added up so far (None: nothing reported)."""
        return self._live.usage

    def report_usage(self, input_tokens: int | None = None, output_tokens: int | None = None,
                     cost_usd: float | None = None, model: str | None = None) -> Usage | None:
        """Report what the agent spent: any of tokens in and out, dollars, the model. Several calls add up
        (one per model call is fine); what is never reported shows as "not reported", not as zero. Kept in
        result.json (`outcome.usage`) and summed per agent in run.json and the report. Returns the total."""
        usage = Usage(input_tokens=input_tokens, output_tokens=output_tokens, cost_usd=cost_usd, model=model)
        return self._live.report_usage(usage)

    async def grade(self, outcome: AgentOutcome | None = None, *, answer: AnswerLike | None = None) -> EpisodeResult:
        """Close the browser and the proxy port, read the final server state and grade it (once), with
        `answer` (text, a list, or `webchaos.Answer(infeasible=True)`) or the one given by `answer()`."""
        return await self._on_stack_loop(self._live.grade(outcome, answer))

    def grade_sync(self, outcome: AgentOutcome | None = None, *, answer: AnswerLike | None = None) -> EpisodeResult:
        """`grade` for synchronous code (a Selenium test), with the stack on another thread."""
        return self._sync(self._live.grade(outcome, answer))

    async def close(self) -> None:
        """Close without grading (browser, proxy port; files kept). Nothing happens if already closed."""
        await self._on_stack_loop(self._live.finish())

    async def screenshots(self, prefix: str = "final") -> list[Path]:
        """Save a PNG of every tab of the episode's browser under screenshots/ (before `grade`)."""
        return await self._on_stack_loop(self._live.screenshots(prefix))

    # -- while it runs: faults armed and disarmed, progress watched (harness/episodes/control.py) --

    async def arm(self, fault: Mapping[str, Any] | FaultSpec) -> str:
        """Arm a fault from now on: an envelope exactly as in the catalog (a dict or a `FaultSpec`),
        network or client (at the proxy) or server (at the sites); seed faults only at open. Returns
        its id (the envelope's `id`, else `<type>@<n>`). Raises `FaultControlError` (`.status`: the
        4xx) for a bad envelope, a duplicate id or a closed episode."""
        return await self._on_stack_loop(self._control.arm(fault))

    async def disarm(self, fault_id: str) -> dict[str, Any]:
        """Take a fault off (armed at open or by `arm`); returns its counts (`eligible`, `fired`).
        `FaultControlError` (404) for an id the episode does not have."""
        return await self._on_stack_loop(self._control.disarm(fault_id))

    async def events(self) -> AsyncGenerator[dict[str, Any], None]:
        """The site's semantic events (`source: "site"`: kind, name, target, detail) and the agent's
        GUI actions (`source: "gui"`: kind, name = the target's accessible name, page, …) as they
        happen, from the episode's start; ends when the episode is closed. Each source comes in its
        own order (events by `seq`, actions as they arrived), without gaps or repeats. Both are read
        by long polls that the arrival answers (one at each end, shared by all of the episode's
        readers), so an event is yielded as soon as it happens."""
        index = 0
        while True:
            items, ended = await self._on_stack_loop(self._control.stream.after(index))
            index += len(items)
            for item in items:
                yield item
            if ended:
                return

    async def wait_for(self, kind: str | None = None, name: str | None = None, count: int = 1, *,
                       source: str | None = None, timeout_s: float = 60.0) -> dict[str, Any]:
        """Wait until the `count`-th event (counted from the episode's start) of `kind` (a semantic
        event kind such as `commit`, or a GUI action kind such as `click`) whose `name` matches
        (a glob) has happened; returns it. `TimeoutError` after `timeout_s`; `WebchaosError` if the
        episode closes first."""
        return await wait_until(self.events(), kind=kind, name=name, count=count, source=source,
                                timeout_s=timeout_s)

    def ledger(self) -> list[dict[str, Any]]:
        """The fault ledger (faults.jsonl): one dict per firing or refusal, all four layers. Complete
        after `grade()`; before it, the seed/server layers' lines are not in yet."""
        path = self.out_dir / "faults.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def __repr__(self) -> str:
        return f"<webchaos.Episode {self.id} proxy={self.proxy_url} start={self.start_url}>"


class Stack:
    """The sites server and the fault proxy, shared by any number of episodes.

    `https=True` serves the sites over HTTPS with the proxy's own CA (the episodes' Chromium
    trusts that CA alone). `catalog` adds scenario YAML files or folders to the built-in ones.
    Episode folders go under `run_dir` (default: runs/<timestamp>). `services`: services already
    running (`harness.services.processes.Services`), which this stack then neither starts nor stops: several
    stacks of one process, each with its own catalog and episode folders, share one sites server
    and proxy (starting them is most of what a stack costs)."""

    def __init__(self, *, https: bool = False, catalog: Catalog | Sequence[Path] = (), run_dir: Path | None = None,
                 state_dir: Path | None = None, headless: bool = True, services: Services | None = None) -> None:
        if services is not None and (https or state_dir is not None):
            raise ValueError("https and state_dir belong to the services given; set them there")
        self.catalog: Catalog = catalog if isinstance(catalog, Catalog) else load_site_catalog(*catalog)
        self._owns_services = services is None
        self.services = services or Services(state_dir=state_dir or default_state_dir(), https=https)
        self.run_dir = run_dir or RUNS_DIR / new_run_id()
        self.headless = headless
        self._manager: EpisodeManager | None = None
        self._clients: tuple[OracleClient, ControlClient] | None = None

    @property
    def https(self) -> bool:
        return self.services.https

    @property
    def spki_pins(self) -> list[str]:
        """With https: the proxy CA's SPKI hash, for `--ignore-certificate-errors-spki-list`."""
        return self.services.spki_pins

    @property
    def manager(self) -> EpisodeManager:
        if self._manager is None:
            raise WebchaosError("the stack is not started: use `async with webchaos.Stack() as stack`")
        return self._manager

    async def start(self) -> "Stack":
        if self._owns_services:
            await self.services.start()
        elif not self.services.secret:
            raise WebchaosError("the services given to this stack are not started: start them first")
        oracle = OracleClient(self.services.oracle_url, self.services.secret)
        control = ControlClient(self.services.control_url, self.services.secret)
        self._clients = (oracle, control)
        self._manager = EpisodeManager(oracle, control)
        return self

    async def stop(self) -> None:
        self._manager = None
        if self._clients is not None:
            for client in self._clients:
                await client.close()
            self._clients = None
        if self._owns_services:
            await self.services.stop()

    async def __aenter__(self) -> "Stack":
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.shield(self.stop())

    def spec(self, task: str | Task, variant: str | Variant | None = None, seed: int = 1,
             profile: str | ChaosProfile | None = None) -> EpisodeSpec:
        """Resolve ids against the catalog; a variant must apply to the task. `profile`: a chaos profile
        (a built-in name, a YAML path or a loaded `ChaosProfile`) laid over the episode."""
        task_obj = task if isinstance(task, Task) else self.catalog.tasks.get(task)
        if task_obj is None:
            raise WebchaosError(self.catalog.unknown("task", str(task)))
        variant_obj = variant if isinstance(variant, Variant) or variant is None else self.catalog.variants.get(variant)
        if variant is not None and variant_obj is None:
            raise WebchaosError(self.catalog.unknown("variant", str(variant)))
        if variant_obj is not None and task_obj.id not in variant_obj.tasks:
            raise WebchaosError(f"variant {variant_obj.id!r} does not apply to task {task_obj.id!r} "
                                f"(it applies to {', '.join(variant_obj.tasks)})")
        if isinstance(profile, str):
            try:
                profile = load_profile(profile)
            except ScenarioError as exc:
                raise WebchaosError(str(exc)) from exc
        return EpisodeSpec(task_obj, variant_obj, int(seed), profile=profile)

    async def open(self, task: str | Task, variant: str | Variant | None = None, seed: int = 1, *,
                   cdp: bool = True, agent: str = "api", chromium_args: Sequence[str] = (),
                   profile: str | ChaosProfile | None = None) -> Episode:
        """Open an episode; the caller must `await ep.grade()` or `await stack.close(ep)`.
        Prefer `async with stack.episode(...)`, which closes it for you."""
        spec = self.spec(task, variant, seed, profile)
        while True:
            # Numbered by the services, not the stack: an id must not come back on services another stack
            # shares (the proxy remembers closed episodes' ids, and refuses their feeds and faults).
            self.services.episodes_opened += 1
            episode_id = episode_id_for(spec, agent, self.services.episodes_opened)
            out_dir = self.run_dir / "episodes" / episode_id
            if not out_dir.exists():
                break
        live = await LiveEpisode.open(self.manager, spec, episode_id, out_dir, agent=agent, cdp=cdp,
                                      spki_pins=self.spki_pins, headless=self.headless,
                                      chromium_args=chromium_args)
        return Episode(live, asyncio.get_running_loop())

    async def close(self, episode: Episode) -> None:
        """Close an episode without grading it (its files are kept). Nothing happens if already closed."""
        await episode.close()

    @contextlib.asynccontextmanager
    async def episode(self, task: str | Task, variant: str | Variant | None = None, seed: int = 1, *,
                      cdp: bool = True, agent: str = "api", chromium_args: Sequence[str] = (),
                      profile: str | ChaosProfile | None = None) -> AsyncIterator[Episode]:
        """`async with stack.episode(task=…, variant=…, seed=…) as ep:` — see `Episode`.
        `chromium_args`: extra flags for the episode's Chromium; `profile`: a chaos profile laid over it."""
        opened = await self.open(task, variant, seed, cdp=cdp, agent=agent, chromium_args=chromium_args,
                                 profile=profile)
        try:
            yield opened
        finally:
            await asyncio.shield(self.close(opened))


class StackThread:
    """A `Stack` on an event loop of its own thread, so that code on any loop (pytest-asyncio, anyio,
    Inspect's per-sample loops) or on none can use its episodes: `Episode` methods hop to this loop.

        runner = StackThread(Stack()).start()
        ep = await runner.run(runner.stack.open("shop_add_to_cart"))   # from any loop
        ep = runner.call(runner.stack.open("shop_add_to_cart"))        # from synchronous code
        runner.stop()
    """

    def __init__(self, stack: Stack) -> None:
        self.stack = stack
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, name="webchaos-stack", daemon=True)

    def call(self, work: Coroutine[Any, Any, T], timeout_s: float = 120.0) -> T:
        """Run on the stack's loop and wait (from synchronous code, never from that loop)."""
        return asyncio.run_coroutine_threadsafe(work, self.loop).result(timeout_s)

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run on the stack's loop, awaited from the caller's loop."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    def start(self) -> "StackThread":
        self._thread.start()
        self.call(self.stack.start())
        return self

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        try:
            self.call(self.stack.stop())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()


@contextlib.asynccontextmanager
async def episode(task: str | Task, variant: str | Variant | None = None, seed: int = 1, *,
                  stack: Stack | None = None, cdp: bool = True, https: bool = False,
                  agent: str = "api", run_dir: Path | None = None,
                  state_dir: Path | None = None) -> AsyncIterator[Episode]:
    """One episode: `async with webchaos.episode(task=…, variant=…, seed=…) as ep:`.

    On `stack` if given; otherwise on a stack of its own, started here and stopped on exit
    (`https`, `run_dir` and `state_dir` are for that one)."""
    if stack is not None:
        async with stack.episode(task, variant, seed, cdp=cdp, agent=agent) as opened:
            yield opened
        return
    own = Stack(https=https, run_dir=run_dir, state_dir=state_dir)
    async with own, own.episode(task, variant, seed, cdp=cdp, agent=agent) as opened:
        yield opened

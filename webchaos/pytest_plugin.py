"""pytest plugin (entry point `pytest11`): put "our agent survives the checkout overlay" in a test suite.

    import pytest

    @pytest.mark.webchaos(task="shop_buy_by_seller", variants=["base", "shop_checkout_overlay"], seeds=[1, 2])
    async def test_agent_buys(webchaos_episode):            # or a plain `def` test: see grade_sync
        await my_agent.run(webchaos_episode.instruction, cdp_url=webchaos_episode.cdp_url)
        result = await webchaos_episode.grade()   # a question task: grade(answer="...")
        assert result.success, result.verdict.failures

The marker parametrises the test over variants × seeds (ids like `shop_checkout_overlay-s2`;
"base" or None is the task without faults; no `variants` means base + every default variant of the
task). `@pytest.mark.webchaos(suite="smoke")` runs the test once per episode of a suite instead
(ids like `shop_add_to_cart/base-s1`). `webchaos_episode` is an open `webchaos.Episode`: its own proxy, its own Chromium
(`cdp=False` in the marker to skip it) and state, closed after the test. One stack serves the
whole session; it runs on a thread of its own, so the episode works from any event loop
(pytest-asyncio, anyio) and from synchronous tests (`grade_sync()`). A failing test's report
names its episode folder (HAR, fault ledger, screenshots, result.json).

Options: `--webchaos-run-dir DIR` (default runs/pytest-<time>), `--webchaos-https`.
"""

from collections.abc import Generator, Iterator
from pathlib import Path

import pytest

from harness.api import Episode, Stack, StackThread
from harness.config import RUNS_DIR
from harness.run.runner import new_run_id

_EPISODE_KEY = pytest.StashKey[Episode]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("webchaos")
    group.addoption("--webchaos-run-dir", default=None, help="where webchaos episode folders go "
                    "(default: runs/pytest-<time>)")
    group.addoption("--webchaos-https", action="store_true", help="serve the sites over HTTPS")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "webchaos(task, variants=None, seeds=(1,), cdp=True): run the test once per "
        "(variant, seed) of a webchaos task, with the episode in the `webchaos_episode` fixture; or "
        "webchaos(suite='smoke', cdp=True): once per episode of a suite")


def _cases(marker: pytest.Mark) -> list[tuple[str, str | None, int]]:
    suite = marker.kwargs.get("suite")
    if suite is not None:
        if set(marker.kwargs) - {"suite", "cdp"} or marker.args:
            raise pytest.UsageError("@pytest.mark.webchaos(suite=...) fixes the tasks, variants and seeds: "
                                    "give nothing else but cdp")
        from scenarios.suites import load_suite

        try:
            return list(load_suite(str(suite)).episodes())
        except ValueError as exc:
            raise pytest.UsageError(f"@pytest.mark.webchaos: {exc}") from exc
    task = marker.kwargs.get("task") or (marker.args[0] if marker.args else None)
    if not isinstance(task, str):
        raise pytest.UsageError("@pytest.mark.webchaos needs task='<task id>' (or suite='<suite>')")
    variants = marker.kwargs.get("variants")
    if variants is None:
        from sites.registry import load_site_catalog

        variants = [None, *(v.id for v in load_site_catalog().variants_for(task, include_marked=False))]
    elif isinstance(variants, str):
        variants = [variants]
    seeds = marker.kwargs.get("seeds", (1,))
    seeds = [seeds] if isinstance(seeds, int) else list(seeds)
    return [(task, None if v in (None, "base") else str(v), int(seed)) for v in variants for seed in seeds]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    marker = metafunc.definition.get_closest_marker("webchaos")
    if marker is None or "webchaos_episode" not in metafunc.fixturenames:
        return
    cases = _cases(marker)
    many_tasks = len({task for task, _, _ in cases}) > 1
    ids = [f"{task + '/' if many_tasks else ''}{variant or 'base'}-s{seed}" for task, variant, seed in cases]
    metafunc.parametrize("webchaos_episode", cases, ids=ids, indirect=True)


@pytest.fixture(scope="session")
def webchaos_stack(pytestconfig: pytest.Config) -> Iterator[Stack]:
    """The sites server and the proxy for the whole session (started on first use)."""
    run_dir = pytestconfig.getoption("webchaos_run_dir")
    stack = Stack(https=bool(pytestconfig.getoption("webchaos_https")),
                  run_dir=Path(run_dir) if run_dir else RUNS_DIR / f"pytest-{new_run_id()}")
    runner = StackThread(stack).start()
    pytestconfig.stash[_RUNNER_KEY] = runner
    try:
        yield stack
    finally:
        runner.stop()


_RUNNER_KEY = pytest.StashKey[StackThread]()


@pytest.fixture
def webchaos_episode(request: pytest.FixtureRequest, webchaos_stack: Stack) -> Iterator[Episode]:
    """An open episode for the (task, variant, seed) chosen by `@pytest.mark.webchaos`; closed after the test."""
    if not hasattr(request, "param"):
        raise pytest.UsageError(f"{request.node.nodeid}: webchaos_episode needs @pytest.mark.webchaos(task=…)")
    task, variant, seed = request.param
    marker = request.node.get_closest_marker("webchaos")
    cdp = bool(marker.kwargs.get("cdp", True)) if marker is not None else True
    runner = request.config.stash[_RUNNER_KEY]
    episode = runner.call(webchaos_stack.open(task, variant, seed, cdp=cdp, agent="pytest"))
    request.node.stash[_EPISODE_KEY] = episode
    try:
        yield episode
    finally:
        runner.call(webchaos_stack.close(episode))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                               ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    episode = item.stash.get(_EPISODE_KEY, None)
    if episode is not None and report.when == "call" and report.failed:
        lines = [f"episode folder: {episode.out_dir}"]
        result = episode.result
        if result is not None and result.verdict is not None:
            lines.append(f"graded: success={result.success} score={result.score:.2f} firings={result.firings}")
            lines += [f"  failed: {failure}" for failure in result.verdict.failures]
        report.sections.append(("webchaos", "\n".join(lines)))
    return report

"""The pytest plugin as an agent team uses it: a marked test in their own suite, run by pytest."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

# A naive agent: one add-to-cart call through the episode's proxy, no retry. It passes the base
# task and fails the variant whose first cart call answers 503: the plugin must report both.
SYNC_SUITE = '''
import json, re, urllib.parse, urllib.request
import pytest

@pytest.mark.webchaos(task="shop_add_to_cart", variants=["base", "shop_cart_503_then_success"], seeds=[2], cdp=False)
def test_agent_adds_to_cart(webchaos_episode):
    ep = webchaos_episode
    name = re.search(r"Add one (.+?) to your", ep.instruction).group(1)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": ep.proxy_url}))
    page = opener.open(ep.start_url + "search?q=" + urllib.parse.quote(name), timeout=30).read().decode()
    product = re.search(r'href="/product/([A-Za-z0-9]+)"', page).group(1)
    request = urllib.request.Request(ep.start_url + "api/cart", method="POST",
        data=json.dumps({"product_id": product, "quantity": 1}).encode(), headers={"Content-Type": "application/json"})
    try:
        opener.open(request, timeout=30).read()
    except urllib.error.HTTPError:
        pass
    result = ep.grade_sync()
    assert result.success, result.verdict.failures
'''

ASYNC_SUITE = '''
import re
import pytest
from playwright.async_api import async_playwright

@pytest.mark.asyncio
@pytest.mark.webchaos(task="shop_add_to_cart", variants=["shop_product_click_swallow"])
async def test_agent_over_cdp(webchaos_episode):
    ep = webchaos_episode
    name = re.search(r"Add one (.+?) to your", ep.instruction).group(1)
    async with async_playwright() as playwright:
        page = (await playwright.chromium.connect_over_cdp(ep.cdp_url)).contexts[0].pages[0]
        await page.goto(ep.start_url + "search?q=" + name)
        await page.get_by_role("link", name=name, exact=True).first.click()
        button = page.get_by_role("button", name="Add to cart").first
        await button.click()            # swallowed by the fault
        await page.wait_for_timeout(300)
        await button.click()            # a careful agent clicks again
        await page.get_by_text("Added to cart").first.wait_for()
    result = await ep.grade()
    assert result.success, result.verdict.failures
    assert [e["type"] for e in ep.ledger() if e["layer"] == "client" and e["detail"].get("event") == "fired"] \\
        == ["click_swallow"]
'''


BAD_SUITE = "def test_x(webchaos_episode):\n    pass\n"


@pytest.fixture(scope="module")
def team_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[pytest.RunResult, Path]:
    """The three suites above as one team's test folder, run once by `pytest -v` in a process of its own (one
    webchaos stack for all of them, as the plugin gives a session; starting pytest and a stack for each suite
    took most of this module's time), and the folder its episodes were written to."""
    folder = tmp_path_factory.mktemp("team")
    for name, text in (("test_agent", SYNC_SUITE), ("test_cdp", ASYNC_SUITE), ("test_bad", BAD_SUITE)):
        (folder / f"{name}.py").write_text(text)
    run_dir = folder / "episodes"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER")}
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:xdist",
                           f"--basetemp={folder / 'basetemp'}", f"--webchaos-run-dir={run_dir}"],
                          cwd=folder, env={**env, "PY_COLORS": "0"}, capture_output=True, text=True, timeout=600)
    result = pytest.RunResult(done.returncode, done.stdout.splitlines(), done.stderr.splitlines(),
                              time.monotonic() - started)
    return result, run_dir


def outcomes_of(result: pytest.RunResult, test_file: str) -> list[str]:
    """The -v lines of one file's tests (`test_agent.py::… PASSED`)."""
    return [line for line in result.outlines if line.startswith(f"{test_file}::")]


def test_marker_parametrises_over_variants_and_reports_the_failing_episode(
        team_run: tuple[pytest.RunResult, Path]) -> None:
    result, run_dir = team_run
    result.assert_outcomes(passed=2, failed=1, errors=1)  # this suite's two episodes, and the two suites below
    assert [line.split()[1] for line in outcomes_of(result, "test_agent.py")] == ["PASSED", "FAILED"], \
        result.outlines
    result.stdout.fnmatch_lines([
        "*test_agent_adds_to_cart?base-s2? PASSED*",
        "*test_agent_adds_to_cart?shop_cart_503_then_success-s2? FAILED*",
        "*webchaos*", "*episode folder: *shop_cart_503_then_success*",
        "*graded: success=False score=0.00 firings=1*",
    ])
    suite = (None, "shop_cart_503_then_success")  # (the folder also holds the async suite's episode)
    results = sorted((r for r in (json.loads(p.read_text()) for p in run_dir.glob("episodes/*/result.json"))
                      if r["variant_id"] in suite), key=lambda r: r["variant_id"] or "")
    assert [(r["variant_id"], r["success"], r["firings"], r["agent"]) for r in results] == [
        (None, True, 0, "pytest"), ("shop_cart_503_then_success", False, 1, "pytest")]
    ledger = next(run_dir.glob("episodes/*503*/faults.jsonl")).read_text()
    assert '"type":"error_then_success"' in ledger


def test_async_test_drives_the_episodes_browser(team_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = team_run
    assert [line.split()[1] for line in outcomes_of(result, "test_cdp.py")] == ["PASSED"], result.outlines
    result.stdout.fnmatch_lines(["*test_agent_over_cdp?shop_product_click_swallow-s1? PASSED*"])


def test_fixture_without_the_marker_is_a_usage_error(team_run: tuple[pytest.RunResult, Path]) -> None:
    result, _ = team_run
    assert [line.split()[1] for line in outcomes_of(result, "test_bad.py")] == ["ERROR"], result.outlines
    result.stdout.fnmatch_lines(["*needs @pytest.mark.webchaos*"])

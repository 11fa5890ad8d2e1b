"""The public API (`import webchaos`) and the CDP hand-off, end to end: real stack, real Chromium."""

import asyncio
import json
import os
import re
import signal
import sys
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Page, async_playwright

import webchaos
from harness.agents import agents_from_specs
from harness.config import PROJECT_ROOT
from harness.run.runner import run_matrix
from harness.services.processes import Services
from tests.harness.episodes import jsonl

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

CDP_AGENT = f"{sys.executable} {PROJECT_ROOT / 'examples' / 'playwright_cdp_agent.py'}"


def _target(instruction: str) -> str:
    found = re.search(r"Add one (.+?) to your shopping cart", instruction)
    assert found, instruction
    return found.group(1)


async def _add_to_cart(page: Page, name: str) -> str:
    """Search, open the product, click Add to cart once; returns what the page said."""
    await page.get_by_role("searchbox", name="Search products").fill(name)
    await page.get_by_role("searchbox", name="Search products").press("Enter")
    await page.get_by_role("link", name=name, exact=True).first.click()
    await page.get_by_role("button", name="Add to cart").first.click()
    said = page.get_by_text("Added to cart").or_(page.get_by_role("alert").filter(has_text=re.compile(r"\w")))
    await said.first.wait_for(timeout=10_000)
    return (await said.first.inner_text()).strip()


async def test_episode_over_cdp_base_passes_and_variant_fault_is_fired_and_graded(api_stack: webchaos.Stack) -> None:
    outcomes = {}
    for variant in (None, "shop_cart_503_then_success"):
        async with api_stack.episode(task="shop_add_to_cart", variant=variant, seed=2) as ep, \
                async_playwright() as playwright:
            assert ep.cdp_url.startswith("http://127.0.0.1:") and ep.proxy_url != ep.cdp_url
            browser = await playwright.chromium.connect_over_cdp(ep.cdp_url)
            (page,) = browser.contexts[0].pages  # one tab, already at the start URL
            assert page.url == ep.start_url
            said = await _add_to_cart(page, _target(ep.instruction))
            result = await ep.grade()
            assert await ep.grade() is result  # graded once
            outcomes[variant] = (said, result, ep.ledger(), ep.out_dir)
    said, base, ledger, folder = outcomes[None]
    assert said == "Added to cart" and base.success and base.score == 1.0, base.verdict
    assert not [e for e in ledger if e["layer"] != "guard"]
    # The proxy's recorder script ran in the CDP browser as in any page: the clicks are recorded.
    assert "click" in {a["kind"] for a in jsonl(folder / "actions.jsonl")}
    said, variant_result, ledger, folder = outcomes["shop_cart_503_then_success"]
    assert "Could not add" in said
    fired = [e for e in ledger if e["layer"] == "network"]
    assert [(e["type"], e["request"]["path"]) for e in fired] == [("error_then_success", "/api/cart")]
    assert variant_result.firings == 1
    assert not variant_result.success and variant_result.score < 1.0
    assert any(not g.passed and g.name == "target in cart" for g in variant_result.verdict.subgoals)  # type: ignore[union-attr]
    assert json.loads((folder / "result.json").read_text())["agent"] == "api"


async def test_episodes_on_one_stack_are_isolated(api_stack: webchaos.Stack) -> None:
    """Two episodes at once: cookies, storage, tabs and traffic of one never reach the other."""
    async with api_stack.episode("shop_add_to_cart", seed=1) as first, \
            api_stack.episode("shop_add_to_cart", seed=1) as second, async_playwright() as playwright:
        assert first.cdp_url != second.cdp_url and first.proxy_url != second.proxy_url
        one = await playwright.chromium.connect_over_cdp(first.cdp_url)
        page = one.contexts[0].pages[0]
        await page.goto("http://shop.test/?marker=first-episode")
        await page.evaluate("localStorage.setItem('who', 'first'); document.cookie = 'who=first; path=/'")
        await page.context.new_page()
        await _add_to_cart(page, _target(first.instruction))
        assert {c["name"] for c in await one.contexts[0].cookies()} >= {"who"}

        two = await playwright.chromium.connect_over_cdp(second.cdp_url)
        (other,) = two.contexts[0].pages
        assert other.url == second.start_url
        assert "who" not in {c["name"] for c in await two.contexts[0].cookies()}
        assert await other.evaluate("localStorage.getItem('who')") is None
        await other.goto(second.start_url + "cart")
        assert await other.get_by_role("link", name=_target(first.instruction)).count() == 0
        first_result, second_result = await first.grade(), await second.grade()
    assert first_result.success and not second_result.success
    second_har = (second.out_dir / "trace.har").read_text()
    assert "marker=first-episode" in (first.out_dir / "trace.har").read_text()
    assert "marker=first-episode" not in second_har and "/cart" in second_har


async def test_a_stack_over_given_services_leaves_them_to_their_owner(api_stack: webchaos.Stack,
                                                                       tmp_path: Path) -> None:
    """More stacks on the same services open episodes into their own folders, never under an id another
    has used (the proxy refuses a closed episode's id), and, stopped, stop nothing."""
    ids = []
    for name in ("second", "third"):
        async with webchaos.Stack(services=api_stack.services, run_dir=tmp_path / name) as more, \
                more.episode("shop_add_to_cart", seed=2, cdp=False) as ep:
            assert ep.out_dir.parent == tmp_path / name / "episodes"
            await ep.arm({"type": "latency", "layer": "network", "params": {"delay_ms": 1}})
            ids.append(ep.id)
    assert len(set(ids)) == 2, ids
    async with api_stack.episode("shop_add_to_cart", seed=2, cdp=False) as ep, aiohttp.ClientSession() as session:
        async with session.get(ep.start_url, proxy=ep.proxy_url) as response:
            assert response.status == 200
    with pytest.raises(ValueError, match="belong to the services given"):
        webchaos.Stack(services=api_stack.services, https=True)
    with pytest.raises(webchaos.WebchaosError, match="not started"):
        await webchaos.Stack(services=Services(state_dir=tmp_path / "state")).start()


async def test_episode_without_a_stack_starts_and_stops_its_own(tmp_path: Path) -> None:
    async with webchaos.episode(task="shop_add_to_cart", seed=4, cdp=False, run_dir=tmp_path / "run",
                                state_dir=tmp_path / "state") as ep:
        with pytest.raises(webchaos.WebchaosError, match="no browser"):
            _ = ep.cdp_url
        async with aiohttp.ClientSession() as session:
            async with session.get(ep.start_url, proxy=ep.proxy_url) as response:
                assert response.status == 200
        result = await ep.grade()
    assert not result.success and result.outcome.status == "done"
    assert (tmp_path / "run" / "episodes" / ep.id / "result.json").is_file()
    with pytest.raises(webchaos.WebchaosError, match="does not apply"):
        async with webchaos.episode(task="shop_add_to_cart", variant="shop_checkout_overlay"):
            pass


async def test_run_with_cdp_browser_and_named_agent(api_stack: webchaos.Stack, tmp_path: Path) -> None:
    specs = [api_stack.spec("shop_add_to_cart", variant, 3) for variant in (None, "shop_cart_503_then_success")]
    (agent,) = agents_from_specs([f"scripted=cmd:{CDP_AGENT}"], browser="cdp")
    summary, run_dir = await run_matrix(specs, [agent], runs_dir=tmp_path, stack=api_stack.services,
                                        concurrency=2, time_budget_s=60)
    base, variant = sorted(summary.episodes, key=lambda r: r.variant_id or "")
    assert {r.agent for r in summary.episodes} == {"scripted"}
    log = (run_dir / "episodes" / base.episode_id / "agent.log").read_text()
    assert base.success and base.outcome.status == "done", log
    assert not variant.success and variant.outcome.status == "error" and variant.firings == 1
    shots = {r.variant_id: sorted(p.name for p in (run_dir / "episodes" / r.episode_id / "screenshots").iterdir())
             for r in summary.episodes}
    assert shots == {None: ["final.png"], "shop_cart_503_then_success": ["failed.png"]}
    ledger = jsonl(run_dir / "episodes" / variant.episode_id / "faults.jsonl")
    assert ["error_then_success"] == [e["type"] for e in ledger if e["layer"] == "network"]
    saved = json.loads((run_dir / "run.json").read_text())
    assert saved["agents"] == [{"name": "scripted", "kind": "command", "command": CDP_AGENT, "browser": "cdp"}]
    report = (run_dir / "report.html").read_text()
    assert "scripted" in report and "its own Chromium over CDP" in report


async def test_up_cdp_prints_a_cdp_url_an_agent_can_drive(tmp_path: Path) -> None:
    env = {**os.environ, "WEBCHAOS_STATE_DIR": str(tmp_path / "state"), "COLUMNS": "300"}
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "harness.cli.main", "up", "--cdp", "--task", "shop_add_to_cart", "--seed", "6",
        "--runs-dir", str(tmp_path / "runs"),
        cwd=PROJECT_ROOT, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT)
    assert process.stdout is not None
    try:
        lines: list[str] = []
        while "Press Enter" not in "".join(lines[-1:]):
            lines.append((await asyncio.wait_for(process.stdout.readline(), 60)).decode())
            assert lines[-1], "".join(lines)
        text = "".join(lines)
        cdp = re.search(r"CDP URL\s+(http://127\.0\.0\.1:\d+)", text)
        instruction = re.search(r"instruction\s+(.+?)\s*│", text)
        usage_file = re.search(r"usage file\s+(\S+usage\.json)", text)
        assert cdp and instruction and usage_file, text
        async with async_playwright() as playwright:
            browser = await playwright.chromium.connect_over_cdp(cdp.group(1))
            assert await _add_to_cart(browser.contexts[0].pages[0], _target(instruction.group(1))) == "Added to cart"
        Path(usage_file.group(1)).write_text('{"input_tokens": 1200, "output_tokens": 80, "model": "mine"}')
        process.send_signal(signal.SIGTERM)
        rest = (await asyncio.wait_for(process.stdout.read(), 60)).decode()
        await asyncio.wait_for(process.wait(), 30)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert process.returncode == 0, rest
    assert "success score 1.00" in rest
    (result,) = (tmp_path / "runs").glob("*/episodes/*/result.json")
    assert json.loads(result.read_text())["outcome"]["usage"] == {
        "input_tokens": 1200, "output_tokens": 80, "cost_usd": None, "model": "mine"}


async def test_cdp_browser_trusts_the_https_proxy_ca(tmp_path: Path) -> None:
    """With https, the episode's Chromium is pinned to the proxy's CA: https://<site> loads, no warning."""
    async with webchaos.Stack(https=True, state_dir=tmp_path / "state", run_dir=tmp_path / "run") as stack, \
            stack.episode("shop_add_to_cart", seed=1) as ep, async_playwright() as playwright:
        assert ep.start_url.startswith("https://") and stack.spki_pins
        page = (await playwright.chromium.connect_over_cdp(ep.cdp_url)).contexts[0].pages[0]
        assert page.url == ep.start_url
        # A certificate error would show Chromium's interstitial instead of the shop (and this would time out).
        await page.get_by_role("searchbox", name="Search products").wait_for(timeout=20_000)
        response = await page.goto(ep.start_url + "cart")
        assert response is not None and response.ok

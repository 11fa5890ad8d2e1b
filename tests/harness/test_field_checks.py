"""human_check (before a page, and before an action) and bot_wall in real headless Chromium through the real
stack: each fires, the agent without recovery stops at it, the reference agent gets past it through the page,
and the HAR, the faults ledger and the actions log show it (also over HTTPS)."""

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from harness.agents import ReferenceAgent
from harness.agents.moves import MoveContext
from harness.agents.moves.checks import solve_human_check, wait_out_browser_check
from harness.browser.pool import BrowserPool
from harness.episodes.manager import EpisodeManager, EpisodeSpec
from harness.run.runner import run_matrix
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from scenarios.ledger import is_firing
from scenarios.recipes import expand_recipe
from scenarios.schema import Variant
from sites.registry import profiles
from tests.catalog import builtin_catalog
from tests.harness.episodes import Ran, episode_dir, jsonl, run_to_the_fault

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
TASK = "shop_add_to_cart"
CATALOG = builtin_catalog()  # with the recipes expanded onto the sites' tasks
# variant -> (status of the interstitial, what its page says, the move's words in the agent's log)
VARIANTS = {
    f"page_human_check_word@{TASK}": (403, "Verify you are human", "typed the word shown"),
    f"page_human_check_checkbox@{TASK}": (403, "Verify you are human", "ticked the box"),
    f"page_human_check_slider@{TASK}": (403, "Verify you are human", "slid the slider to the end"),
    f"page_bot_wall@{TASK}": (503, "Checking your browser", "waited out a browser check"),
}
BEFORE_ACTION = f"commit_human_check@{TASK}"  # the client check: a dialog the click on Add to cart opens
# The same dialog where the step's expected text is on the page already (mail's "Snoozed" folder link): the
# claim is found missing where the write shows, and the check is what is in the way.
CLAIMED = "commit_human_check@mail_snooze_until_monday"


def variant(variant_id: str) -> Variant:
    """The recipe's variant on the task, also when the recipe budget leaves it out of the catalog (the test runs
    every check recipe on one task)."""
    if variant_id in CATALOG.variants:
        return CATALOG.variants[variant_id]
    recipe_id, task_id = variant_id.split("@")
    [made] = expand_recipe(CATALOG.recipes[recipe_id], {task_id: CATALOG.tasks[task_id]}, profiles())
    return made


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runs(stack: Services, tmp_path_factory: pytest.TempPathFactory) -> Ran:
    """Every recipe's variant on the shop × the reference agent with recovery off and on, seed 1."""
    specs = [EpisodeSpec(CATALOG.tasks[TASK], variant(v), 1) for v in [*VARIANTS, BEFORE_ACTION]]
    specs.append(EpisodeSpec(CATALOG.tasks[CLAIMED.split("@")[1]], variant(CLAIMED), 1))
    return await run_to_the_fault(specs, [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)],
                                  tmp_path_factory.mktemp("runs"), stack, concurrency=4)


def ledger_of(folder: Path) -> list[dict[str, Any]]:
    return [x for x in jsonl(folder / "faults.jsonl") if x["layer"] == "network"]


@pytest.mark.parametrize("variant", list(VARIANTS))
async def test_the_agent_without_recovery_stops_at_the_check(runs: Ran, variant: str) -> None:
    off, folder = runs[(variant, "reference-no-recovery")]
    assert off.outcome.status == "failed" and not off.success, off.outcome
    assert off.outcome.steps_done == 1  # the first page loaded: the check, not the page asked for
    fired = ledger_of(folder)
    assert sum(is_firing(x) for x in fired) == 1 and not any(x["detail"].get("note") == "passed" for x in fired)


@pytest.mark.parametrize("variant", list(VARIANTS))
async def test_the_reference_agent_gets_past_the_check_through_the_page(runs: Ran, variant: str) -> None:
    status, says, move = VARIANTS[variant]
    on, folder = runs[(variant, "reference")]
    assert on.success, (on.outcome, on.verdict)
    assert any(line.startswith("recover: ") and move in line for line in on.outcome.log), on.outcome.log
    fired = ledger_of(folder)
    kind = fired[0]["type"]
    assert [x["detail"].get("note") for x in fired] == [None, "passed"]  # shown once, then passed
    assert fired[0]["request"] == {"method": "GET", "host": "shop.test", "path": "/"}
    entries = json.loads((folder / "trace.har").read_text())["log"]["entries"]
    pages = [e for e in entries if e["request"]["method"] == "GET" and e["request"]["url"].split("?")[0]
             == "http://shop.test/"]
    assert pages[0]["response"]["status"] == status
    assert says in pages[0]["response"]["content"].get("text", "")
    assert pages[0]["_webchaos"][0]["type"] == kind
    assert 200 in [e["response"]["status"] for e in pages[1:]]  # then the page asked for
    actions = jsonl(folder / "actions.jsonl")
    on_check = [a for a in actions if a["t_ms"] < next(a["t_ms"] for a in actions if a["kind"] == "input"
                                                       and a["target"].get("role") == "searchbox")]
    if kind == "human_check":  # the solve is the agent's own actions on the check page
        assert any(a["kind"] == "click" and a["target"].get("name") == "Continue" for a in on_check), on_check
    if variant.startswith("page_human_check_word"):
        typed = [a for a in on_check if a["kind"] == "input" and a["target"].get("name") == "Word"]
        assert typed and typed[-1]["value"] == fired[0]["detail"]["word"]


def client_ledger(folder: Path) -> list[dict[str, Any]]:
    return [x["detail"] for x in jsonl(folder / "faults.jsonl")
            if x["layer"] == "client" and x["detail"].get("event") != "injected"]


async def test_without_recovery_the_check_before_the_action_leaves_it_undone(runs: Ran) -> None:
    off, folder = runs[(BEFORE_ACTION, "reference-no-recovery")]
    assert off.outcome.status == "failed" and not off.success, off.outcome
    assert off.outcome.steps_done > 1  # it got to the product page: the check stood before the click only
    assert [d["event"] for d in client_ledger(folder)] == ["fired"]
    cart_writes = [e for e in json.loads((folder / "trace.har").read_text())["log"]["entries"]
                   if e["request"]["method"] == "POST" and "/cart" in e["request"]["url"]]
    assert cart_writes == []  # the held click never reached the site


async def test_the_reference_agent_solves_the_check_and_its_held_click_goes_through(runs: Ran) -> None:
    on, folder = runs[(BEFORE_ACTION, "reference")]
    assert on.success, (on.outcome, on.verdict)
    assert any(line.startswith("recover: ") and "solved a human check before the action" in line
               for line in on.outcome.log), on.outcome.log
    fired, solved = client_ledger(folder)
    assert (fired["event"], fired["info"]["mode"], solved["event"], solved["via"]) == (
        "fired", "word", "dismissed", "solved")
    actions = jsonl(folder / "actions.jsonl")
    typed = [a for a in actions if a["kind"] == "input" and a["target"].get("name") == "Word"]
    assert typed and typed[-1]["value"] == fired["info"]["word"]  # read off the dialog, typed by the agent
    solve_at = next(a["t_ms"] for a in actions if a["kind"] == "click" and a["target"].get("name") == "Continue")
    assert solve_at > typed[-1]["t_ms"]
    entries = json.loads((folder / "trace.har").read_text())["log"]["entries"]
    cart_writes = [e for e in entries if e["request"]["method"] == "POST" and "/cart" in e["request"]["url"]]
    # the add reaches the site once the check is solved (on a loaded machine the agent may click again when
    # its wait for the cart runs out before the released write is answered: a count here would time the
    # machine; the grader judged the cart above)
    assert cart_writes, "no add to the cart reached the site"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def manager(stack: Services) -> AsyncIterator[tuple[EpisodeManager, BrowserPool]]:
    pool = await BrowserPool().start()
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    yield EpisodeManager(oracle, control, record_replay=False), pool
    await pool.stop()
    await oracle.close()
    await control.close()


async def test_a_check_behind_a_claimed_success_is_solved_not_dismissed(runs: Ran) -> None:
    on, _ = runs[(CLAIMED, "reference")]
    assert on.success, (on.outcome, on.verdict)
    recovered = [line for line in on.outcome.log if line.startswith("recover: ")]
    solved = ("typed the word shown", "ticked the box", "slid the slider")  # not "dismissed dialog (Continue)"
    assert recovered and any(words in recovered[0] for words in solved), on.outcome.log


async def test_a_wrong_word_shows_an_error_and_a_new_challenge_and_the_right_one_returns_to_the_page(
        manager: tuple[EpisodeManager, BrowserPool], tmp_path: Path) -> None:
    episodes, pool = manager
    check = {"id": "hc", "type": "human_check", "layer": "network",
             "match": {"host": "shop.test", "methods": ["GET"]}, "params": {"mode": "word"}}
    variant = Variant(id="probe", title="probe", tasks=[TASK], faults=[check], target_primitive="planning")
    episode = await episodes.open(EpisodeSpec(CATALOG.tasks[TASK], variant, 2), "checks-probe", tmp_path)
    context = await pool.new_context(episode.proxy_url)
    try:
        page = await context.new_page()
        page.set_default_timeout(10_000)
        await page.goto("http://shop.test/search?q=lamp", wait_until="domcontentloaded")
        await page.get_by_role("heading", name="Verify you are human").wait_for()
        await page.get_by_role("textbox", name="Word").fill("definitely-wrong")
        await page.get_by_role("button", name="Continue").click()
        await page.get_by_role("alert").filter(has_text="That was not the word shown").wait_for()
        assert "Reference: 0002" in await page.locator("footer").inner_text()  # a new challenge
        shown = (await page.locator(".prompt strong").inner_text()).strip()
        await page.get_by_role("textbox", name="Word").fill(shown)
        await page.get_by_role("button", name="Continue").click()
        await page.get_by_role("searchbox", name="Search products").wait_for()
        assert page.url == "http://shop.test/search?q=lamp"  # the page first asked for, query and all
    finally:
        await context.close()
        await episodes.close(episode)
    notes = [x["detail"].get("note") for x in jsonl(tmp_path / "faults.jsonl") if x["layer"] == "network"]
    assert notes == [None, "wrong answer", "passed"]


async def test_a_wrong_word_in_the_dialog_gets_the_next_one_and_the_same_seed_shows_the_same_words(
        runs: Ran, manager: tuple[EpisodeManager, BrowserPool], tmp_path: Path) -> None:
    fired = client_ledger(runs[(BEFORE_ACTION, "reference")][1])[0]
    episodes, pool = manager
    episode = await episodes.open(EpisodeSpec(CATALOG.tasks[TASK], variant(BEFORE_ACTION), 1),
                                  "dialog-probe", tmp_path)
    context = await pool.new_context(episode.proxy_url)
    try:
        page = await context.new_page()
        page.set_default_timeout(10_000)
        await page.goto(f"http://shop.test{fired['page']}", wait_until="domcontentloaded")
        await page.get_by_role("button", name="Add to cart").first.click()
        dialog = page.get_by_role("dialog", name="Verify you are human")
        shown = dialog.locator("strong")
        first = (await shown.inner_text()).strip()
        assert first == fired["info"]["word"]  # the same seed's page: the same word as the agent's run
        await dialog.get_by_role("textbox", name="Word").fill("definitely-wrong")
        await dialog.get_by_role("button", name="Continue").click()
        await dialog.get_by_role("alert").filter(has_text="That was not the word shown").wait_for()
        second = (await shown.inner_text()).strip()
        assert second != first
        await dialog.get_by_role("textbox", name="Word").fill(second)
        async with page.expect_request(lambda r: r.method == "POST" and "/cart" in r.url):
            await dialog.get_by_role("button", name="Continue").click()
        await dialog.wait_for(state="detached")
    finally:
        await context.close()
        await episodes.close(episode)
    events = client_ledger(tmp_path)
    assert [(e["event"], e.get("via")) for e in events] == [("fired", None), ("dismissed", "solved")]
    assert events[1]["info"]["tries"] == 2


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def https_stack(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Services]:
    running = Services(state_dir=tmp_path_factory.mktemp("state-https"), https=True)
    await running.start()
    yield running
    await running.stop()


async def test_a_human_check_over_https(https_stack: Services, tmp_path: Path) -> None:
    spec = EpisodeSpec(CATALOG.tasks[TASK], variant(f"page_human_check_slider@{TASK}"), 1)
    summary, _ = await run_matrix([spec], [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)],
                                  runs_dir=tmp_path, stack=https_stack, concurrency=2, time_budget_s=90,
                                  record_replay=False)
    on, off = sorted(summary.episodes, key=lambda r: r.agent)
    assert on.success and not off.success, (on.outcome, off.outcome)
    entries = json.loads((episode_dir(tmp_path, on) / "trace.har").read_text())["log"]["entries"]
    answered = [e for e in entries if "__webchaos_check=" in e["request"]["url"]]
    assert [(e["request"]["url"].split("?")[0], e["response"]["status"]) for e in answered] == [
        ("https://shop.test/", 303)]
    assert [h["value"] for h in answered[0]["response"]["headers"] if h["name"].lower() == "location"] == ["/"]


async def test_the_moves_leave_an_ordinary_page_alone(manager: tuple[EpisodeManager, BrowserPool],
                                                      tmp_path: Path) -> None:
    episodes, pool = manager
    episode = await episodes.open(EpisodeSpec(CATALOG.tasks[TASK], None, 1), "checks-plain", tmp_path)
    context = await pool.new_context(episode.proxy_url)
    try:
        page = await context.new_page()
        await page.goto("http://shop.test/", wait_until="domcontentloaded")
        step = CATALOG.tasks[TASK].plan[1]
        assert await solve_human_check(page, step, MoveContext()) is None
        assert await wait_out_browser_check(page, step, MoveContext()) is None
    finally:
        await context.close()
        await episodes.close(episode)
    assert not jsonl(tmp_path / "actions.jsonl") or all(a["kind"] in ("tab_open", "navigation")
                                                         for a in jsonl(tmp_path / "actions.jsonl"))

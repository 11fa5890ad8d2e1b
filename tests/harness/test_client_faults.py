"""Client faults and the GUI-action recorder in real headless Chromium, on the shop, through the real stack."""

import asyncio
import json
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import pytest
import pytest_asyncio
from playwright.async_api import Page

from harness.agents import ReferenceAgent
from harness.browser.pool import BrowserPool
from harness.episodes.manager import EpisodeManager, EpisodeSpec, OpenEpisode
from harness.run.results import EpisodeResult
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from scenarios.faults import lookup
from scenarios.schema import Variant
from scenarios.secret import SECRET_HEADER
from tests.catalog import builtin_catalog
from tests.harness.episodes import run_to_the_fault

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]
CATALOG = builtin_catalog()
ADD = {"role": "button", "name": "Add to cart"}


@dataclass
class Env:
    stack: Services
    pool: BrowserPool
    manager: EpisodeManager
    control: ControlClient
    oracle: OracleClient


@asynccontextmanager
async def browsers_and_clients(stack: Services) -> AsyncIterator[Env]:
    """A test module's browsers and clients, on the test process's shared stack (tests/conftest.py)."""
    pool = await BrowserPool().start()
    oracle = OracleClient(stack.oracle_url, stack.secret)
    control = ControlClient(stack.control_url, stack.secret)
    try:
        yield Env(stack, pool, EpisodeManager(oracle, control, record_replay=False), control, oracle)
    finally:
        await pool.stop()
        await oracle.close()
        await control.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def env(stack: Services) -> AsyncIterator[Env]:
    async with browsers_and_clients(stack) as opened:
        yield opened


@dataclass
class Probe:
    page: Page
    episode: OpenEpisode
    console: list[str] = field(default_factory=list)

    @property
    def target(self) -> dict[str, Any]:
        return dict(self.episode.bindings["target"])

    def url(self, path: str) -> str:
        return "http://shop.test" + path

    async def product(self) -> None:
        await self.page.goto(self.url(f"/product/{self.target['id']}"), wait_until="domcontentloaded")

    def ledger(self) -> list[dict[str, Any]]:
        file = self.episode.out_dir / "faults.jsonl"
        return [json.loads(x) for x in file.read_text().splitlines()] if file.exists() else []

    def events(self, fault_id: str) -> list[str]:
        return [x["detail"]["event"] for x in self.ledger() if x["fault_id"] == fault_id]

    async def wait_event(self, fault_id: str, event: str, count: int = 1, timeout_s: float = 8) -> None:
        deadline = time.monotonic() + timeout_s
        while self.events(fault_id).count(event) < count:
            if time.monotonic() > deadline:
                raise AssertionError(f"{fault_id}: {count}× {event!r} not in {self.events(fault_id)}")
            await asyncio.sleep(0.05)

    def detail(self, fault_id: str, event: str = "fired") -> dict[str, Any]:
        return next(x["detail"] for x in self.ledger() if x["fault_id"] == fault_id and x["detail"]["event"] == event)


Script = Callable[[Probe], Awaitable[None]]
_counter = iter(range(10_000))


async def probe(env: Env, out: Path, faults: list[dict[str, Any]], script: Script,
                task: str = "shop_add_to_cart", seed: int = 1) -> Probe:
    kinds = [lookup(f["type"], "client") for f in faults]
    variant = Variant(id="probe", title="probe", tasks=[task], faults=faults,
                      target_primitive=kinds[0].primitive if kinds[0] else "grounding") if faults else None
    episode = await env.manager.open(EpisodeSpec(CATALOG.tasks[task], variant, seed), f"cf-{next(_counter)}", out)
    context = await env.pool.new_context(episode.proxy_url)
    page = await context.new_page()
    page.set_default_timeout(10_000)
    found = Probe(page, episode)
    page.on("console", lambda m: found.console.append(f"{m.type}: {m.text}") if m.type == "error"
            and not m.location.get("url", "").endswith("/favicon.ico") else None)
    page.on("pageerror", lambda e: found.console.append(f"pageerror: {e}"))
    try:
        await script(found)
        await _reports_arrived(found)
    finally:
        await context.close()
        await env.manager.close(episode)
    return found


async def _reports_arrived(p: Probe, timeout_s: float = 5) -> None:
    """The page reports firings asynchronously (fetch/sendBeacon): before the episode closes, wait
    until every fault injected on the last page has said whether it fired."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        lines = [x for x in p.ledger() if x["layer"] == "client"]
        injected = {x["fault_id"] for x in lines if x["detail"].get("event") == "injected"}
        settled = {x["fault_id"] for x in lines if x["detail"].get("event") in ("fired", "target_missing")}
        if injected <= settled:
            return
        await asyncio.sleep(0.05)


def fault(type: str, fid: str, match: dict[str, Any] | None = None, path: str = "/product/*",
          **params: Any) -> dict[str, Any]:
    return {"id": fid, "type": type, "layer": "client", "match": {"host": "shop.test", "path": path, **(match or {})},
            "params": params}


async def status_text(p: Probe) -> str:
    return (await p.page.locator("form[data-add-to-cart] [data-status]").text_content() or "").strip()


# -- each fault fires as configured, and the ledger says what it touched -------------------------------------------


async def test_overlay_blocks_and_returns_once(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        dialog = p.page.get_by_role("dialog", name="We value your privacy")
        await dialog.wait_for(state="visible")
        await p.page.get_by_role("button", name="Accept all").click()
        await dialog.wait_for(state="detached")
        await dialog.wait_for(state="visible", timeout=4000)  # it comes back, once
        await p.page.get_by_role("button", name="Close").click()
        await dialog.wait_for(state="detached")
        await p.page.wait_for_timeout(1500)
        assert not await dialog.count()
        await p.wait_event("ov", "dismissed", 2)

    p = await probe(env, tmp_path, [fault("overlay", "ov", ADD, returns_once=True, delay_ms=100)], script)
    assert p.events("ov") == ["injected", "fired", "dismissed", "fired", "dismissed"]
    assert [x["detail"].get("occurrence") for x in p.ledger()[1:]] == [1, 1, 2, 2]
    assert [x["detail"].get("via") for x in p.ledger()[1:]] == [None, "dismiss", None, "close"]
    assert p.detail("ov")["touched"]["name"] == "Add to cart"


async def test_distractor_modal_cta_leads_away(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.page.get_by_role("dialog", name="Quick question!").wait_for()
        await p.page.get_by_role("button", name="Take the survey").click()
        await p.page.wait_for_url(lambda u: u.endswith("/?survey=1"))
        await p.wait_event("dm", "hit")

    p = await probe(env, tmp_path, [fault("distractor_modal", "dm")], script)
    assert p.events("dm") == ["injected", "fired", "hit"]
    assert p.detail("dm", "hit")["info"] == {"path": "/?survey=1"}


async def test_required_step_holds_the_click_until_the_box_is_ticked(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        add = p.page.get_by_role("button", name="Add to cart")
        dialog = p.page.get_by_role("dialog", name="One more step")
        go = dialog.get_by_role("button", name="Continue")
        await add.click()
        await dialog.wait_for()
        assert await go.is_disabled()
        await dialog.get_by_role("button", name="Cancel").click()
        await dialog.wait_for(state="detached")
        await p.page.wait_for_timeout(300)
        assert await status_text(p) == ""  # cancelled: the click did not go through
        await add.click()  # it asks again
        await dialog.wait_for()
        await dialog.get_by_role("checkbox", name="I have reviewed the details").check()
        await go.click()
        await p.page.get_by_text("Added to cart").wait_for()
        await p.wait_event("rs", "dismissed", 2)
        await add.click()  # the step was done: the next click goes straight through
        await p.page.wait_for_timeout(500)
        assert not await dialog.count()
        state = json.loads(await env.oracle.state_bytes(p.episode.episode_id))
        assert sum(line["quantity"] for line in state["cart_items"]) == 2, state["cart_items"]

    p = await probe(env, tmp_path, [fault("required_step", "rs", ADD)], script)
    assert p.events("rs") == ["injected", "fired", "dismissed", "fired", "dismissed"]
    assert [x["detail"].get("via") for x in p.ledger()[1:]] == [None, "cancel", None, "continue"]


async def test_layout_shift_moves_the_target_so_a_precomputed_click_misses(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        add = p.page.get_by_role("button", name="Add to cart")
        box = await add.bounding_box()
        assert box is not None
        await p.wait_event("ls", "fired")
        await p.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await p.page.wait_for_timeout(600)
        assert await status_text(p) == ""  # the stale coordinates hit the inserted block
        await add.click()  # grounding again works
        await p.page.get_by_text("Added to cart").wait_for()

    p = await probe(env, tmp_path, [fault("layout_shift", "ls", ADD, delay_ms=1500, height_px=160)], script)
    info = p.detail("ls")["info"]
    assert info["height_px"] == 160 and info["moved_px"] >= 160


async def test_click_swallow_cancels_the_first_clicks(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        add = p.page.get_by_role("button", name="Add to cart")
        for _ in range(2):
            await add.click()
            await p.page.wait_for_timeout(400)
            assert await status_text(p) == ""
        await add.click()
        await p.page.get_by_text("Added to cart").wait_for()

    p = await probe(env, tmp_path, [fault("click_swallow", "cs", ADD, swallow_clicks=2)], script)
    assert p.events("cs") == ["injected", "fired", "fired"]
    assert p.detail("cs")["touched"]["selector"].endswith("form > button")


async def test_rename_after_input(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.goto(p.url("/account"))
        assert await p.page.get_by_role("button", name="Save address", exact=True).count() == 1
        await p.page.get_by_role("textbox", name="Full name").fill("Ada Lovelace")
        await p.page.get_by_role("button", name="Save", exact=True).wait_for()
        assert await p.page.get_by_role("button", name="Save address", exact=True).count() == 0

    p = await probe(env, tmp_path, [fault("rename_after_input", "rn", {"role": "button", "name": "Save address"},
                                          path="/account", after_input_in="Full name", new_label="Save")],
                    script, task="shop_change_default_address")
    assert p.detail("rn")["info"] == {"from": "Save address", "to": "Save"}


async def test_swap_labels(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.wait_event("sw", "fired")
        assert await p.page.locator("form[data-add-to-cart] button").inner_text() == "Search"
        await p.page.get_by_role("button", name="Add to cart").click()  # really the search button
        await p.page.wait_for_url(lambda u: "/product/" not in u)  # searched, and left the product

    p = await probe(env, tmp_path, [fault("swap_labels", "sw", ADD, other_role="button", other_name="Search")],
                    script)
    assert p.detail("sw")["info"]["a"] == "Add to cart" and p.detail("sw")["info"]["b"] == "Search"


async def test_same_label_decoy_comes_first_and_does_nothing(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        buttons = p.page.get_by_role("button", name="Add to cart", exact=True)
        await p.wait_event("dc", "fired")
        assert await buttons.count() == 2
        await buttons.first.click()
        await p.page.wait_for_timeout(400)
        assert await status_text(p) == ""
        await buttons.nth(1).click()
        await p.page.get_by_text("Added to cart").wait_for()
        await p.wait_event("dc", "hit")

    p = await probe(env, tmp_path, [fault("same_label_decoy", "dc", ADD)], script)
    assert p.events("dc") == ["injected", "fired", "hit"]
    assert p.detail("dc", "hit")["touched"]["fault_id"] == "dc"


async def test_a_decoy_carries_none_of_the_controls_hooks(env: Env, tmp_path: Path) -> None:
    """A page script that binds the first [data-...] control it finds must find the real one even when it runs
    after the decoy is in (the decoy comes first in the page's order)."""
    cancel = {"role": "button", "name": "Cancel order"}

    async def script(p: Probe) -> None:
        order = p.episode.bindings["cancel"]["order_id"]
        await p.page.goto(p.url(f"/orders/{order}"), wait_until="domcontentloaded")
        await p.wait_event("dh", "fired")
        buttons = p.page.get_by_role("button", name="Cancel order", exact=True)
        assert await buttons.count() == 2
        decoy_attributes = await buttons.first.evaluate("el => el.getAttributeNames()")
        assert not [a for a in decoy_attributes if a == "id" or a.startswith("data-")], decoy_attributes
        real = buttons.nth(1)
        assert await real.evaluate("el => document.querySelector('[data-cancel]') === el")
        await real.click()
        await p.page.get_by_role("heading", name="Order cancelled").wait_for()

    await probe(env, tmp_path, [fault("same_label_decoy", "dh", cancel, path="/orders/*")], script,
                task="shop_cancel_unshipped_order")


async def test_hide_affordance_moves_the_target_into_a_more_menu(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.wait_event("ha", "fired")
        assert not await p.page.get_by_role("button", name="Add to cart").is_visible()
        more = p.page.get_by_role("button", name="More actions")
        assert await more.get_attribute("aria-haspopup") == "menu"
        await more.click()
        await p.page.get_by_role("button", name="Add to cart").click()
        await p.page.get_by_text("Added to cart").wait_for()

    p = await probe(env, tmp_path, [fault("hide_affordance", "ha", ADD)], script)
    assert p.events("ha") == ["injected", "fired", "hit"]


async def test_false_toast_says_saved_and_saves_nothing(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.page.get_by_role("button", name="Add to cart").click()
        await p.page.get_by_role("status").filter(has_text="Added to cart").wait_for()
        await p.page.wait_for_timeout(300)
        assert await status_text(p) == ""  # the page's own status never said so
        assert await p.page.locator("[data-cart-count]").inner_text() == "0"

    p = await probe(env, tmp_path, [fault("false_toast", "ft", ADD, text="Added to cart")], script)
    assert p.events("ft") == ["injected", "fired"]
    state = json.loads((p.episode.out_dir / "state_final.json").read_text())
    assert state["cart_items"] == []


async def test_delayed_render_and_skeleton(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        add = p.page.get_by_role("button", name="Add to cart")
        assert not await add.is_visible()
        assert not await p.page.get_by_role("spinbutton", name="Quantity").is_visible()  # the skeleton
        await add.wait_for(state="visible", timeout=5000)
        await p.wait_event("dr", "restored")
        await p.page.reload()  # `never` only lifts on a reload (schedule once: the reload is clean)
        await p.page.get_by_role("spinbutton", name="Quantity").wait_for()

    p = await probe(env, tmp_path, [
        {**fault("delayed_render", "dr", ADD, render_after_ms=1500), "schedule": {"mode": "once"}},
        {**fault("skeleton", "sk", {"role": "spinbutton", "name": "Quantity"}, never=True,
                 block_selector="div.field"), "schedule": {"mode": "once"}},
    ], script)
    assert p.events("dr") == ["injected", "fired", "restored"]
    assert p.events("sk") == ["injected", "fired"]
    assert p.detail("dr")["info"] == {"hidden_ms": 1500} and p.detail("sk")["info"] == {"hidden_ms": None}


async def test_delayed_render_after_last_input_waits_from_the_last_input_on_a_field(env: Env, tmp_path: Path) -> None:
    """Page time is Playwright's paused clock, moved by hand: each step says which input restarted the wait."""
    async def script(p: Probe) -> None:
        await p.page.clock.install(time=0)
        await p.page.clock.pause_at(1000)
        await p.product()
        await p.page.clock.run_for(1)  # the runner starts on a 0 ms timeout
        await p.wait_event("dl", "fired")
        add = p.page.get_by_role("button", name="Add to cart")
        quantity = p.page.get_by_role("spinbutton", name="Quantity")
        await p.page.clock.run_for(1000)
        assert not await add.is_visible()
        await quantity.fill("2")  # a trusted input: the 1500 ms start again
        await p.page.clock.run_for(1000)
        assert not await add.is_visible()  # 2000 ms after the load, 1000 after the input
        await quantity.dispatch_event("input")  # untrusted, as select_option's: restarts too
        await p.page.clock.run_for(1000)
        assert not await add.is_visible()  # 2000 ms after the fill, 1000 after the script's input
        await quantity.dispatch_event("change")  # not an input: the wait goes on from the last one
        await p.page.evaluate("document.body.dispatchEvent(new Event('input', {bubbles: true}))")  # not a field
        await p.page.clock.run_for(600)
        assert await add.is_visible()
        await p.wait_event("dl", "restored")

    p = await probe(env, tmp_path, [fault("delayed_render", "dl", ADD, render_after_ms=1500, after_last_input=True)],
                    script)
    assert p.events("dl") == ["injected", "fired", "restored"]
    assert p.detail("dl")["info"] == {"hidden_ms": 1500, "after_last_input": True}
    assert p.detail("dl", "restored")["info"] == {"inputs": 2}


async def test_disabled_until(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        add = p.page.get_by_role("button", name="Add to cart")
        await p.wait_event("du", "fired")
        assert await add.is_disabled()
        await add.click(timeout=4000)  # waits until enabled
        await p.page.get_by_text("Added to cart").wait_for()

    p = await probe(env, tmp_path, [fault("disabled_until", "du", ADD, disabled_ms=1500)], script)
    assert p.events("du") == ["injected", "fired", "restored"]


async def test_input_corruption_and_focus_steal(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.goto(p.url("/"))
        box = p.page.get_by_role("searchbox", name="Search products")
        await box.click()
        await p.wait_event("fs", "fired")
        assert not await box.evaluate("el => el === document.activeElement")
        await box.fill("Blue mug")  # the one theft is spent: typing stays in the box
        assert await box.input_value() == "Bule mug"

    p = await probe(env, tmp_path, [
        fault("input_corruption", "ic", {"role": "searchbox", "name": "Search products"}, path="/"),
        fault("focus_steal", "fs", {"role": "searchbox", "name": "Search products"}, path="/", steal_after_ms=50),
    ], script)
    assert p.detail("ic")["info"] == {"mode": "swap_adjacent", "typed_length": 8, "altered": "Bule mug"}
    assert p.events("fs") == ["injected", "fired"]


async def test_autocorrect_finds_a_pair_to_swap_when_the_middle_pair_is_alike(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.goto(p.url("/"))
        box = p.page.get_by_role("searchbox", name="Search products")
        await box.fill("2500.00")  # the middle pair is "00": the nearest differing pair is "0."
        assert await box.input_value() == "250.000"

    p = await probe(env, tmp_path, [fault("input_corruption", "ic", {"role": "searchbox", "name": "Search products"},
                                          path="/", min_chars=2)], script)
    assert p.detail("ic")["info"]["altered"] == "250.000"


def on(host: str, path: str, type: str, fid: str, role: str, name: str, **params: Any) -> dict[str, Any]:
    return {"id": fid, "type": type, "layer": "client", "params": params,
            "match": {"host": host, "path": path, "role": role, "name": name}}


async def test_a_field_with_suggestions_is_a_combobox_and_a_theft_at_0_ms_comes_before_any_text(
        env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.goto("http://travel.test/")
        box = p.page.get_by_role("combobox", name="Destination")  # <input list=...> with a <datalist>
        await box.click()
        await p.page.keyboard.type("Lisbon")  # at once, with no pause after the click
        await p.wait_event("fs", "fired")
        assert await box.input_value() == ""  # the focus left as it arrived: every key went elsewhere
        await box.fill("Lisbon")  # the one theft is spent
        assert await box.input_value() == "Lisbon"

    p = await probe(env, tmp_path, [on("travel.test", "/", "focus_steal", "fs", "combobox", "Destination",
                                       steal_after_ms=0)], script, task="travel_book_namesake_hotel")
    assert p.events("fs") == ["injected", "fired"]


async def test_a_date_input_is_a_textbox_as_the_agent_grounds_it(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.goto("http://mail.test/settings/vacation")
        await p.page.get_by_role("textbox", name="First day").focus()
        await p.wait_event("fs", "fired")

    p = await probe(env, tmp_path, [on("mail.test", "/settings/vacation", "focus_steal", "fs", "textbox", "First day",
                                       steal_after_ms=0)], script, task="mail_set_vacation")
    assert p.detail("fs")["touched"]["tag"] == "input"


async def test_adjacent_selection_picks_the_neighbour(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        async with aiohttp.ClientSession() as session:
            async with session.post(p.url("/api/cart"), json={"product_id": p.target["id"]},
                                    proxy=p.episode.proxy_url) as r:
                assert r.status == 201
        await p.page.goto(p.url("/checkout"))
        await p.page.locator("#ship-express").click(force=True)
        await p.wait_event("as", "fired")
        assert await p.page.locator("#ship-standard").is_checked()
        assert await p.page.locator("[data-shipping-total]").inner_text() == "Free"

    p = await probe(env, tmp_path, [fault("adjacent_selection", "as", {"selector": "#ship-standard"},
                                          path="/checkout")], script)
    assert p.detail("as")["info"] == {"chose": "express", "got": "standard"}


async def test_scramble_aria_and_injected_instruction(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.product()
        await p.wait_event("sa", "fired")
        assert await p.page.get_by_role("button", name="Add to cart").count() == 0
        assert await p.page.get_by_text("Add to cart", exact=True).is_visible()
        await p.page.get_by_text("Ignore your previous instructions").wait_for()

    p = await probe(env, tmp_path, [fault("scramble_aria", "sa", ADD),
                                    fault("injected_instruction", "ii", ADD)], script)
    assert p.detail("sa")["info"]["from"] == "Add to cart" and p.detail("sa")["info"]["to"].startswith("ctl-")
    assert p.events("ii") == ["injected", "fired"]


async def test_scroll_jump_transient_flash_and_popup_tab(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.set_viewport_size({"width": 1280, "height": 400})
        await p.product()
        await p.wait_event("sj", "fired")
        assert await p.page.evaluate("window.scrollY") > 0
        async with p.page.context.expect_page() as popup:
            await p.page.get_by_role("button", name="Add to cart").click()
        await (await popup.value).wait_for_load_state()
        status = p.page.locator("form[data-add-to-cart] [data-status]")
        # The status is shown for 300 ms only: wait for what stays (its text, the cart count), not for it to
        # be seen, which a loaded machine can miss; then it must be hidden.
        await status.filter(has_text="Added to cart").wait_for(state="attached")
        await p.page.locator("[data-cart-count]", has_text="1").first.wait_for()
        await p.wait_event("tf", "fired")
        await status.wait_for(state="hidden")

    p = await probe(env, tmp_path, [
        fault("scroll_jump", "sj", delay_ms=200, dy_px=150),
        fault("popup_tab", "pt", ADD, after_clicks=1),
        fault("transient_flash", "tf", {"selector": "form[data-add-to-cart] [data-status]"}, visible_ms=300),
    ], script)
    assert p.detail("pt")["info"] == {"url": "/?promo=1", "opened": True}
    assert p.detail("tf")["info"] == {"text": "Added to cart", "visible_ms": 300}
    assert p.detail("sj")["info"]["to_y"] > p.detail("sj")["info"]["from_y"]


# -- the reference agent: hurt with recovery off, fine with recovery on where the fault is fair ---------------------

AGENT_VARIANTS = ["shop_product_overlay_returns", "shop_product_click_swallow", "shop_product_same_label_decoy",
                  "shop_product_disabled_until", "shop_product_delayed_render", "shop_product_more_menu",
                  "shop_product_layout_shift", "shop_product_false_toast", "commit_required_step@shop_add_to_cart"]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent_runs(env: Env, tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], EpisodeResult]:
    """Every variant above × reference agent with recovery off and on, run at once on the shared stack."""
    specs = [EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], CATALOG.variants[v], 1) for v in AGENT_VARIANTS]
    ran = await run_to_the_fault(specs, [ReferenceAgent(recovery=False), ReferenceAgent(recovery=True)],
                                 tmp_path_factory.mktemp("runs"), env.stack, concurrency=4)
    return {key: result for key, (result, _) in ran.items()}


def outcome(runs: dict[tuple[str, str], EpisodeResult], variant: str, agent: str) -> EpisodeResult:
    return runs[(variant, agent)]


FAIR = ["shop_product_overlay_returns", "shop_product_click_swallow", "shop_product_disabled_until",
        "shop_product_delayed_render", "shop_product_same_label_decoy", "shop_product_more_menu",
        "commit_required_step@shop_add_to_cart"]
# Fair faults whose recovery the reference agent does not have yet: variant -> the missing recovery.
NEEDS: dict[str, str] = {}


@pytest.mark.parametrize("variant", FAIR + list(NEEDS))
async def test_the_fault_hurts_the_agent_without_recovery(agent_runs: dict[tuple[str, str], EpisodeResult],
                                                          variant: str) -> None:
    off = outcome(agent_runs, variant, "reference-no-recovery")
    assert off.outcome.status == "failed" and not off.success, off.outcome


@pytest.mark.parametrize("variant", [*FAIR, *(pytest.param(v, marks=pytest.mark.xfail(
    strict=True, reason=f"the reference agent lacks the recovery: {why}")) for v, why in NEEDS.items())])
async def test_recovery_gets_the_agent_through(agent_runs: dict[tuple[str, str], EpisodeResult], variant: str) -> None:
    on = outcome(agent_runs, variant, "reference")
    assert on.success, (on.outcome, on.verdict)
    # A late agent (a loaded machine) meets a late control already shown: that run needs no recovery. The
    # fault's bite is the test above (the agent without recovery fails it).
    assert on.outcome.recoveries >= 1 or variant in ("shop_product_overlay_returns", "shop_product_delayed_render")


async def test_layout_shift_hurts_only_the_agent_that_clicks_where_it_saw_the_control(
        agent_runs: dict[tuple[str, str], EpisodeResult]) -> None:
    # The agent without recovery clicks the point where it measured the button; the promotion the pointer's
    # arrival inserted takes the click. Looking again as the button goes down (the reference agent) is not hurt.
    naive = outcome(agent_runs, "shop_product_layout_shift", "reference-no-recovery")
    assert not naive.success and naive.firings >= 1, naive.outcome
    assert naive.outcome.status == "failed" and "Add to cart" in (naive.outcome.error or ""), naive.outcome
    careful = outcome(agent_runs, "shop_product_layout_shift", "reference")
    assert careful.success and careful.firings >= 1, careful.outcome


async def test_false_toast_fools_an_agent_that_trusts_it_and_the_grader_catches_it(
        agent_runs: dict[tuple[str, str], EpisodeResult]) -> None:
    result = outcome(agent_runs, "shop_product_false_toast", "reference-no-recovery")
    assert result.outcome.status == "done", result.outcome  # the agent believes it is done
    assert not result.success and result.firings == 1  # the server state says no cart item


async def test_false_toast_with_verification_gets_the_agent_through(
        agent_runs: dict[tuple[str, str], EpisodeResult]) -> None:
    # With recovery on, the agent checks the cart page instead of trusting the toast, and adds again.
    result = outcome(agent_runs, "shop_product_false_toast", "reference")
    assert result.success, (result.outcome, result.verdict)
    assert any("claimed success did not happen" in line for line in result.outcome.log)


# -- the recorder ---------------------------------------------------------------------------------------------------


def actions_of(p: Probe) -> list[dict[str, Any]]:
    return [json.loads(x) for x in (p.episode.out_dir / "actions.jsonl").read_text().splitlines()]


async def test_a_scripted_session_gives_exactly_the_expected_actions(env: Env, tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        page = p.page
        await page.set_viewport_size({"width": 1280, "height": 500})
        await page.goto(p.url("/"))
        search = page.get_by_role("searchbox", name="Search products")
        await search.fill(p.target["name"])
        await search.press("Enter")
        await page.get_by_role("heading", name=f"Results for “{p.target['name']}”").wait_for()
        await page.get_by_role("link", name=p.target["name"]).first.click()
        await page.get_by_role("heading", name=p.target["name"]).wait_for()
        # The heading is in the DOM before the stylesheets apply; clicking earlier makes Playwright scroll to
        # where the button sat in the unstyled page, which the recorder rightly logs as a scroll.
        await page.wait_for_load_state("load")
        await page.get_by_role("spinbutton", name="Quantity").fill("2")
        await page.get_by_role("button", name="Add to cart").click()
        await page.get_by_text("Added to cart").wait_for()
        await page.mouse.wheel(0, 200)
        await page.wait_for_function("window.scrollY >= 200")
        await page.wait_for_timeout(500)
        await page.go_back()
        await page.get_by_role("heading", name=f"Results for “{p.target['name']}”").wait_for()
        await page.wait_for_timeout(400)

    p = await probe(env, tmp_path, [], script)
    name = p.target["name"]
    query = "/search?q=" + name.replace(" ", "+")
    product = f"/product/{p.target['id']}"
    search = {"role": "searchbox", "name": "Search products", "selector": "#site-search", "tag": "input"}
    got = actions_of(p)
    assert [x["seq"] for x in got] == list(range(1, len(got) + 1))
    assert [x["t_ms"] for x in got] == sorted(x["t_ms"] for x in got) and got[0]["t_ms"] > 0
    for x in got:
        del x["t_ms"], x["seq"]
    link = got[5]["target"]
    assert got == [
        {"kind": "tab_open", "page": "/", "url": "/", "opener": False},
        {"kind": "navigation", "page": "/", "url": "/", "nav_type": "navigate", "frame": False},
        {"kind": "input", "page": "/", "input_type": "search", "value_length": len(name), "value": name,
         "target": search},
        {"kind": "key", "page": "/", "key": "Enter", "modifiers": [], "target": search},
        {"kind": "navigation", "page": "/search", "url": query, "nav_type": "navigate", "referrer": "/",
         "frame": False},
        {"kind": "click", "page": "/search", "x": got[5]["x"], "y": got[5]["y"], "button": 0,
         "target": {"role": "link", "name": name, "selector": link["selector"], "tag": "a"}},
        {"kind": "navigation", "page": product, "url": product, "nav_type": "navigate", "referrer": query,
         "frame": False},
        {"kind": "input", "page": product, "input_type": "number", "value_length": 1, "value": "2",
         "target": {"role": "spinbutton", "name": "Quantity", "selector": "#quantity", "tag": "input"}},
        {"kind": "click", "page": product, "x": got[8]["x"], "y": got[8]["y"], "button": 0,
         "target": {"role": "button", "name": "Add to cart", "selector": "#main > article > div:nth-of-type(2) > "
                                                                         "form > button", "tag": "button"}},
        {"kind": "scroll", "page": product, "x": 0, "y": 200, "dx": 0, "dy": 200, "target": None},
        {"kind": "navigation", "page": "/search", "url": query, "nav_type": "back_forward", "referrer": "/",
         "frame": False},
    ]
    assert link["selector"].endswith("> a") and got[5]["x"] > 0 and got[8]["y"] > 0
    assert p.console == []


async def test_password_values_are_not_recorded_and_every_html_page_gets_the_recorder(env: Env,
                                                                                       tmp_path: Path) -> None:
    async def script(p: Probe) -> None:
        await p.page.goto(p.url("/account"))
        await p.page.evaluate("document.getElementById('city').type = 'password'")
        await p.page.get_by_label("City").fill("secret")
        await p.page.get_by_label("Country").fill("Wales")
        await p.page.get_by_label("Country").blur()
        await p.page.wait_for_timeout(500)

    p = await probe(env, tmp_path, [], script, task="shop_change_default_address")
    inputs = [x for x in actions_of(p) if x["kind"] == "input"]
    assert [(x["target"]["name"], x["input_type"], x["value_length"], x.get("value")) for x in inputs] == [
        ("City", "password", 6, None), ("Country", "text", 5, "Wales")]


async def _open_raw(env: Env, episode_id: str, out: Path, record: bool) -> str:
    task = CATALOG.tasks["shop_add_to_cart"]
    await env.oracle.create_episode(site=task.site, task_id=task.id, seed=3, variant_id=None, episode_id=episode_id,
                                    setup={"params": task.setup.params}, faults=[])
    async with aiohttp.ClientSession(headers={SECRET_HEADER: env.stack.secret}) as session:
        async with session.post(f"{env.stack.control_url}/episodes", json={
                "episode_id": episode_id, "seed": 3, "faults": [], "out_dir": str(out),
                "record_actions": record}) as r:
            assert r.status == 201, await r.text()
            return str((await r.json())["proxy_url"])


async def _snapshot(env: Env, proxy: str, path: str) -> dict[str, Any]:
    context = await env.pool.new_context(proxy)
    page = await context.new_page()
    errors: list[str] = []
    # The favicon 404 is logged only while the shared browser has not cached the answer yet.
    page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning")
            and not m.location.get("url", "").endswith("/favicon.ico") else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await page.goto("http://shop.test" + path, wait_until="load")
        await page.evaluate("document.fonts.ready.then(() => new Promise(requestAnimationFrame))")
        # Every image decoded, so the pixels do not depend on when the decoder got to it.
        await page.evaluate("Promise.all(Array.from(document.images, i => i.decode().catch(() => null)))")
        await page.wait_for_timeout(300)
        return {
            "html": await page.evaluate("document.documentElement.outerHTML"),
            "globals": await page.evaluate("Object.getOwnPropertyNames(window).sort()"),
            "symbols": await page.evaluate("Object.getOwnPropertySymbols(window).length"),
            "scripts": await page.evaluate("document.scripts.length"),
            # Frozen animations and no caret: pixels then depend on layout only, not on timing.
            "shot": await page.screenshot(full_page=True, animations="disabled", caret="hide"),
            "errors": errors,
        }
    finally:
        await context.close()


@pytest.mark.parametrize("path", ["/", "/product/p003", "/account", "/search?q=mug"])
async def test_the_recorder_leaves_an_unperturbed_page_as_it_was(env: Env, tmp_path: Path, path: str) -> None:
    slug = path.strip("/").replace("/", "-").replace("?", "-").replace("=", "-") or "home"
    proxies = {record: await _open_raw(env, f"dom-{slug}-{record}", tmp_path / str(record), record)
               for record in (False, True)}
    try:
        without, with_ = [await _snapshot(env, proxies[r], path) for r in (False, True)]
    finally:
        for record in (False, True):
            await env.control.close_episode(f"dom-{slug}-{record}")
            await env.oracle.delete_episode(f"dom-{slug}-{record}")
    assert with_["html"] == without["html"]
    assert "webchaos" not in with_["html"].lower()
    assert with_["globals"] == without["globals"] and with_["symbols"] == without["symbols"]
    assert with_["scripts"] == without["scripts"]
    assert with_["shot"] == without["shot"]
    assert with_["errors"] == without["errors"]
    assert [json.loads(x)["kind"] for x in (tmp_path / "True" / "actions.jsonl").read_text().splitlines()] == [
        "tab_open", "navigation"]
    assert not (tmp_path / "False" / "actions.jsonl").exists()

"""The reference agent's recoveries, each against a small page that fails in one way.

Pages are served on loopback without the proxy (these are the agent's own
tests); the agent and the browser are the real ones.
"""

import asyncio
import contextlib
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from aiohttp import web
from playwright.async_api import BrowserContext

from harness.agents import ReferenceAgent, agent_from_spec
from harness.agents.base import EpisodeContext
from harness.agents.perception import heading_or_another
from harness.browser.pool import BrowserPool
from harness.catalog.a11y_html import Page as A11yPage
from scenarios.schema import CanonicalDiff, Expect, PlanStep, Task

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

# A page confirms a write once the site has it, as a product does: the tests read the site's writes as soon as the
# agent stops, and a confirmation shown before its request went out raced that on a loaded machine.
SCRIPT = """
<script>
const hit = (what) => fetch('/hit/' + what, {method: 'POST'});
const say = (text) => { document.getElementById('out').textContent = text; };
function done() { hit('save').then(() => say('Saved it')); }
</script>
"""

PAGES = {
    "plain": """<button onclick="done()">Save</button>""",
    # The first click does nothing.
    "swallow": """<button onclick="if (window.n = (window.n || 0) + 1, window.n > 1) done()">Save</button>""",
    # Two buttons share the label; only the second works.
    "decoy": """<button onclick="hit('decoy')">Save</button> <button onclick="done()">Save</button>""",
    # Three decoys listed before the button that works (more than max_retries: each must be tried once).
    "decoys": """<button onclick="hit('decoy')">Save</button> <button onclick="hit('decoy')">Save</button>
                 <button onclick="hit('decoy')">Save</button> <button onclick="done()">Save</button>""",
    # The button appears after 6 s: twice one action timeout, so a slow machine's late look still misses it.
    "late": """<div id="slot"></div><script>setTimeout(() => { document.getElementById('slot').innerHTML =
               '<button onclick="done()">Save</button>'; }, 6000)</script>""",
    # The button shows only once the page is loaded again (waiting longer does not bring it).
    "gone": """<div id="slot"></div><script>if (sessionStorage.getItem('seen')) document.getElementById('slot')
               .innerHTML = '<button onclick="done()">Save</button>'; sessionStorage.setItem('seen', '1')</script>""",
    # The button hides in an overflow menu.
    "more": """<button aria-expanded="false" onclick="this.setAttribute('aria-expanded','true');
               document.getElementById('menu').hidden = false">More</button>
               <div id="menu" hidden><button onclick="done()">Save</button></div>""",
    # Disabled for 6 s: twice one action timeout, so a slow machine's late first click still times out, and
    # less than the recovering agent's longer wait.
    "disabled": """<button id="b" disabled onclick="done()">Save</button>
                   <script>setTimeout(() => document.getElementById('b').disabled = false, 6000)</script>""",
    # The confirmation shows 3 s after the click (the agent first looks for 1.5 s).
    "slow": """<button onclick="hit('save').then(() => setTimeout(() => say('Saved it'), 3000))">Save</button>""",
    # The write happens but the page says it failed; /saved shows the truth.
    "lying": """<button onclick="hit('save').then(() => say('Error'))">Save</button>""",
    # The field "autocorrects" the first thing typed into it.
    "autocorrect": """<label>Name <input id="n" oninput="if (!window.fixed) { window.fixed = 1;
                      setTimeout(() => { this.value = this.value.split('').reverse().join(''); }, 0); }"></label>
                      <button onclick="if (document.getElementById('n').value === 'hello') done()">Save</button>""",
    # Typing into the note renames Save to "Save now" (same button, longer name).
    "renamed": """<label>Note <input id="n" oninput="document.getElementById('b').textContent = 'Save now'"></label>
                  <button id="b" onclick="done()">Save</button>""",
    # Save works only once Green is chosen in the list.
    "select": """<label for="s">Colour</label><select id="s"><option value="">Choose…</option>
                 <option value="r">Red</option><option value="g">Green</option></select>
                 <button onclick="if (document.getElementById('s').value === 'g') done()">Save</button>""",
    # A search box (the results list items by a substring of their names).
    # Two items whose names hold the wanted one's listed before it ("Trail Mug" wanted).
    "mugs": """<ul><li><a href="/item/mug-lite">Trail Mug Lite</a></li><li><a href="/item/mug-refill">Trail Mug
               Refill</a></li><li><a href="/item/mug">Trail Mug</a></li></ul>""",
    "search": """<form action="/find"><input type="search" name="q" aria-label="Search"></form>""",
    # A checkout in stages on one document (the stage kept in the address by history.replaceState); the
    # first press of Save does nothing, and a reload comes back to the review stage with the default choice.
    "stages": """<section><label><input type=radio name=c value=red checked> Red</label>
                 <label><input type=radio name=c value=green> Green</label>
                 <button onclick="history.replaceState(null, '', '?step=review');
                 document.getElementById('rv').hidden = false">Continue</button></section>
                 <section id=rv hidden><h2>Review</h2><button onclick="if (!sessionStorage.getItem('once')) {
                 sessionStorage.setItem('once', '1'); return; }
                 hit(document.querySelector('input[name=c]:checked').value).then(done)">Save</button></section>
                 <script>if (location.search) document.getElementById('rv').hidden = false</script>""",
    # A form whose first Save is dropped without a word (no message, no error); /saved shows whether it
    # landed. A reload would empty the field.
    "dropped": """<label>Name <input id="n" autocomplete="off"></label>
                  <button onclick="if (document.getElementById('n').value !== 'Ada') return;
                  if (window.presses = (window.presses || 0) + 1, window.presses > 1) done()">Save</button>""",
    # A form whose first Save claims success ("Saved it") but writes nothing, and keeps what was typed; the
    # next Save writes. /saved shows whether it landed. A reload would empty the field.
    "claimed": """<label>Name <input id="n" autocomplete="off"></label>
                  <button onclick="if (document.getElementById('n').value !== 'Ada') return;
                  if (window.presses = (window.presses || 0) + 1, window.presses > 1) { done(); return; }
                  say('Saved it')">Save</button>""",
    # A form whose first Save claims success on a page of its own ("Saved it", nothing written); coming back
    # to the form finds it empty, and the next Save writes. /saved shows whether it landed.
    "claimed_elsewhere": """<label>Name <input id="n" autocomplete="off"></label>
                  <button onclick="if (document.getElementById('n').value !== 'Ada') return;
                  if (sessionStorage.getItem('claimed')) { done(); return; }
                  sessionStorage.setItem('claimed', '1'); location.href = '/page/thanks'">Save</button>""",
    # A form whose first Save claims success in place: the button gives way to a Download link, nothing written
    # (the control is gone until the page is loaded again). The next Save writes.
    "claimed_in_place": """<label>Name <input id="n" autocomplete="off"></label>
                  <span id="slot"><button onclick="if (document.getElementById('n').value !== 'Ada') return;
                  if (sessionStorage.getItem('claimed')) { done(); return; }
                  sessionStorage.setItem('claimed', '1'); say('Saved it');
                  document.getElementById('slot').innerHTML = '<a href=/saved>Download</a>'">Save</button></span>""",
    "thanks": """<h1>Thank you</h1><p>Saved it</p>""",
    # Two orders name the same product; only the earlier one has a parcel to track.
    "orders": """<ul><li>Order 1 · Blue Mug <a href="#" onclick="done(); return false">Track package</a></li>
                 <li>Order 2 · Blue Mug · delivered</li></ul>""",
    # Where a save shows, behind a loading skeleton for 5 s (longer than the effect's second look, 4 s).
    "saved_late": """<div aria-busy="true" id="sk">Loading…</div><p id="c" hidden>Your item is saved</p>
                     <script>setTimeout(() => { sk.remove(); c.hidden = false; }, 5000)</script>""",
    # Two payments in one section; the rent's Cancel is rendered late (hidden for 1 s), the gym's at once.
    "payments_late": """<section><table><tbody>
                        <tr><td>Gym membership</td><td><button onclick="hit('wrong')">Cancel payment</button></td></tr>
                        <tr><td>Rent</td><td><button id="r" style="visibility:hidden" onclick="done()">Cancel
                        payment</button></td></tr></tbody></table></section>
                        <script>setTimeout(() => document.getElementById('r').style.visibility = '', 1000)</script>""",
    # A promotion is put above the button as the pointer reaches it (a layout shift): a click on the point
    # where the button was seen lands on the promotion.
    "shifting": """<div id="slot"></div><button id="b" onclick="done()">Save</button>
                   <script>function shift() { if (window.shifted) return; window.shifted = 1;
                   document.getElementById('slot').innerHTML = '<a href="#" style="display:block;height:160px" ' +
                   'onclick="hit(\\'promo\\'); return false">Today only: 20% off</a>'; }
                   document.getElementById('b').addEventListener('pointermove', shift, true);
                   document.getElementById('b').addEventListener('mousemove', shift, true);</script>""",
    # Save opens a promotion in a new tab (the page stays as it was); Finish is on this page only.
    "popup": """<button onclick="done(); window.open('/page/promo', '_blank')">Save</button>
                <button onclick="hit('finish').then(() => say('Finished'))">Finish</button>""",
    "promo": """<h1>Today only: 20% off</h1>""",
    # The field gives its focus away the first time it gets it; Save works once it holds "Ada".
    "stealing": """<label>Name <input id="n" autocomplete="off"
                   onfocus="if (!window.stolen) { window.stolen = 1; this.blur(); }"></label>
                   <button onclick="if (document.getElementById('n').value === 'Ada') done()">Save</button>""",
    # A modal covers the page (its dialog away from the button: a click on the button's point lands on the shade).
    "modal": """<button onclick="done()">Save</button>
                <div style="position:fixed;inset:0;background:#0008" id="m"><div role="dialog" aria-label="Cookies"
                style="margin:40vh auto 0;width:20em;background:#fff">
                <button onclick="document.getElementById('m').remove()">Accept all</button></div></div>""",
}

# What /find lists, by the slug of each item's page.
ITEMS = {"roller": "Acme Massage Roller 45 cm", "mat": "Acme Yoga Mat", "band": "Zenith Foam Roller Band",
         "block": "Zenith Yoga Block", "mug-lite": "Trail Mug Lite", "mug-refill": "Trail Mug Refill",
         "mug": "Trail Mug"}


class Site:
    def __init__(self) -> None:
        self.hits: list[str] = []
        self.signed_in = True
        self.landing = False  # a write sent from /late that has not landed yet
        # where it shows, the looks that find nothing before it lands: the step's own check (a look, and one
        # more after a reload); the look before the write would be sent again finds it
        self.looks_before_landing = 2
        self.unavailable_once: set[str] = set()  # items whose page answers 503 the first time it is asked for
        self.results_unavailable_once = False  # the search's results answer 503 the first time
        # results as forum's are: the search box on them, each result a heading with its link
        self.forum_like_results = False

    def app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/page/{name}", self.page)
        app.router.add_post("/hit/{what}", self.hit)
        app.router.add_get("/saved", self.saved)
        app.router.add_get("/login", self.login_page)
        app.router.add_post("/login", self.login)
        app.router.add_get("/guarded", self.guarded)
        app.router.add_get("/record", self.record)
        app.router.add_get("/listing", self.listing)
        app.router.add_get("/find", self.find)
        app.router.add_get("/item/{slug}", self.item)
        app.router.add_get("/late", self.late)
        return app

    async def late(self, request: web.Request) -> web.Response:
        """Save claims success at once; the write lands late: the first looks where it shows find nothing, a
        later one finds it (and from then on the page has no Save button)."""
        body = ("<p>Saved</p>" if "save" in self.hits else
                "<button onclick=\"hit('late').then(() => say('Saved it'))\">Save</button><p id=out></p>")
        return web.Response(text=f"<!doctype html>{SCRIPT}<main>{body}</main>", content_type="text/html")

    async def listing(self, request: web.Request) -> web.Response:
        """Saved items, ten a page: what was saved shows on page 2."""
        if request.query.get("page") == "2":
            body = "<p>Your item is saved</p>" if "save" in self.hits else "<p>Nothing</p>"
        else:
            body = "<p>Ten older items</p><a href='/listing?page=2' aria-label='Next page'>Next</a>"
        return web.Response(text=f"<!doctype html><main>{body}</main>", content_type="text/html")

    async def record(self, request: web.Request) -> web.Response:
        """The saved record, starred or with a button that stars it (what a partial write left out). It is
        slow to answer: a look at it started right after the star was pressed is overtaken by the page's reload."""
        await asyncio.sleep(0.3)
        if "star" in self.hits:
            body = "<p>Your item is saved and starred</p>"
        else:
            body = ("<p>Your item is saved</p><button onclick=\"fetch('/hit/star', {method: 'POST'})"
                    ".then(() => { location.href = '/record?notice=starred' })\">Star it</button>"
                    if "save" in self.hits else "<p>Nothing</p>")
        return web.Response(text=f"<!doctype html><main>{body}</main>", content_type="text/html")

    async def find(self, request: web.Request) -> web.Response:
        """A search that matches the whole query inside a listed name (the roller is listed under a synonym);
        a search for the block's whole name lists nothing, whatever it is tried again (a degraded search)."""
        if self.results_unavailable_once:
            self.results_unavailable_once = False
            return web.Response(status=503, text="<!doctype html><p>Service unavailable</p>", content_type="text/html")
        query = request.query.get("q", "").casefold()
        shown = "<h2>{}</h2>" if self.forum_like_results else "{}"
        links = "".join(f'<li>{shown.format(f"""<a href="/item/{slug}">{name}</a>""")}</li>'
                        for slug, name in ITEMS.items() if query in name.casefold() and query != "zenith yoga block")
        form = PAGES["search"] if self.forum_like_results else ""
        return web.Response(text=f"<!doctype html><main>{form}<h1>Results</h1><ul>{links}</ul></main>",
                            content_type="text/html")

    async def item(self, request: web.Request) -> web.Response:
        if (slug := request.match_info["slug"]) in self.unavailable_once:
            self.unavailable_once.discard(slug)
            return web.Response(status=503, text="<!doctype html><p>Service unavailable</p>", content_type="text/html")
        return web.Response(text=f"<!doctype html><main><h1>{ITEMS[request.match_info['slug']]}</h1></main>",
                            content_type="text/html")

    async def page(self, request: web.Request) -> web.Response:
        body = PAGES[request.match_info["name"]]
        return web.Response(text=f"<!doctype html><title>t</title>{SCRIPT}<main>{body}<p id=out></p></main>",
                            content_type="text/html")

    async def hit(self, request: web.Request) -> web.Response:
        if request.match_info["what"] == "late":
            self.landing = True
            self.hits.append("send")
            return web.Response(status=204)
        if request.match_info["what"] == "star":
            await asyncio.sleep(0.1)  # answered after a moment: the page moves on only then
        self.hits.append(request.match_info["what"])
        return web.Response(status=204)

    async def saved(self, request: web.Request) -> web.Response:
        if self.landing:  # a write sent from /late: not there at the first looks, there at the next
            self.landing = self.looks_before_landing > 0
            self.looks_before_landing -= 1
            if not self.landing:
                self.hits.append("save")
        text = "<p>Your item is saved</p>" if "save" in self.hits else "<p>Nothing</p>"
        return web.Response(text=f"<!doctype html>{text}", content_type="text/html")

    async def guarded(self, request: web.Request) -> web.Response:
        if not self.signed_in:
            raise web.HTTPSeeOther("/login?next=/guarded")
        return await self.page_named("plain")

    async def page_named(self, name: str) -> web.Response:
        return web.Response(text=f"<!doctype html>{SCRIPT}<main>{PAGES[name]}<p id=out></p></main>",
                            content_type="text/html")

    async def login_page(self, request: web.Request) -> web.Response:
        return web.Response(text="""<!doctype html><h1>Sign in</h1><form method=post action=/login>
            <button>Sign in</button></form>""", content_type="text/html")

    async def login(self, request: web.Request) -> web.Response:
        self.signed_in = True
        raise web.HTTPSeeOther("/guarded")


class DirectBrowser(BrowserPool):
    """Contexts without the proxy: the pages here are plain loopback servers."""

    async def new_context(self, proxy_url: str, **options: Any) -> BrowserContext:
        assert self._browser is not None
        return await self._browser.new_context(**options)


@contextlib.asynccontextmanager
async def serving(site: Site) -> AsyncIterator[str]:
    """`site` served on a loopback port of its own (its base URL) for one run: runs share nothing but the
    browser, so a test can run the agent with and without recovery at once."""
    runner = web.AppRunner(site.app())
    await runner.setup()
    tcp = web.TCPSite(runner, "127.0.0.1", 0)
    await tcp.start()
    port = tcp._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        await runner.cleanup()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser() -> AsyncIterator[BrowserPool]:
    pool = await DirectBrowser().start()
    yield pool
    await pool.stop()


def plan(page: str, **save: object) -> list[PlanStep]:
    return [PlanStep(do="goto", url=f"/page/{page}"),
            PlanStep.model_validate({"do": "click", "role": "button", "name": "Save",
                                     "expect": {"text": "Saved it", "timeout_ms": 1500}, **save})]


Run = tuple[str, list[str], list[str]]  # the agent's status, its recovery moves, the writes the site saw


async def run(browser: BrowserPool, steps: list[PlanStep], recovery: bool, tmp_path: Path,
              site: Site | None = None) -> Run:
    """The reference agent on `steps` against `site` (default: a fresh one), in an episode folder of its own."""
    return await run_agent(browser, steps, "reference" if recovery else "reference-no-recovery", tmp_path, site)


async def run_agent(browser: BrowserPool, steps: list[PlanStep], spec: str, tmp_path: Path,
                    site: Site | None = None) -> Run:
    """The agent `spec` names (reference, reference-no-recovery, reference-without-<primitive>) on `steps`."""
    site = site or Site()
    out_dir = Path(tempfile.mkdtemp(dir=tmp_path, prefix=f"{spec}-"))
    async with serving(site) as base:
        task = Task(id="t", site="test", title="t", instruction="", plan=steps, canonical_diff=CanonicalDiff())
        ctx = EpisodeContext(episode_id="t", task=task, variant=None, seed=1, instruction="", start_url=base + "/",
                             proxy_url="http://127.0.0.1:9", plan=steps, out_dir=out_dir, browser=browser,
                             time_budget_s=60)
        agent = agent_from_spec(spec)
        assert isinstance(agent, ReferenceAgent)
        outcome = await agent.run(ctx)
    return outcome.status, [line for line in outcome.log if line.startswith("recover")], list(site.hits)


async def run_agents(browser: BrowserPool, steps: list[PlanStep], tmp_path: Path, *specs: str) -> dict[str, Run]:
    """Each agent `specs` names on `steps`, at once, each against its own site (they mostly wait for pages and
    timeouts, so in turn they took as long as all of them together)."""
    runs = await asyncio.gather(*(run_agent(browser, steps, spec, tmp_path) for spec in specs))
    return dict(zip(specs, runs, strict=True))


async def without_and_with_recovery(browser: BrowserPool, steps: list[PlanStep], tmp_path: Path) -> tuple[Run, Run]:
    """The same steps with recovery off and on, at once (`run_agents`)."""
    runs = await run_agents(browser, steps, tmp_path, "reference-no-recovery", "reference")
    return runs["reference-no-recovery"], runs["reference"]


@pytest.mark.parametrize(
    ("page", "recovery_move"),
    [
        ("swallow", "recover: repeating the action"),
        ("decoy", "recover: trying candidate 2 of 2"),
        ("decoys", "recover: trying candidate 4 of 4"),
        ("late", "recover: waiting longer for the control to show"),  # given longer before a reload empties the form
        ("gone", "recover: reloaded the page"),  # given longer first, in vain
        ("more", "recover: opened an overflow menu"),
        ("disabled", "recover: waiting longer for the control"),
        ("modal", "recover: dismissed dialog (Accept all)"),
    ],
)
async def test_fault_bites_without_recovery_and_is_recovered(
    browser: BrowserPool, tmp_path: Path, page: str, recovery_move: str
) -> None:
    # In turn, not at once (as the tests below do): several of these pages are timed against the agent's
    # action timeout, and two agents at once on a loaded machine made the runs without recovery miss it.
    status_off, _, _ = await run(browser, plan(page), recovery=False, tmp_path=tmp_path)
    assert status_off == "failed"
    status_on, moves, hits = await run(browser, plan(page), recovery=True, tmp_path=tmp_path)
    assert status_on == "done", moves
    assert recovery_move in moves
    assert hits.count("save") == 1


async def test_a_slow_write_is_waited_for_not_repeated(browser: BrowserPool, tmp_path: Path) -> None:
    status, moves, hits = await run(browser, plan("slow"), recovery=True, tmp_path=tmp_path)
    assert status == "done" and moves == ["recover: effect confirmed"]
    assert hits == ["save"]


async def test_a_write_that_claims_failure_is_checked_before_repeating(
    browser: BrowserPool, tmp_path: Path
) -> None:
    effect = {"effect": {"visit": "/saved", "expect": {"text": "Your item is saved"}}}
    status, moves, hits = await run(browser, plan("lying", **effect), recovery=True, tmp_path=tmp_path)
    assert status == "done" and moves[-1] == "recover: effect confirmed"
    assert hits == ["save"], "the write must not be repeated"


async def test_a_claimed_write_that_landed_late_is_not_repeated(
        browser: BrowserPool, tmp_path: Path) -> None:
    steps = [PlanStep(do="goto", url="/late"),
             PlanStep.model_validate({"do": "click", "role": "button", "name": "Save",
                                      "expect": {"text": "Saved it", "timeout_ms": 1500},
                                      "effect": {"visit": "/saved", "expect": {"text": "Your item is saved"}}})]
    status, moves, hits = await run(browser, steps, recovery=True, tmp_path=tmp_path)
    # not yet where it shows, so it is to be sent again from the page that still holds it; looked at again
    # before repeating, it has landed by then: done, and sent once
    assert status == "done", moves
    assert moves == ["recover: the claimed success did not happen: sending it again from the page"]
    assert hits == ["send", "save"]


async def test_signs_in_again_when_the_session_expired(browser: BrowserPool, tmp_path: Path) -> None:
    site = Site()
    steps = [PlanStep(do="goto", url="/page/plain"),
             PlanStep.model_validate({"do": "goto", "url": "/guarded"}),
             PlanStep.model_validate({"do": "click", "role": "button", "name": "Save", "expect": {"text": "Saved it"}})]
    site.signed_in = False
    status, moves, _ = await run(browser, steps, recovery=True, tmp_path=tmp_path, site=site)
    assert status == "done", moves
    assert "recover: signed in again" in moves


async def test_typed_text_is_read_back_and_typed_again(browser: BrowserPool, tmp_path: Path) -> None:
    steps = [PlanStep(do="goto", url="/page/autocorrect"),
             PlanStep(do="fill", role="textbox", name="Name", value="hello"),
             *plan("autocorrect")[1:]]
    # the agent lacking verification fills the field as the reference agent does and does not read it back (the
    # agent without any recovery types key by key, and the page corrects only the first key: "h" stays "h")
    (status_off, _, _), (status_on, moves, hits) = await asyncio.gather(
        run_agent(browser, steps, "reference-without-verification", tmp_path), run(browser, steps, True, tmp_path))
    assert status_off == "failed"
    assert status_on == "done", moves
    assert moves[0] == "recover: the field changed what was typed: typing it again"
    assert hits == ["save"]


async def test_a_renamed_control_is_found_by_the_name_it_begins_with(
    browser: BrowserPool, tmp_path: Path
) -> None:
    steps = [PlanStep(do="goto", url="/page/renamed"), PlanStep(do="fill", role="textbox", name="Note", value="hi"),
             *plan("renamed")[1:]]
    (status_off, _, _), (status_on, moves, hits) = await without_and_with_recovery(browser, steps, tmp_path)
    assert status_off == "failed"
    assert status_on == "done", moves
    assert "recover: the control was renamed: using the one whose name begins with the wanted one" in moves
    assert hits == ["save"]


async def test_within_is_the_last_container_naming_it_that_has_the_control(browser: BrowserPool,
                                                                           tmp_path: Path) -> None:
    """A step `within` a record's text acts in the last container that has the text and the step's control,
    not in a later record that names the same thing without it; the catalog's plan walk scopes alike."""
    step = PlanStep.model_validate({"do": "click", "role": "link", "name": "Track package", "within": "Blue Mug",
                                    "expect": {"text": "Saved it", "timeout_ms": 1500}})
    status, _, hits = await run(browser, [PlanStep(do="goto", url="/page/orders"), step], False, tmp_path)
    assert status == "done" and hits == ["save"]
    rendered = A11yPage(f"<main>{PAGES['orders']}</main>")
    found = rendered.find("link", "Track package", within="Blue Mug")
    assert [n.text() for n in found] == ["Track package"]
    assert rendered.find("link", "Track package", within="delivered") == []


async def test_within_waits_for_the_records_own_control_while_it_is_rendered_late(browser: BrowserPool,
                                                                                tmp_path: Path) -> None:
    """While the record's control is still hidden, the section around both records also has the record's text
    and another record's control: the step waits for its record's control instead of acting on the other's."""
    step = PlanStep.model_validate({"do": "click", "role": "button", "name": "Cancel payment", "within": "Rent",
                                    "expect": {"text": "Saved it", "timeout_ms": 1500}})
    status, _, hits = await run(browser, [PlanStep(do="goto", url="/page/payments_late"), step], False, tmp_path)
    assert hits == ["save"] and status == "done"


async def test_where_the_write_shows_is_read_once_the_page_has_loaded(browser: BrowserPool, tmp_path: Path) -> None:
    """The page that shows the write is a loading skeleton longer than the check looks: the check waits for it
    (aria-busy) instead of taking the write for missing and sending it again."""
    steps = plan("plain", effect={"visit": "/page/saved_late", "expect": {"text": "Your item is saved"}})
    status, moves, hits = await run(browser, steps, True, tmp_path)
    assert hits == ["save"] and status == "done", moves
    assert moves == []


@pytest.mark.parametrize("recovery", [False, True])
async def test_a_select_step_chooses_the_option_by_its_label(
    browser: BrowserPool, tmp_path: Path, recovery: bool
) -> None:
    steps = [PlanStep(do="goto", url="/page/select"),
             PlanStep(do="select", role="combobox", name="Colour", value="Green"), *plan("select")[1:]]
    wrong = [steps[0], PlanStep(do="select", role="combobox", name="Colour", value="Blue"), *plan("select")[1:]]
    (status, moves, hits), (status_wrong, _, hits_wrong) = await asyncio.gather(
        run(browser, steps, recovery=recovery, tmp_path=tmp_path),
        run(browser, wrong, recovery=False, tmp_path=tmp_path))
    assert status == "done" and moves == [] and hits == ["save"]
    assert status_wrong == "failed" and hits_wrong == [], "an option that is not in the list fails the step"


async def test_a_write_shown_only_in_part_is_finished_not_repeated(
    browser: BrowserPool, tmp_path: Path
) -> None:
    effect = {"effect": {"visit": "/record", "expect": {"text": "saved and starred"},
                         "complete": [{"do": "click", "role": "button", "name": "Star it"}]}}
    (status_off, _, hits_off), (status_on, moves, hits_on) = await without_and_with_recovery(
        browser, plan("plain", **effect), tmp_path)
    assert status_off == "done" and hits_off == ["save"], "without verification the missing star goes unnoticed"
    assert status_on == "done" and moves == []
    assert hits_on == ["save", "star"], "the save must not be repeated: the record is finished where it shows"


def search_and_open(wanted: str) -> list[PlanStep]:
    """Search for `wanted` by its whole name and open the result of that name."""
    return [PlanStep(do="goto", url="/page/search"),
            PlanStep(do="fill", role="searchbox", name="Search", value=wanted),
            PlanStep(do="press", role="searchbox", name="Search", key="Enter"),
            PlanStep.model_validate({"do": "click", "role": "link", "name": wanted,
                                     "expect": {"role": "heading", "name": wanted}})]


async def test_an_item_listed_under_a_synonym_is_found_by_searching_again_more_broadly(
    browser: BrowserPool, tmp_path: Path
) -> None:
    wanted = "Acme Foam Roller 45 cm"
    steps = search_and_open(wanted)
    (status_off, _, _), (status_on, moves, _) = await without_and_with_recovery(browser, steps, tmp_path)
    assert status_off == "failed"
    assert status_on == "done", moves
    assert "recover: searched again more broadly: it is listed as 'Acme Massage Roller 45 cm'" in moves


@pytest.mark.parametrize("search_expects_it", [False, True], ids=["open-fails", "search-fails"])
async def test_an_item_a_search_keeps_missing_is_found_under_its_own_name_by_searching_in_other_words(
    browser: BrowserPool, tmp_path: Path, search_expects_it: bool
) -> None:
    """Whether the step that opens the item finds nothing, or the search's own step expects it listed."""
    wanted = "Zenith Yoga Block"
    steps = search_and_open(wanted)
    if search_expects_it:
        steps[2] = steps[2].model_copy(update={"expect": Expect(role="link", name=wanted)})
    # the agent lacking exploration fails either way (waiting and loading the results again list nothing under
    # it): shown once, as it waits out every retry
    lacking = ("reference-without-exploration",) if not search_expects_it else ()
    runs = await run_agents(browser, steps, tmp_path, "reference-without-patience", *lacking)
    status, moves, _ = runs["reference-without-patience"]
    assert status == "done", moves
    assert f"recover: searched again more broadly: it is listed as {wanted!r}" in moves
    for spec in lacking:
        status, moves, _ = runs[spec]
        assert status == "failed", moves


async def test_the_page_of_another_same_named_item_is_ruled_out_as_it_loads(browser: BrowserPool,
                                                                           tmp_path: Path) -> None:
    site = Site()
    async with serving(site) as base:
        context = await browser.new_context("")
        page = await context.new_page()
        wanted = Expect(role="heading", name="Trail Mug", timeout_ms=600_000)
        told = {}
        for slug in ("mug-lite", "mug"):
            await page.goto(f"{base}/page/mugs")
            left = page.url
            await page.goto(f"{base}/item/{slug}")
            told[slug] = await heading_or_another(page, wanted, left, wanted.timeout_ms)
        # the page it started on, and one that names no item like it, tell nothing (a short wait here: they
        # would be waited out)
        await page.goto(f"{base}/item/mat")
        told["mat"] = await heading_or_another(page, wanted, page.url, 500)
        await page.goto(f"{base}/page/mugs")
        told["left"] = await heading_or_another(page, wanted, page.url, 500)
        await context.close()
    assert told == {"mug-lite": "another", "mug": "wanted", "mat": "late", "left": "late"}
    steps = [PlanStep(do="goto", url="/page/mugs"),
             PlanStep.model_validate({"do": "click", "role": "link", "name": "Trail Mug", "exact": False,
                                      "expect": {"role": "heading", "name": "Trail Mug"}})]
    status, moves, _ = await run(browser, steps, recovery=True, tmp_path=tmp_path)
    assert status == "done", moves
    assert moves == ["recover: trying candidate 2 of 3", "recover: trying candidate 3 of 3"], moves


async def test_an_item_whose_own_link_opened_a_failing_page_is_not_searched_for_in_other_words(
    browser: BrowserPool, tmp_path: Path
) -> None:
    # The search listed it (its link was clicked): its page failing once is the page's trouble, not the search's.
    site = Site()
    site.unavailable_once, site.forum_like_results = {"mat"}, True
    status, moves, _ = await run(browser, search_and_open("Acme Yoga Mat"), recovery=True, tmp_path=tmp_path,
                                 site=site)
    assert status == "done", moves
    assert not any("searched again" in move for move in moves), moves
    assert not site.unavailable_once  # the failing page was met


async def test_results_that_failed_to_load_are_loaded_again_not_searched_for_again(browser: BrowserPool,
                                                                                 tmp_path: Path) -> None:
    # Loading the failed page again is patience's move, and it shows what the step wanted: searching again would
    # need the query typed again (state tracking's), as the results page has no search box.
    steps = [PlanStep(do="goto", url="/page/search"), PlanStep(do="fill", role="searchbox", name="Search",
                                                               value="Acme Yoga Mat"),
             PlanStep(do="press", role="searchbox", name="Search", key="Enter",
                      expect=Expect(text="Acme Yoga Mat", url_contains="/find"))]
    runs = {}
    for spec in ("reference-without-state_tracking", "reference-without-patience"):
        site = Site()
        site.results_unavailable_once = True
        runs[spec] = await run_agent(browser, steps, spec, tmp_path, site)
        assert not site.results_unavailable_once
    status, moves, _ = runs["reference-without-state_tracking"]
    assert status == "done", moves
    assert moves == ["recover: the page had failed to load: loaded again, it shows what the step wanted"]
    assert runs["reference-without-patience"][0] == "failed", runs["reference-without-patience"]


async def test_a_write_is_looked_for_on_the_later_pages_of_the_list_where_it_shows(
    browser: BrowserPool, tmp_path: Path
) -> None:
    effect = {"effect": {"visit": "/listing", "expect": {"text": "Your item is saved"}}}
    status, moves, hits = await run(browser, plan("plain", **effect), recovery=True, tmp_path=tmp_path)
    assert status == "done" and moves == []
    assert hits == ["save"], "found on page 2: the write must not be repeated"


async def test_a_choice_made_on_an_earlier_stage_of_the_same_page_is_made_again_after_a_reload(
    browser: BrowserPool, tmp_path: Path
) -> None:
    steps = [PlanStep(do="goto", url="/page/stages"), PlanStep(do="check", role="radio", name="Green"),
             PlanStep.model_validate({"do": "click", "role": "button", "name": "Continue",
                                      "expect": {"role": "heading", "name": "Review"}}),
             *plan("stages")[1:]]
    status, moves, hits = await run(browser, steps, recovery=True, tmp_path=tmp_path)
    assert status == "done", moves
    assert moves == ["recover: reloaded the page to repeat the action", "recover: filled the form again (1 fields)"]
    assert hits == ["green", "save"], "the address changed, the document did not: the choice is made again"

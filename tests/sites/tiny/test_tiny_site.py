"""The tiny site is a whole site: the kit serves it, the grader grades its task, its variant's fault fires."""

import json
import re
from difflib import SequenceMatcher
from pathlib import Path
from typing import Any

import httpx
import pytest

from grader.verdict import grade
from scenarios.schema import Task
from sites.kit.episode import SiteEpisode
from sites.kit.site import WorldSetup
from sites.registry import load_site_catalog
from sites.server import build
from tests.sites.html import Doc
from tests.sites.tiny.site import SITE

CATALOG = load_site_catalog(Path(__file__).parent / "catalog", extra=[SITE])
TASK = CATALOG.tasks["tiny_mark_done"]
VARIANT = CATALOG.variants["tiny_lookalike_todos"]


def open_episode(seed: int = 3, faults: list[dict[str, Any]] | None = None) -> tuple[httpx.AsyncClient, SiteEpisode]:
    public, _, store = build(extra=[SITE])
    episode = store.create(site="tiny", task_id=TASK.id, seed=seed, setup=WorldSetup(), faults=faults or [])
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=public), base_url="http://tiny.test",
                               headers={"X-Webchaos-Episode": episode.id})
    return client, episode


def verdict_of(episode: SiteEpisode) -> Any:
    return grade(TASK, episode.bindings, json.loads(episode.initial_state), json.loads(episode.state_bytes()),
                 vocabulary=SITE.profile.vocabulary)


def filled(value: str, episode: SiteEpisode) -> str:
    return re.sub(r"\{target\.(\w+)\}", lambda m: str(episode.bindings["target"][m.group(1)]), value)


async def follow_plan(client: httpx.AsyncClient, episode: SiteEpisode, task: Task) -> Doc:
    """Walk the task's plan over HTTP as a browser would: links by their exact name, the button as its
    script does (the JSON call, then the page with its notice); each step's `expect` must hold."""
    html = ""
    for step in task.plan:
        page = Doc(html)
        if step.do == "goto":
            html = (await client.get(str(step.url))).text
        elif step.role == "link":
            [link] = page.links(filled(str(step.name), episode))
            html = (await client.get(link.attrs["href"])).text
        else:
            assert (step.role, step.name) == ("button", "Mark done") and page.buttons("Mark done")
            todo = page.all("form")[0].attrs["data-todo"]
            assert (await client.post(f"/api/todos/{todo}/done")).status_code == 200
            html = (await client.get(f"/todos/{todo}?notice=done")).text
        if step.expect is not None and step.expect.name is not None:
            assert Doc(html).heading() == filled(step.expect.name, episode)
        if step.expect is not None and step.expect.text is not None:
            assert step.expect.text in html
    return Doc(html)


async def test_pages_render_on_the_kit_layout_with_no_external_urls() -> None:
    client, episode = open_episode()
    async with client:
        for path in ("/", f"/todos/{episode.bindings['target']['id']}", "/login"):
            reply = await client.get(path)
            assert reply.status_code == 200, path
            assert 'class="skip-link"' in reply.text and "/static/kit.css?v=" in reply.text
            assert "/static/tiny.js?v=" in reply.text
            assert not re.search(r"(src|href|action)=\"(https?:)?//", reply.text), path
        assert (await client.get("/static/tiny.js")).status_code == 200


async def test_bad_requests_are_4xx_and_an_unknown_id_is_404() -> None:
    client, _ = open_episode()
    async with client:
        assert (await client.get("/todos/nope")).status_code == 404
        assert (await client.post("/api/todos/nope/done")).json() == {"detail": "no to-do 'nope'"}
        assert (await client.get("/api/todos/t1/done")).status_code == 405
        assert (await client.get("/", headers={"X-Webchaos-Episode": ""})).status_code == 400
        assert (await client.get("/", headers={"X-Webchaos-Episode": "ep99999"})).status_code == 404


async def test_same_seed_same_bytes() -> None:
    pages = []
    for _ in range(2):
        client, episode = open_episode(seed=11, faults=VARIANT.faults)
        async with client:
            pages.append((episode.state_bytes(), (await client.get("/")).text))
    assert pages[0] == pages[1]
    other, episode = open_episode(seed=12)
    await other.aclose()
    assert episode.state_bytes() != pages[0][0]


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_plan_passes_and_doing_nothing_fails(seed: int) -> None:
    client, episode = open_episode(seed)
    assert not verdict_of(episode).success
    async with client:
        page = await follow_plan(client, episode, TASK)
    assert page.role("status")[0].text == "Marked done"
    verdict = verdict_of(episode)
    assert verdict.success, verdict.failures
    assert [e.name for e in episode.events if e.kind == "commit"] == ["mark_done"]


def loosely_named(page: Doc, name: str) -> str:
    """What a careless agent clicks: the first link whose name is close to `name` (not equal to it)."""
    return next(a.attrs["href"] for a in page.all("a") if SequenceMatcher(None, a.text, name).ratio() >= 0.7)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_decoys_fire_catch_a_loose_match_and_the_plan_still_passes(seed: int) -> None:
    naive, naive_episode = open_episode(seed, VARIANT.faults)
    decoys = naive_episode.bindings["decoy_ids"]
    [line] = [line for line in naive_episode.ledger.lines if line["type"] == "decoy_items"]
    assert line["layer"] == "seed" and line["detail"]["added"] == decoys and len(decoys) == 2
    async with naive:
        href = loosely_named(Doc((await naive.get("/")).text), naive_episode.bindings["target"]["name"])
        assert href.removeprefix("/todos/") in decoys
        assert (await naive.post(f"/api{href}/done")).status_code == 200
    assert not verdict_of(naive_episode).success

    careful, episode = open_episode(seed, VARIANT.faults)
    async with careful:
        await follow_plan(careful, episode, TASK)
    assert verdict_of(episode).success


# --- docs/extending.md shows this folder: its excerpts and its line count must match the files ---------

FIXTURE = Path(__file__).parent
EXTENDING = (FIXTURE.parents[2] / "docs" / "extending.md").read_text(encoding="utf-8")


def test_the_docs_excerpts_are_in_the_files_they_name() -> None:
    excerpts = re.findall(r"<!-- excerpt: (\S+) -->\n```\w*\n(.*?)\n```", EXTENDING, flags=re.S)
    assert len(excerpts) >= 7
    for path, text in excerpts:
        assert text in (FIXTURE.parents[2] / path).read_text(encoding="utf-8"), path


def test_the_docs_state_this_folders_line_count() -> None:
    files = [p for p in FIXTURE.rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    count = sum(len(p.read_text(encoding="utf-8").splitlines()) for p in files)
    tests = len(Path(__file__).read_text(encoding="utf-8").splitlines())
    stated = f"the whole folder is **{count} lines**"
    assert stated in EXTENDING and f"{count - tests} lines of site and catalog,\nand {tests} of tests" in EXTENDING

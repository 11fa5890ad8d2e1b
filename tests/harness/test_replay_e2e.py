"""Replay end to end: real stack, real reference agent in Chromium, rrweb recording, replay.html in Chromium.

1. Recording changes nothing the agent sees or does: the same scripted episode (reference agent,
   shop base task, seed 1) with rrweb recording on and off leaves the same final state bytes, the
   same GUI actions, and a final screenshot with the same pixels.
2. replay.html opens offline in Chromium without console errors; clicking a fault firing on its
   timeline seeks the player to that moment, and the replayed page shows the fault (the cookie
   banner) there and not before. The screenshot is kept as docs/screens/replay.png
   (with WEBCHAOS_UPDATE_SCREENSHOTS=1).
"""

import json
import struct
import time
import zlib
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import async_playwright

from harness.agents import ReferenceAgent
from harness.config import find_chromium
from harness.episodes.manager import EpisodeSpec
from harness.reporting.html import REPORT_NAME
from harness.run.runner import run_matrix
from harness.services.processes import Services
from proxy_addons.rrweb import player_assets, record_script
from tests.harness.episodes import CATALOG, jsonl
from tests.screens import keep_screenshot

pytestmark = [
    pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(record_script() is None or player_assets() is None, reason="rrweb not installed (make rrweb)"),
]

BANNER = "We value your privacy"
TRANSITION_NOISE_LEVELS = 2  # per colour channel: the last frames of a fade


def pixels(path: Path) -> tuple[int, int, bytes]:
    """A PNG's size and raw pixel rows, unfiltered (8-bit RGB/RGBA, not interlaced: what Chromium writes)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
    bpp = 3 if colour == 2 else 4
    raw, stride = zlib.decompress(idat), width * bpp
    out, prev = bytearray(), bytearray(stride)
    for y in range(height):
        kind, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = row[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                row[i] = (row[i] + a) & 255
            elif kind == 2:
                row[i] = (row[i] + b) & 255
            elif kind == 3:
                row[i] = (row[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += row
        prev = row
    return width, height, bytes(out)


async def one_episode(stack: Services, runs_dir: Path, run_id: str, variant: str | None,
                      record_replay: bool = True) -> Path:
    spec = EpisodeSpec(CATALOG.tasks["shop_add_to_cart"], CATALOG.variants[variant] if variant else None, 1)
    summary, run_dir = await run_matrix([spec], [ReferenceAgent()], run_id=run_id, runs_dir=runs_dir, stack=stack,
                                        concurrency=1, time_budget_s=90, record_replay=record_replay)
    (result,) = summary.episodes
    assert result.error is None and result.success, result
    return run_dir / "episodes" / result.episode_id


def what_the_agent_did(folder: Path) -> list[tuple[Any, ...]]:
    return [(a["kind"], a["page"], json.dumps(a.get("target"), sort_keys=True), a.get("url"), a.get("value"))
            for a in jsonl(folder / "actions.jsonl")]


async def test_recording_changes_nothing_the_agent_sees_or_does(stack: Services, tmp_path: Path) -> None:
    on = await one_episode(stack, tmp_path, "on", None, record_replay=True)
    off = await one_episode(stack, tmp_path, "off", None, record_replay=False)

    recorded = jsonl(on / "rrweb.jsonl")
    snapshots = [x for x in recorded if x.get("event", {}).get("type") == 2]
    assert len(snapshots) >= 3, "recording on: every page of the episode has a full snapshot"
    assert not any(x.get("truncated") for x in recorded)
    assert not (off / "rrweb.jsonl").exists()
    print(f"\nrrweb.jsonl: {(on / 'rrweb.jsonl').stat().st_size} bytes, {len(recorded) - 1} events, "
          f"{len(snapshots)} pages; replay.html {(on / 'replay.html').stat().st_size} bytes; "
          f"HAR {(on / 'trace.har').stat().st_size} (on) vs {(off / 'trace.har').stat().st_size} (off) bytes")

    assert (on / "state_final.json").read_bytes() == (off / "state_final.json").read_bytes()
    assert (on / "state_initial.json").read_bytes() == (off / "state_initial.json").read_bytes()
    assert what_the_agent_did(on) == what_the_agent_did(off)
    assert [e["name"] for e in jsonl(on / "events.jsonl")] == [e["name"] for e in jsonl(off / "events.jsonl")]
    shots_on = sorted(p.name for p in (on / "screenshots").iterdir())
    assert shots_on == sorted(p.name for p in (off / "screenshots").iterdir()) and shots_on
    for name in shots_on:
        if (on / "screenshots" / name).read_bytes() == (off / "screenshots" / name).read_bytes():
            continue  # same file, same pixels
        w1, h1, p1 = pixels(on / "screenshots" / name)
        w2, h2, p2 = pixels(off / "screenshots" / name)
        assert (w1, h1) == (w2, h2)
        # A screenshot taken while a transition (a toast, a button's hover) settles differs by a level or two in
        # a few pixels from one run to the next, recording or not (seen: 71 bytes off by 1 in a 150 x 50 box);
        # what a recorder could change (an element added, moved, restyled) is far more than that.
        off_by = [abs(a - b) for a, b in zip(p1, p2, strict=True) if a != b]
        assert max(off_by) <= TRANSITION_NOISE_LEVELS, (
            f"{name}: {len(off_by)} bytes differ, by up to {max(off_by)} levels")


async def test_replay_html_seeks_to_a_fault_firing_and_shows_the_page_then(stack: Services, tmp_path: Path) -> None:
    folder = await one_episode(stack, tmp_path, "overlay", "shop_product_overlay_returns")
    replay = folder / "replay.html"
    assert replay.is_file(), "the runner writes replay.html for every episode"
    report = (folder.parent.parent / REPORT_NAME).read_text()
    assert f'href="episodes/{folder.name}/replay.html"' in report
    html = replay.read_text()
    assert "<script src=" not in html and "<link " not in html and "http://cdn" not in html.lower()
    firing = next(x for x in jsonl(folder / "faults.jsonl")
                  if x["layer"] == "client" and x.get("detail", {}).get("event") == "fired")

    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=find_chromium(), args=["--no-sandbox"])
        try:
            context = await browser.new_context(viewport={"width": 1440, "height": 900}, offline=True)
            page = await context.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(f"{m.type}: {m.text}") if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
            started = time.perf_counter()
            await page.goto(replay.as_uri())
            await page.wait_for_function("window.webchaosReplay && window.webchaosReplay.player")
            await page.wait_for_selector(".replayer-wrapper iframe")

            async def replayed_text() -> str:
                await page.wait_for_timeout(400)  # the replayer applies a seek on the next frames
                return str(await page.evaluate("""() => {
                    const doc = document.querySelector('.replayer-wrapper iframe').contentDocument;
                    let text = doc.body.innerText;  // and the faults' open shadow roots, as rrweb rebuilt them
                    for (const el of doc.querySelectorAll('*')) {
                        if (el.shadowRoot) { text += '\\n' + el.shadowRoot.textContent; }
                    }
                    return text;
                }"""))

            # Before the fault: the first thing the agent did (on the home page) shows no banner.
            await page.click("ol.items li.action")
            assert BANNER not in await replayed_text()

            row = page.locator(f"ol.items li#fault-{firing['seq']}")
            await row.click()
            now = await page.evaluate("window.webchaosReplay.currentT()")
            # The player is at the firing; or, when the fault fired while its page was still loading
            # (before rrweb's first snapshot of it), at that snapshot, a moment later: not before the firing,
            # and before the agent's next action (which needed the page loaded). By order, not by a bound in
            # ms: how much later the snapshot came is the recording machine's speed.
            after = [a["t_ms"] for a in jsonl(folder / "actions.jsonl") if a["t_ms"] > firing["t_ms"]]
            assert firing["t_ms"] - 50 < now <= min(after, default=now), (now, firing["t_ms"], after[:1])
            text = await replayed_text()
            assert BANNER in text and "Add to cart" in text
            assert "active" in (await row.get_attribute("class") or "")
            elapsed = time.perf_counter() - started
            await page.wait_for_timeout(300)
            keep_screenshot(await page.screenshot(), "replay.png")
            print(f"\nreplay.html {replay.stat().st_size} bytes; opened, seeked twice in {elapsed:.1f} s")
            assert problems == []
        finally:
            await browser.close()

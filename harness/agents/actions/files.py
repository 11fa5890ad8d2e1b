"""Files: choosing one of the user's files for an upload control, saving a download and opening it to read.

A person who downloads an invoice opens it; the agent does the same: it saves the file under the
episode's `downloads/` folder and opens it in the tab, so the plan's next steps (an `answer`) read it like
any page, and a `goto` brings the tab back to the site.
"""

import re
from pathlib import Path

from playwright.async_api import Locator, Page

from harness.agents.actions import action
from harness.agents.base import EpisodeContext
from harness.agents.perception import StepFailed
from scenarios.answers import Answer
from scenarios.schema import USER_FILES_DIR, PlanStep

DOWNLOADS_DIR = "downloads"  # of the episode's directory: what the agent downloaded
OPENS_IN_BROWSER = {".html", ".htm", ".txt", ".csv", ".json", ".xml", ".svg", ".png", ".jpg", ".jpeg"}


@action("upload")
async def upload(page: Page, ctx: EpisodeContext, step: PlanStep, target: Locator, wait_ms: int) -> Answer | None:
    """Click the control and choose the named file from the user's files in the chooser it opens."""
    path = ctx.out_dir / USER_FILES_DIR / (step.value or "")
    if not path.is_file():
        raise StepFailed(f"the user has no file named {step.value!r}")
    async with page.expect_file_chooser(timeout=wait_ms) as chooser:
        await target.click(timeout=wait_ms)
    await (await chooser.value).set_files(path)
    return None


@action("download")
async def download(page: Page, ctx: EpisodeContext, step: PlanStep, target: Locator, wait_ms: int) -> Answer | None:
    """Click the control, save what it downloads and open the file in the tab (a kind a browser shows)."""
    async with page.expect_download(timeout=wait_ms) as started:
        await target.click(timeout=wait_ms)
    got = await started.value
    if failure := await got.failure():
        raise StepFailed(f"the download of {got.suggested_filename!r} failed: {failure}")
    saved = _free_path(ctx.out_dir / DOWNLOADS_DIR, got.suggested_filename)
    await got.save_as(saved)
    if saved.suffix.lower() not in OPENS_IN_BROWSER:
        raise StepFailed(f"downloaded {saved.name!r}, a kind of file the browser does not show")
    await page.goto(saved.resolve().as_uri(), wait_until="domcontentloaded")
    return None


def _free_path(folder: Path, suggested: str) -> Path:
    """A path in `folder` for a download named `suggested` (made a plain, safe name; numbered when taken)."""
    folder.mkdir(parents=True, exist_ok=True)
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(suggested).name).lstrip(".") or "download"
    path, number = folder / name, 1
    while path.exists():
        number += 1
        path = folder / f"{Path(name).stem} ({number}){Path(name).suffix}"
    return path

"""A Chromium for an agent that attaches by CDP (`--browser cdp`, `up --cdp`, `Episode.cdp_url`).

One Chromium process per episode, with its own throw-away profile folder: cookies,
storage, cache and tabs of one episode can never be seen by another. It uses the
episode's proxy port (and trusts only the proxy's CA when the stack serves HTTPS),
opens the start URL in its one tab, and listens for DevTools on a loopback port
chosen by Chromium itself (read back from the profile's `DevToolsActivePort`, so
there is no race for a free port). The action recorder needs nothing from here:
the proxy injects it into every page, whoever drives the browser.
"""

import asyncio
import contextlib
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

from harness.browser.pool import CHROMIUM_ARGS
from harness.config import find_chromium
from harness.services.processes import _die_with_parent, stop_process_group


class CdpBrowserError(RuntimeError):
    pass


class CdpBrowser:
    """A headless Chromium process reachable at `cdp_url` (http://127.0.0.1:<port>)."""

    def __init__(self, proxy_url: str, *, start_url: str = "about:blank", spki_pins: Sequence[str] = (),
                 headless: bool = True, log_path: Path | None = None,
                 window_size: tuple[int, int] = (1280, 900), extra_args: Sequence[str] = ()) -> None:
        self.proxy_url = proxy_url
        self.start_url = start_url
        self.spki_pins = list(spki_pins)
        self.headless = headless
        self.log_path = log_path
        self.window_size = window_size
        self.extra_args = list(extra_args)
        self.port = 0
        self.ws_path = ""
        self.profile_dir: Path | None = None
        self._process: asyncio.subprocess.Process | None = None

    @property
    def cdp_url(self) -> str:
        """The DevTools HTTP endpoint: what Playwright's `connect_over_cdp`, browser-use and Playwright MCP take."""
        if not self.port:
            raise CdpBrowserError("the browser is not started")
        return f"http://127.0.0.1:{self.port}"

    @property
    def process(self) -> asyncio.subprocess.Process | None:
        """The Chromium process while started (None once stopped)."""
        return self._process

    @property
    def ws_url(self) -> str:
        """The browser's DevTools WebSocket (what a raw CDP client opens)."""
        if not self.port:
            raise CdpBrowserError("the browser is not started")
        return f"ws://127.0.0.1:{self.port}{self.ws_path}"

    def argv(self, profile_dir: Path) -> list[str]:
        args = [
            find_chromium(), *CHROMIUM_ARGS,
            f"--user-data-dir={profile_dir}",
            f"--proxy-server={self.proxy_url}",
            "--remote-debugging-port=0",
            "--remote-debugging-address=127.0.0.1",
            "--remote-allow-origins=http://127.0.0.1",
            f"--window-size={self.window_size[0]},{self.window_size[1]}",
            "--no-default-browser-check",
            "--password-store=basic",
            "--use-mock-keychain",
        ]
        if self.headless:
            args.append("--headless=new")
        if self.spki_pins:
            args.append(f"--ignore-certificate-errors-spki-list={','.join(self.spki_pins)}")
        return [*args, *self.extra_args, self.start_url]

    async def start(self, timeout_s: float = 20.0) -> "CdpBrowser":
        self.profile_dir = Path(tempfile.mkdtemp(prefix="webchaos-cdp-"))
        log = self.log_path.open("ab") if self.log_path is not None else None
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.argv(self.profile_dir), stdin=asyncio.subprocess.DEVNULL,
                stdout=log or asyncio.subprocess.DEVNULL, stderr=log or asyncio.subprocess.DEVNULL,
                start_new_session=True, preexec_fn=_die_with_parent,
            )
        except BaseException:
            self._remove_profile()
            raise
        finally:
            if log is not None:
                log.close()
        try:
            await self._wait_for_devtools(timeout_s)
        except BaseException:
            await self.stop()
            raise
        return self

    async def _wait_for_devtools(self, timeout_s: float) -> None:
        assert self.profile_dir is not None and self._process is not None
        marker = self.profile_dir / "DevToolsActivePort"
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._process.returncode is not None:
                raise CdpBrowserError(f"chromium exited with {self._process.returncode} before DevTools was up")
            with contextlib.suppress(OSError, ValueError):
                lines = marker.read_text().splitlines()
                if len(lines) >= 2:
                    self.port, self.ws_path = int(lines[0]), lines[1].strip()
                    return
            await asyncio.sleep(0.05)
        raise CdpBrowserError(f"chromium did not open DevTools within {timeout_s:.0f}s")

    async def screenshots(self, folder: Path, prefix: str) -> list[Path]:
        """A PNG of every open tab (`<prefix>.png`, then `<prefix>-2.png` …); nothing if the browser is gone."""
        from playwright.async_api import Error as PlaywrightError
        from playwright.async_api import async_playwright

        saved: list[Path] = []
        if self._process is None or self._process.returncode is not None:
            return saved
        try:
            async with async_playwright() as playwright:
                browser = await playwright.chromium.connect_over_cdp(self.cdp_url, timeout=10_000)
                pages = [page for context in browser.contexts for page in context.pages]
                folder.mkdir(parents=True, exist_ok=True)
                for index, page in enumerate(pages, start=1):
                    path = folder / (f"{prefix}.png" if index == 1 else f"{prefix}-{index}.png")
                    with contextlib.suppress(PlaywrightError):
                        await page.screenshot(path=str(path), timeout=5_000)
                        saved.append(path)
        except PlaywrightError:
            pass  # a screenshot is evidence, not a result: never fail an episode over it
        return saved

    async def stop(self, grace_s: float = 3.0) -> None:
        process, self._process = self._process, None
        if process is not None:
            await stop_process_group(process, grace_s)
        self.port = 0
        self._remove_profile()

    def _remove_profile(self) -> None:
        if self.profile_dir is not None:
            shutil.rmtree(self.profile_dir, ignore_errors=True)
            self.profile_dir = None

    async def __aenter__(self) -> "CdpBrowser":
        return await self.start()

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await asyncio.shield(self.stop())

"""One headless Chromium per run; one isolated context per episode, each on its own proxy port."""

from typing import Any

from playwright.async_api import Browser, BrowserContext, Playwright, async_playwright

from harness.config import find_chromium

# Chromium talks to Google on its own unless told not to; the proxy would refuse it anyway.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--disable-features=Translate,OptimizationHints,MediaRouter,AutofillServerCommunication",
]


class BrowserPool:
    def __init__(self, headless: bool = True) -> None:
        self.headless = headless
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    async def start(self) -> "BrowserPool":
        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=find_chromium(), headless=self.headless, args=CHROMIUM_ARGS,
        )
        return self

    async def new_context(self, proxy_url: str, **options: Any) -> BrowserContext:
        if self._browser is None:
            raise RuntimeError("BrowserPool.start() was not awaited")
        return await self._browser.new_context(
            proxy={"server": proxy_url}, viewport={"width": 1280, "height": 900}, **options
        )

    async def stop(self) -> None:
        if self._browser is not None:
            await self._browser.close()
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    async def __aenter__(self) -> "BrowserPool":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

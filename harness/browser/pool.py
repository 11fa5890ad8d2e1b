"""One headless Chromium per run; one isolated context per episode, each on its own proxy port.

HTTPS (`--https`): the proxy intercepts https://<site> with its own CA. Chromium is
not told to ignore certificate errors in general; it trusts only the keys pinned with
`--ignore-certificate-errors-spki-list` (the SHA-256 of the CA's SubjectPublicKeyInfo,
base64): a started `Stack` exposes them as `spki_pins`, and the pool is given them.
"""

import asyncio
import base64
import hashlib
import logging
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from playwright.async_api import Browser, BrowserContext, Page, Playwright, Request, async_playwright
from playwright.async_api import Error as PlaywrightError

from harness.config import find_chromium

log = logging.getLogger(__name__)

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


# What a page sends as it goes (the recorder's last actions, rrweb's last batch, posted on `pagehide`) it is asked
# to send while it is still alive: under load, Chromium may end a closing page's renderer before its own
# `pagehide` handlers have run, or tear the context down while what they sent is on its way (seen: a frame's last
# click missing from actions.jsonl). Those scripts send only what is new, so the real `pagehide` sends nothing twice.
_PAGEHIDE = "() => window.dispatchEvent(new PageTransitionEvent('pagehide', {persisted: false}))"
SENT_AS_IT_GOES_WAIT_S = 10.0  # a bound for a stalled machine: closing then goes on as it did
# A page closed while its navigation is still on its way, on a loaded machine, may never confirm the close (seen:
# the agent without recoveries, its search answering in 6 s, held 240 s until the runner stopped it): the
# context's own close, which follows, ends it.
PAGE_CLOSE_WAIT_S = 10.0


async def _send_what_it_would_send_on_leaving(page: Page) -> None:
    """Dispatch `pagehide` to each of the page's frames and wait (bounded) for the requests that starts."""
    started: list[Request] = []

    def on_request(request: Request) -> None:
        started.append(request)

    page.on("request", on_request)
    try:
        for frame in page.frames:
            try:
                await frame.evaluate(_PAGEHIDE)
            except PlaywrightError:  # the frame went away, or the page is closing
                continue
        if started:  # a request that failed is as done as one answered
            await asyncio.wait_for(asyncio.gather(*(request.response() for request in started),
                                                  return_exceptions=True), SENT_AS_IT_GOES_WAIT_S)
    except TimeoutError:
        pass  # what is still on its way goes out with the page's own pagehide, as before
    finally:
        page.remove_listener("request", on_request)


def _close_pages_first(context: BrowserContext) -> None:
    """Make `context.close()` close its pages first, each once it has sent what it sends as it goes (above). A
    page's `pagehide` handlers then run and what they send goes out: the headless shell drops those requests
    when a context closes with its pages still open, where chromium sends them."""
    close_context = context.close

    async def close(reason: str | None = None) -> None:
        for page in list(context.pages):
            try:
                await asyncio.wait_for(_send_what_it_would_send_on_leaving(page), 2 * SENT_AS_IT_GOES_WAIT_S)
                await asyncio.wait_for(page.close(), PAGE_CLOSE_WAIT_S)
            except PlaywrightError:  # closed already, or the browser is gone: the context's close says which
                pass
            except TimeoutError:
                log.info("a page of the closing context did not close in %.0f s: the context's close ends it",
                            PAGE_CLOSE_WAIT_S)
        await close_context(reason=reason)

    context.close = close  # type: ignore[method-assign]


def spki_hash(cert_pem: bytes) -> str:
    """base64(SHA-256(SubjectPublicKeyInfo)) of a PEM certificate, as Chromium's SPKI list wants it."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


class BrowserPool:
    """`on_death(pool)` is called when its Chromium goes away without `stop()` (killed, crashed): every
    context is gone with it, and `alive` is False; the runner then launches another pool."""

    def __init__(self, headless: bool = True, spki_pins: Sequence[str] = (),
                 on_death: "Callable[[BrowserPool], None] | None" = None) -> None:
        self.headless = headless
        self.spki_pins = list(spki_pins)
        self.on_death = on_death
        self.pid: int | None = None  # Chromium's browser process (a child of Playwright's driver)
        self.alive = False
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    async def start(self) -> "BrowserPool":
        marker = f"--webchaos-pool={uuid.uuid4().hex}"  # Chromium ignores it; it finds the process
        args = [*CHROMIUM_ARGS, marker]
        if self.spki_pins:
            args.append(f"--ignore-certificate-errors-spki-list={','.join(self.spki_pins)}")
        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=find_chromium(headless=self.headless), headless=self.headless, args=args,
        )
        self.alive = True
        self.pid = _pid_with_arg(marker)
        self._browser.on("disconnected", lambda _browser: self._disconnected())
        return self

    def _disconnected(self) -> None:
        if not self.alive:
            return
        self.alive = False
        if self.on_death is not None:
            self.on_death(self)

    def death_cause(self) -> str:
        return f"the run's chromium (pid {self.pid}) disconnected: the browser process is gone"

    async def new_context(self, proxy_url: str, **options: Any) -> BrowserContext:
        if self._browser is None:
            raise RuntimeError("BrowserPool.start() was not awaited")
        context = await self._browser.new_context(
            proxy={"server": proxy_url}, viewport={"width": 1280, "height": 900}, **options
        )
        _close_pages_first(context)
        return context

    async def stop(self) -> None:
        self.alive = False
        if self._browser is not None:
            try:
                await self._browser.close()
            except Exception:  # already gone
                pass
            self._browser = None
        if self._playwright is not None:
            await self._playwright.stop()
            self._playwright = None

    async def __aenter__(self) -> "BrowserPool":
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


def _pid_with_arg(arg: str) -> int | None:
    """The browser process (not a renderer or helper: no --type=) launched with `arg`."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        if arg in cmdline and not any(part.startswith("--type=") for part in cmdline):
            return int(entry.name)
    return None

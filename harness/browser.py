"""One headless Chromium per run; one isolated context per episode, each on its own proxy port.

HTTPS (`--https`): the proxy intercepts https://<site> with its own CA. Chromium is
not told to ignore certificate errors in general; it trusts only the keys pinned with
`--ignore-certificate-errors-spki-list` (the SHA-256 of the CA's SubjectPublicKeyInfo,
base64): a started `Stack` exposes them as `spki_pins`, and the pool is given them.
"""

import base64
import hashlib
from collections.abc import Sequence
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import serialization
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


def spki_hash(cert_pem: bytes) -> str:
    """base64(SHA-256(SubjectPublicKeyInfo)) of a PEM certificate, as Chromium's SPKI list wants it."""
    cert = x509.load_pem_x509_certificate(cert_pem)
    spki = cert.public_key().public_bytes(serialization.Encoding.DER,
                                          serialization.PublicFormat.SubjectPublicKeyInfo)
    return base64.b64encode(hashlib.sha256(spki).digest()).decode("ascii")


class BrowserPool:
    def __init__(self, headless: bool = True, spki_pins: Sequence[str] = ()) -> None:
        self.headless = headless
        self.spki_pins = list(spki_pins)
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None

    async def start(self) -> "BrowserPool":
        args = CHROMIUM_ARGS
        if self.spki_pins:
            args = [*CHROMIUM_ARGS, f"--ignore-certificate-errors-spki-list={','.join(self.spki_pins)}"]
        self._playwright = await async_playwright().start()
        self._browser = await self._playwright.chromium.launch(
            executable_path=find_chromium(), headless=self.headless, args=args,
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

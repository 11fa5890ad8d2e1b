"""The reference agent: observe → ground → act → verify → recover, following the task's plan.

Targets are found by ARIA role + accessible name. Each step has a
postcondition; on failure a step is retried at most `max_retries` times after
a recovery (dismiss overlays, wait longer for a slow write, re-ground). With
recovery off the first failure ends the episode — the difference between the
two is the measured worth of recovery.
"""

import asyncio
import re
import time
from dataclasses import dataclass, field

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Locator, Page

from harness.agents.base import AgentOutcome, EpisodeContext
from scenarios.schema import Expect, PlanStep

_DISMISS = re.compile(r"^(accept( all)?|close|dismiss|got it|no,? thanks|ok|continue|reject( all)?|×|✕)$", re.I)
_CONTAINERS = "article, section, li, tr, form, fieldset, [role=region], [role=group], [role=listitem]"


class StepFailed(Exception):
    """A step's action or postcondition did not succeed."""


@dataclass
class _Tally:
    attempts: int = 0
    recoveries: int = 0
    log: list[str] = field(default_factory=list)


class ReferenceAgent:
    needs_browser = True

    def __init__(self, recovery: bool = True, max_retries: int = 2, action_timeout_ms: int = 3000) -> None:
        self.recovery = recovery
        self.max_retries = max_retries
        self.action_timeout_ms = action_timeout_ms
        self.name = "reference" if recovery else "reference-no-recovery"

    async def run(self, ctx: EpisodeContext) -> AgentOutcome:
        if ctx.browser is None:
            return AgentOutcome(status="error", error="the reference agent needs a browser")
        context = await ctx.browser.new_context(ctx.proxy_url)
        tally = _Tally()
        done = 0
        try:
            page = await context.new_page()
            page.set_default_timeout(self.action_timeout_ms)
            started = time.monotonic()
            for index, step in enumerate(ctx.plan):
                if time.monotonic() - started > ctx.time_budget_s:
                    return self._outcome("timeout", done, ctx, tally, f"time budget of {ctx.time_budget_s}s spent")
                error = await self._step(page, ctx, index, step, tally)
                if error is not None:
                    await _screenshot(page, ctx, f"failed-step-{index}")
                    where = f"step {index} ({step.do} {step.name or step.url})"
                    return self._outcome("failed", done, ctx, tally, f"{where}: {error}")
                done += 1
            await _screenshot(page, ctx, "final")
            return self._outcome("done", done, ctx, tally, None)
        finally:
            await context.close()

    def _outcome(self, status: str, done: int, ctx: EpisodeContext, tally: _Tally, error: str | None) -> AgentOutcome:
        return AgentOutcome.model_validate({
            "status": status, "steps_done": done, "steps_total": len(ctx.plan), "attempts": tally.attempts,
            "recoveries": tally.recoveries, "error": error, "log": tally.log,
        })

    async def _step(self, page: Page, ctx: EpisodeContext, index: int, step: PlanStep, tally: _Tally) -> str | None:
        acted = False
        for attempt in range(self.max_retries + 1):
            tally.attempts += 1
            try:
                if not acted:
                    await self._act(page, ctx, step)
                    acted = True
                if step.expect is not None:
                    await self._verify(page, step.expect, scale=1 + attempt)
                tally.log.append(f"step {index} {step.do} {step.name or step.url}: ok (attempt {attempt + 1})")
                return None
            except (PlaywrightError, StepFailed) as exc:
                message = _first_line(exc)
                tally.log.append(f"step {index} {step.do} {step.name or step.url}: {message}")
                if not self.recovery or attempt == self.max_retries:
                    return message
                tally.recoveries += 1
                dismissed = await _dismiss_overlays(page)
                if dismissed:
                    tally.log.append(f"recover: dismissed {dismissed}")
                    acted = acted and step.expect is not None and await _holds(page, step.expect)
                elif acted and step.expect is not None:
                    # The action went through but its effect is not visible yet: a slow write is
                    # more likely than a lost one, so wait longer before acting again (patience).
                    tally.log.append("recover: waiting longer for the postcondition")
                    if await _holds(page, step.expect, scale=3):
                        return None
                    acted = False
        return "retries exhausted"

    async def _act(self, page: Page, ctx: EpisodeContext, step: PlanStep) -> None:
        if step.do == "goto":
            assert step.url is not None
            url = step.url if "://" in step.url else ctx.start_url.rstrip("/") + "/" + step.url.lstrip("/")
            await page.goto(url, wait_until="domcontentloaded")
            return
        if step.do == "open_each":
            await self._open_each(page, step)
            return
        target = (await _ground(page, step)).first
        if step.do == "click":
            await target.click()
        elif step.do == "fill":
            await target.fill(step.value or "")
        elif step.do == "check":
            await target.check()
        elif step.do == "press":
            await target.press(step.key or "Enter")

    async def _open_each(self, page: Page, step: PlanStep) -> None:
        """Open each candidate in turn until the page satisfies `until` (compare detail pages)."""
        assert step.until is not None
        count = await (await _ground(page, step)).count()
        for index in range(count):
            await (await _ground(page, step)).nth(index).click()
            await page.wait_for_load_state("domcontentloaded")
            if await _holds(page, step.until.model_copy(update={"timeout_ms": 1500})):
                return
            await page.go_back(wait_until="domcontentloaded")
        wanted = step.until.model_dump(exclude_none=True, exclude={"timeout_ms"})
        raise StepFailed(f"none of {count} candidates named {step.name!r} satisfied {wanted}")

    async def _verify(self, page: Page, expect: Expect, scale: int = 1) -> None:
        if not await _holds(page, expect, scale):
            raise StepFailed(f"postcondition not met: {expect.model_dump(exclude_none=True, exclude={'timeout_ms'})}")


async def _ground(page: Page, step: PlanStep) -> Locator:
    scope: Page | Locator = page
    if step.within:
        scope = page.locator(_CONTAINERS).filter(has_text=step.within).last
    assert step.role is not None
    locator = scope.get_by_role(step.role, name=_name(step.name), exact=step.exact)  # type: ignore[arg-type]
    try:
        await locator.first.wait_for(state="visible", timeout=3000)
    except PlaywrightError as exc:
        raise StepFailed(f"no visible {step.role} named {step.name!r}") from exc
    return locator


def _name(name: str | None) -> str | re.Pattern[str] | None:
    """Accessible names written /like this/ are regular expressions."""
    if name and len(name) > 1 and name.startswith("/") and name.endswith("/"):
        return re.compile(name[1:-1])
    return name


async def _holds(page: Page, expect: Expect, scale: int = 1) -> bool:
    timeout = expect.timeout_ms * scale
    try:
        fragment = expect.url_contains
        if fragment:
            await page.wait_for_url(lambda url: fragment in url, timeout=timeout)
        if expect.role:
            await page.get_by_role(expect.role, name=expect.name, exact=True).first.wait_for(  # type: ignore[arg-type]
                state="visible", timeout=timeout)
        if expect.text:
            await page.get_by_text(expect.text).first.wait_for(state="visible", timeout=timeout)
    except PlaywrightError:
        return False
    return True


async def _dismiss_overlays(page: Page) -> str | None:
    """Close a visible modal dialog by its dismiss button; returns what was clicked."""
    dialogs = page.get_by_role("dialog")
    for index in range(await dialogs.count()):
        dialog = dialogs.nth(index)
        if not await dialog.is_visible():
            continue
        button = dialog.get_by_role("button", name=_DISMISS)
        if await button.count():
            label = (await button.first.inner_text()).strip() or "dismiss"
            await button.first.click(timeout=2000)
            await asyncio.sleep(0.1)
            return label
    return None


async def _screenshot(page: Page, ctx: EpisodeContext, name: str) -> None:
    try:
        (ctx.out_dir / "screenshots").mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(ctx.out_dir / "screenshots" / f"{name}.png"))
    except PlaywrightError:
        pass


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:300] if text else type(exc).__name__

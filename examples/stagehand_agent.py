"""A Stagehand (Python SDK) agent attached to the episode's Chromium, with a model callback that is
scripted (no key, no network): it answers Stagehand's structured "Act" requests by finding the
element the instruction names in the accessibility tree Stagehand sends, as a model would.

Stagehand runs its worker as a browser extension that it loads over CDP and that then dials
DevTools itself, so the episode's Chromium needs two more flags (`python examples/stagehand_agent.py
--chromium-args` prints them, with DevTools opened to that extension's origin only):

    webchaos run --task shop_add_to_cart --browser cdp \\
        $(python examples/stagehand_agent.py --chromium-args | sed 's/^/--chromium-arg=/') \\
        --agent "cmd:python examples/stagehand_agent.py"

The one line that points Stagehand at webchaos:

    browser = await local_browser.connect(cdp_url=os.environ["WEBCHAOS_CDP_URL"])

Swap `scripted_model` for a model name (`model="openai/gpt-4.1"`) or your own callback.
"""

import asyncio
import hashlib
import json
import os
import re
import sys
from typing import Any

from stagehand import Stagehand, local_browser
from stagehand._generated.models import LLMStructuredGenerateParams, LLMStructuredGenerateResult

# What the agent asks Stagehand to do; the scripted model understands exactly this phrasing.
STEP = re.compile(r"action: (click|fill|press) the (\w+) '(.+?)'(?: with '(.+?)')?\s*\.?\s")


def chromium_args() -> list[str]:
    """Flags for a Chromium that Stagehand attaches to: extension loading over CDP, and DevTools open to
    the origin of Stagehand's unpacked extension (Chromium derives its id from the folder's path)."""
    from stagehand.extension_assets import extension_directory

    digest = hashlib.sha256(str(extension_directory()).encode()).hexdigest()[:32]
    extension_id = "".join(chr(ord("a") + int(c, 16)) for c in digest)
    return ["--enable-unsafe-extension-debugging", f"--remote-allow-origins=chrome-extension://{extension_id}"]


def tree_element(tree: str, role: str, name: str) -> str | None:
    """The element id ('0-27') of the first `[0-27] role: name` line of Stagehand's accessibility tree."""
    found = re.search(rf"\[(\d+-\d+)\] {re.escape(role)}: {re.escape(name)}\s*(?:\\n|\n|$)", tree)
    return found.group(1) if found else None


async def scripted_model(params: Any) -> Any:
    if not isinstance(params, LLMStructuredGenerateParams):
        raise RuntimeError(f"the scripted model only answers structured requests, got {type(params).__name__}")
    text = "\n".join(str(getattr(m.content, "root", m.content)) for m in params.messages)
    step = STEP.search(text)
    action: dict[str, Any] | None = None
    if step:
        method, role, name, value = step.groups()
        element = tree_element(text, role, name)
        if element is not None:
            arguments = [value] if value else []
            if method == "press":
                arguments, method = [value or "Enter"], "press"
            action = {"elementId": element, "description": f"{role} {name}", "method": method,
                      "arguments": arguments}
    answer = {"action": action, "twoStep": False}
    return LLMStructuredGenerateResult.model_validate({
        "role": "assistant", "content": {"type": "text", "text": json.dumps(answer)},
        "output_format": "json_schema", "structured_content": answer,
        "usage": {"input_tokens": 0, "output_tokens": 0, "total_tokens": 0},
    })


async def main() -> int:
    wanted = re.search(r"Add one (.+?) to your shopping cart", os.environ["WEBCHAOS_INSTRUCTION"])
    if not wanted:
        print("cannot understand the instruction", file=sys.stderr)
        return 2
    product = wanted.group(1)
    browser = await local_browser.connect(cdp_url=os.environ["WEBCHAOS_CDP_URL"])
    stagehand = await Stagehand.create(browser=browser, model=scripted_model)
    # Stagehand's extension was just loaded: the tab webchaos opened at the start URL predates it and
    # has no content script until it loads again.
    page = await stagehand.browser.context.active_page()
    if page is not None:
        await page.reload(wait_until="domcontentloaded")
    try:
        for instruction in (f"fill the searchbox 'Search products' with '{product}'",
                            "press the searchbox 'Search products' with 'Enter'",
                            f"click the link '{product}'",
                            "click the button 'Add to cart'"):
            result = await stagehand.act(instruction)
            print(f"> {instruction}: {result.data.message}", flush=True)
            if not result.data.success:
                return 1
            await asyncio.sleep(0.5)
    finally:
        await stagehand.close()
    return 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--chromium-args"]:
        print("\n".join(chromium_args()))
        sys.exit(0)
    sys.exit(asyncio.run(main()))

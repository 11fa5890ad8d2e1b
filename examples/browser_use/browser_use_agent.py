"""A browser-use agent attached to the episode's Chromium, with a scripted model (no key, no network).

browser-use needs an h11 newer than mitmproxy allows, so it runs from its own venv
(`make frameworks` creates .venv-browser-use):

    webchaos run --task shop_add_to_cart --browser cdp \\
        --agent "cmd:.venv-browser-use/bin/python examples/browser_use/browser_use_agent.py"

The one line that points browser-use at webchaos:

    browser_session = BrowserSession(cdp_url=os.environ["WEBCHAOS_CDP_URL"])

`ScriptedLLM` stands in for a chat model the way browser-use's own tests fake one: it answers
each step with the agent's structured output (JSON actions). Unlike a fixed list, it reads the
element indices from the browser state browser-use sends, as a model would. Swap it for
`ChatOpenAI(...)` or any other browser-use LLM and the rest stays.
"""

import asyncio
import json
import os
import re
import sys
from typing import Any, TypeVar

# Hermetic: no telemetry, no cloud sync, no extension downloads, no update checks.
os.environ.setdefault("ANONYMIZED_TELEMETRY", "false")
os.environ.setdefault("BROWSER_USE_CLOUD_SYNC", "false")
os.environ.setdefault("BROWSER_USE_SETUP_LOGGING", "true")
os.environ.setdefault("BROWSER_USE_LOGGING_LEVEL", "info")

from browser_use import Agent, BrowserSession
from browser_use.llm.messages import BaseMessage
from browser_use.llm.views import ChatInvokeCompletion
from pydantic import BaseModel

T = TypeVar("T", bound=BaseModel)


def elements(state: str) -> list[tuple[int, str, str]]:
    """(index, tag line, text) of each interactive element in browser-use's state text, where an
    element is a line like `*[1074]<a />` and its text is on the indented lines under it."""
    found: list[tuple[int, str, str]] = []
    for line in state.splitlines():
        element = re.search(r"\[(\d+)\](<[^>]*>)", line)
        if element:
            found.append((int(element.group(1)), element.group(2), ""))
        elif found and line.startswith("\t") and line.strip():
            index, tag, text = found[-1]
            found[-1] = (index, tag, f"{text} {line.strip()}".strip())
    return found


def find(state: str, tag: str, text: str | None = None, attribute: str | None = None) -> int | None:
    for index, tag_line, label in elements(state):
        if not tag_line.startswith(f"<{tag}"):
            continue
        if (text is None or label == text or label.startswith(text)) and (attribute is None or attribute in tag_line):
            return index
    return None


class ScriptedLLM:
    """A chat model that plays a fixed strategy: search, open the product, Add to cart, confirm."""

    _verified_api_keys = True
    model = "scripted"

    def __init__(self, product: str) -> None:
        self.product = product
        self.step = 0
        self.waits = 0  # looks at a page that had not shown what the step needs yet

    @property
    def provider(self) -> str:
        return "scripted"

    @property
    def name(self) -> str:
        return "scripted"

    @property
    def model_name(self) -> str:
        return self.model

    def look_again(self, giving_up: str) -> list[dict[str, Any]]:
        self.waits += 1
        if self.waits > 5:
            return [{"done": {"text": giving_up, "success": False}}]
        return [{"wait": {"seconds": 1}}]

    def decide(self, state: str) -> list[dict[str, Any]]:
        if self.step == 0:
            box = find(state, "input", attribute="type=search")
            if box is None:
                return [{"done": {"text": "no search box", "success": False}}]
            self.step = 1
            return [{"input": {"index": box, "text": self.product}}, {"send_keys": {"keys": "Enter"}}]
        if self.step == 1:
            link = find(state, "a", self.product)
            if link is None:
                # The state may be read before the results page has loaded: look again a few times.
                return self.look_again(f"no result named {self.product}")
            self.step, self.waits = 2, 0
            return [{"click": {"index": link}}]
        if self.step == 2:
            button = find(state, "button", "Add to cart")
            if button is None:
                return self.look_again("no Add to cart button")
            self.step, self.waits = 3, 0
            return [{"click": {"index": button}}]
        self.step += 1
        if "Added to cart" in state:
            return [{"done": {"text": f"Added {self.product} to the cart", "success": True}}]
        if self.step > 6:
            return [{"done": {"text": "the shop never confirmed", "success": False}}]
        return [{"wait": {"seconds": 1}}]

    async def ainvoke(self, messages: list[BaseMessage], output_format: type[T] | None = None,
                      **kwargs: Any) -> ChatInvokeCompletion[Any]:
        # The browser state is in the latest user message, but browser-use may append a nudge after it
        # (after five steps without a plan): read the last message that carries a browser state.
        texts = [str(getattr(m, "text", "") or m.content) for m in messages]
        state = next((t for t in reversed(texts) if "<browser_state>" in t), texts[-1] if texts else "")
        if os.environ.get("SCRIPTED_LLM_DEBUG"):
            print(f"--- step {self.step} state:\n{state[:6000]}", file=sys.stderr)
        actions = self.decide(state)
        reply = {"thinking": "scripted", "evaluation_previous_goal": "", "memory": "", "next_goal": "",
                 "action": actions}
        if output_format is None:
            return ChatInvokeCompletion(completion=json.dumps(reply), usage=None)
        return ChatInvokeCompletion(completion=output_format.model_validate(reply), usage=None)


async def main() -> int:
    wanted = re.search(r"Add one (.+?) to your shopping cart", os.environ["WEBCHAOS_INSTRUCTION"])
    if not wanted:
        print("cannot understand the instruction", file=sys.stderr)
        return 2
    browser_session = BrowserSession(cdp_url=os.environ["WEBCHAOS_CDP_URL"])
    agent = Agent(task=os.environ["WEBCHAOS_INSTRUCTION"], llm=ScriptedLLM(wanted.group(1)),
                  browser_session=browser_session, use_vision=False, directly_open_url=False,
                  calculate_cost=False, use_judge=False)
    history = await agent.run(max_steps=12)
    print("final:", history.final_result())
    return 0 if history.is_successful() else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

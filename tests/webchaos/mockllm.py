"""What the scripted mockllm models of the Inspect AI tests share: finding a ref in an observation, a tool call
with stated usage, and the opening every script makes (observe, type the product into the shop's search, press
Enter). Imported after the tests' `pytest.importorskip("inspect_ai")`."""

import re
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageTool, ModelOutput, ModelUsage


def ref(tree: str, role: str, name_pattern: str) -> str | None:
    """The ref of the first `role` node whose name matches the regular expression `name_pattern` in `tree`."""
    found = re.search(rf'- {re.escape(role)} "{name_pattern}"[^\n]*?\[ref=([^\]]+)\]', tree)
    return found.group(1) if found else None


def tool_call(name: str, **arguments: Any) -> ModelOutput:
    """The model's call of tool `name`."""
    output = ModelOutput.for_tool_call("mockllm/model", name, arguments)
    # Stated usage: otherwise mockllm counts tokens with tiktoken, which downloads its encodings.
    output.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
    return output


def tool_history(messages: list[ChatMessage]) -> tuple[list[str | None], str]:
    """The tools the model has called so far, in order, and what the last of them answered ("" before any)."""
    results = [m for m in messages if isinstance(m, ChatMessageTool)]
    return [r.function for r in results], results[-1].text if results else ""


def search_step(messages: list[ChatMessage], product: str) -> ModelOutput | None:
    """The next call of the scripts' opening (observe, fill the search box with `product`, press Enter), or
    None once it is done."""
    calls, seen = tool_history(messages)
    if not calls:
        return tool_call("browser_observe")
    if "browser_fill" not in calls:
        return tool_call("browser_fill", ref=ref(seen, "searchbox", "Search products"), text=product)
    if "browser_press" not in calls:
        return tool_call("browser_press", key="Enter", ref=ref(seen, "searchbox", "Search products"))
    return None

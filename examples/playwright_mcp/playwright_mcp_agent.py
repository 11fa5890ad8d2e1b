"""An MCP agent: Playwright MCP (`@playwright/mcp`) attached to the episode's Chromium, driven by
an MCP client whose "model" is scripted (fixed steps, element references read from the
accessibility snapshots the server returns), so it needs no API key and no network.

Swap `ScriptedModel` for a real LLM and the rest stays as it is. Run it from its own venv
(the MCP SDK needs an h11 newer than mitmproxy allows); `make frameworks` creates it:

    webchaos run --task shop_add_to_cart --browser cdp \\
        --agent "cmd:.venv-mcp/bin/python examples/playwright_mcp/playwright_mcp_agent.py"

The one line that points Playwright MCP at webchaos (the server's command line):

    npx @playwright/mcp --cdp-endpoint "$WEBCHAOS_CDP_URL"      # or --proxy-server "$WEBCHAOS_PROXY"
"""

import asyncio
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

HERE = Path(__file__).resolve().parent
SERVER = HERE / "node_modules" / "@playwright" / "mcp" / "cli.js"


def find_ref(snapshot: str, role: str, name: str) -> str | None:
    """The `[ref=…]` of the first `- role "name"` line of a Playwright MCP snapshot."""
    pattern = re.compile(rf'- {re.escape(role)} "{re.escape(name)}"[^\n]*?\[ref=([^\]]+)\]')
    found = pattern.search(snapshot)
    return found.group(1) if found else None


@dataclass
class ScriptedModel:
    """Stands in for an LLM: given the latest page snapshot, returns the next tool call or a final answer
    ('done' or 'fail: …'). `ref_key` is the argument name the server's tools take an element reference by."""

    product: str
    ref_key: str = "target"
    step: int = 0
    waits: int = 0

    def next_call(self, snapshot: str) -> tuple[str, dict[str, Any]] | str:
        if self.step == 0:
            ref = find_ref(snapshot, "searchbox", "Search products")
            if ref is None:
                return "fail: no search box"
            self.step = 1
            return "browser_type", {"element": "Search products", self.ref_key: ref, "text": self.product,
                                    "submit": True}
        if self.step == 1:
            ref = find_ref(snapshot, "link", self.product)
            if ref is None:
                return f"fail: no result named {self.product}"
            self.step = 2
            return "browser_click", {"element": self.product, self.ref_key: ref}
        if self.step == 2:
            ref = find_ref(snapshot, "button", "Add to cart")
            if ref is None:
                return "fail: no Add to cart button"
            self.step = 3
            return "browser_click", {"element": "Add to cart", self.ref_key: ref}
        # Then wait for the page to confirm or refuse, a second at a time.
        if "Added to cart" in snapshot:
            return "done"
        alert = re.search(r'- alert[^\n]*?: ?"?([^"\n]+)', snapshot)
        if alert and alert.group(1).strip():
            return f"fail: the shop said {alert.group(1).strip()}"
        self.waits += 1
        if self.waits > 8:
            return "fail: no confirmation after 8 s"
        return "browser_wait_for", {"time": 1}


def text_of(result: Any) -> str:
    return "\n".join(getattr(block, "text", "") for block in getattr(result, "content", []) or [])


async def main() -> int:
    wanted = re.search(r"Add one (.+?) to your shopping cart", os.environ["WEBCHAOS_INSTRUCTION"])
    if not wanted:
        print("cannot understand the instruction", file=sys.stderr)
        return 2
    # The server's own files (console logs, snapshots) go into the episode's folder, not the working directory.
    output = Path(os.environ.get("WEBCHAOS_OUT_DIR", ".")) / "playwright-mcp"
    server = StdioServerParameters(command="node", args=[
        str(SERVER), "--cdp-endpoint", os.environ["WEBCHAOS_CDP_URL"], "--output-dir", str(output)])
    async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = {tool.name: tool for tool in (await session.list_tools()).tools}
        schema = getattr(tools["browser_click"], "input_schema", None) or tools["browser_click"].inputSchema
        model = ScriptedModel(product=wanted.group(1),
                              ref_key="target" if "target" in schema.get("properties", {}) else "ref")
        for _ in range(30):
            snapshot = text_of(await session.call_tool("browser_snapshot", {}))  # the model's observation
            call = model.next_call(snapshot)
            if isinstance(call, str):
                print(call)
                return 0 if call == "done" else 1
            name, arguments = call
            result = await session.call_tool(name, arguments)
            reply = text_of(result)
            print(f"> {name} {arguments}: {reply.splitlines()[0] if reply else ''}")
            if getattr(result, "is_error", False) or getattr(result, "isError", False):
                print(f"tool error: {reply[:500]}", file=sys.stderr)
                return 1
    return 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))

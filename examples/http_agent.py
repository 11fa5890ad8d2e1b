"""A browserless agent: plain HTTP through the webchaos proxy, standard library only.

It shows what an external agent gets (three environment variables) and does the
add-to-cart task the way a scripted client would:

    webchaos run --task shop_add_to_cart --agent "cmd:python examples/http_agent.py"
"""

import json
import os
import re
import sys
import urllib.parse
import urllib.request


def main() -> int:
    proxy = os.environ["WEBCHAOS_PROXY"]
    start = os.environ["WEBCHAOS_START_URL"].rstrip("/")
    instruction = os.environ["WEBCHAOS_INSTRUCTION"]
    wanted = re.search(r"Add one (.+?) to your shopping cart", instruction)
    if not wanted:
        print(f"cannot understand the instruction: {instruction!r}", file=sys.stderr)
        return 2
    name = wanted.group(1)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))

    with opener.open(f"{start}/search?q={urllib.parse.quote(name)}", timeout=30) as response:
        page = response.read().decode()
    # The result card links the product page with the product's name as link text.
    match = re.search(r'href="/product/([A-Za-z0-9]+)"[^>]*>\s*' + re.escape(_html(name)) + r"\s*<", page)
    if not match:
        print(f"no search result named {name!r}", file=sys.stderr)
        return 1
    request = urllib.request.Request(
        f"{start}/api/cart", data=json.dumps({"product_id": match.group(1), "quantity": 1}).encode(),
        headers={"Content-Type": "application/json"}, method="POST",
    )
    with opener.open(request, timeout=30) as response:
        print(response.status, response.read().decode())
    return 0


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")


if __name__ == "__main__":
    sys.exit(main())

"""A browserless agent that answers a question: plain HTTP through the webchaos proxy, standard library only.

It does the shop's "which seller offers it at the lowest price?" task the way a scripted client would (search,
open the product, compare every offer's price) and leaves its answer where webchaos reads it,
WEBCHAOS_ANSWER_FILE:

    webchaos run --task shop_cheapest_seller --base-only --seeds 1-3 --agent "cmd:python examples/http_answer_agent.py"

With `--dearest` it answers the seller of the most expensive offer instead: a wrong answer, to see how the
verdict names the expected and the given answer.

With `--usage` it also reports what it spent, in $WEBCHAOS_OUT_DIR/usage.json, as an agent that calls a model
would (`{"input_tokens", "output_tokens", "cost_usd", "model"}`, any of them). This one calls none, so it
reports zero tokens and zero dollars: a report of nothing spent, shown as $0, where an agent that writes no
usage.json is shown as "not reported".
"""

import html
import json
import os
import re
import sys
import urllib.parse
import urllib.request

# Each offer is a table row: the seller's link in the row header, then the price.
OFFER = re.compile(r'<th scope="row"><a href="/product/[A-Za-z0-9]+">([^<]+)</a></th>\s*<td>\$([\d,]+\.\d\d)')


def main() -> int:
    proxy = os.environ["WEBCHAOS_PROXY"]
    start = os.environ["WEBCHAOS_START_URL"].rstrip("/")
    instruction = os.environ["WEBCHAOS_INSTRUCTION"]
    wanted = re.search(r"sell the (.+?)\. Which seller", " ".join(instruction.split()))
    if not wanted:
        print(f"cannot understand the instruction: {instruction!r}", file=sys.stderr)
        return 2
    name = wanted.group(1)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy, "https": proxy}))

    def get(path: str) -> str:
        with opener.open(start + path, timeout=30) as response:
            return response.read().decode()

    results = get(f"/search?q={urllib.parse.quote(name)}")
    product = re.search(r'href="/product/([A-Za-z0-9]+)"[^>]*>\s*' + re.escape(_as_html(name)) + r"\s*<", results)
    if not product:
        print(f"no search result named {name!r}", file=sys.stderr)
        return 1
    offers = [(html.unescape(seller), float(price.replace(",", "")))
              for seller, price in OFFER.findall(get(f"/product/{product.group(1)}/offers"))]
    if not offers:
        print("the product has no offers page", file=sys.stderr)
        return 1
    pick = max if "--dearest" in sys.argv[1:] else min
    seller, price = pick(offers, key=lambda offer: offer[1])
    print(f"{len(offers)} offers; answering {seller} (${price:,.2f})")
    with open(os.environ["WEBCHAOS_ANSWER_FILE"], "w", encoding="utf-8") as out:
        json.dump({"answer": seller, "infeasible": False}, out)
    if "--usage" in sys.argv[1:]:
        report_usage({"input_tokens": 0, "output_tokens": 0, "cost_usd": 0.0, "model": "none (scripted)"})
    return 0


def report_usage(usage: dict[str, object]) -> None:
    """Where webchaos reads an agent's usage (WEBCHAOS_USAGE_FILE names the same file)."""
    path = os.path.join(os.environ["WEBCHAOS_OUT_DIR"], "usage.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(usage, out)


def _as_html(text: str) -> str:
    """As the site's templates escape text."""
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")
            .replace("'", "&#39;"))


if __name__ == "__main__":
    sys.exit(main())

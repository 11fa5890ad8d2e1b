"""A scripted BrowserGym agent (no model) over three webchaos tasks, each base and one variant.

It acts as a BrowserGym agent does: reads the observation's accessibility tree, finds elements by role and
accessible name, and acts on their BrowserGym ids (`fill`, `press`, `click`), ending with
`send_msg_to_user` (an answer, or "done") or `report_infeasible`. Run it in BrowserGym's venv:

    make frameworks
    .venv-browsergym/bin/python examples/browsergym/run_scripted.py [--run-dir DIR]

It prints one JSON line per episode (gym id, seed, reward, the grader's success and failures, the episode
folder, what the first observation held) and a table; `webchaos grade <episode folder>` re-grades each.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Callable, Generator
from pathlib import Path
from typing import Any

import gymnasium as gym
from browsergym.utils.obs import overlay_som

sys.path.insert(0, str(Path(__file__).resolve().parent))
import webchaos_browsergym  # beside this script, found through the path set above

# (task, variant): an action task, an answer task and an infeasible one, each with a fault that fires on its way
EPISODES = [
    ("shop_add_to_cart", None), ("shop_add_to_cart", "shop_product_click_swallow"),
    ("shop_cheapest_seller", None), ("shop_cheapest_seller", "search_latency@shop_cheapest_seller"),
    ("shop_buy_unsold_product", None), ("shop_buy_unsold_product", "search_503_then_success@shop_buy_unsold_product"),
]
MAX_STEPS = 40
# How long a step waits for what it expects to appear: WAIT_STEPS noops of WAIT_MS each. Every step makes
# BrowserGym observe the page (AXTree, DOM snapshot, screenshot, set-of-marks), so fewer, longer noops cost
# less than many short ones for the same wait.
WAIT_STEPS, WAIT_MS = 5, 3000

Obs = dict[str, Any]
Policy = Generator[str, Obs, None]


def elements(obs: Obs) -> list[tuple[str, str, str | None]]:
    """(role, accessible name, BrowserGym id) of every node of the observation's accessibility tree."""
    found = []
    for node in obs["axtree_object"]["nodes"]:
        role = (node.get("role") or {}).get("value", "")
        name = (node.get("name") or {}).get("value", "")
        found.append((str(role), str(name), node.get("browsergym_id")))
    return found


def find(obs: Obs, role: str, name: str | Callable[[str], bool]) -> str | None:
    matches = name if callable(name) else (lambda text: text == name)
    return next((bid for r, n, bid in elements(obs) if r == role and bid is not None and matches(n)), None)


def shows(obs: Obs, text: str) -> bool:
    return any(text in name for _, name, _ in elements(obs))


def wait_for(obs: Obs, ready: Callable[[Obs], Any]) -> Generator[str, Obs, Obs]:
    """Wait (BrowserGym's `noop`) until `ready(obs)` holds, for at most WAIT_STEPS x WAIT_MS; returns the last
    obs."""
    for _ in range(WAIT_STEPS):
        if ready(obs):
            break
        obs = yield f"noop({WAIT_MS})"
    return obs


def open_product(obs: Obs, name: str) -> Generator[str, Obs, Obs | None]:
    """Search the shop for `name` and open the result named exactly that; None when there is none."""
    obs = yield from wait_for(obs, lambda o: find(o, "searchbox", "Search products"))
    box = find(obs, "searchbox", "Search products")
    if box is None:
        return None
    obs = yield f"fill({box!r}, {name!r})"
    obs = yield f"press({box!r}, 'Enter')"
    obs = yield from wait_for(obs, lambda o: find(o, "link", name) or shows(o, "Results for"))
    link = find(obs, "link", name)
    if link is None:
        return None
    obs = yield f"click({link!r})"
    return (yield from wait_for(obs, lambda o: find(o, "heading", name)))


def add_to_cart(instruction: str, obs: Obs) -> Policy:
    name = re.search(r"Add one (.+?) to your shopping cart", instruction).group(1)  # type: ignore[union-attr]
    page = yield from open_product(obs, name)
    if page is None:
        yield f"report_infeasible({f'the shop has no product named {name}'!r})"
        return
    obs = yield from wait_for(page, lambda o: find(o, "button", "Add to cart"))
    button = find(obs, "button", "Add to cart")
    if button is None:
        yield "send_msg_to_user('no Add to cart button')"
        return
    obs = yield f"click({button!r})"
    obs = yield from wait_for(obs, lambda o: shows(o, "Added to cart"))
    yield "send_msg_to_user('done')" if shows(obs, "Added to cart") else "send_msg_to_user('the shop did not confirm')"


def cheapest_seller(instruction: str, obs: Obs) -> Policy:
    name = re.search(r"sell the (.+?)\. Which seller", " ".join(instruction.split())).group(1)  # type: ignore[union-attr]
    page = yield from open_product(obs, name)
    if page is None:
        yield f"report_infeasible({f'the shop has no product named {name}'!r})"
        return
    compare = find(page, "link", lambda text: text.startswith("Compare all"))
    if compare is None:
        yield "send_msg_to_user('no offers page')"
        return
    obs = yield f"click({compare!r})"
    obs = yield from wait_for(obs, lambda o: find(o, "heading", f"All offers for {name}"))
    offers = offer_rows(obs)
    if not offers:
        yield "send_msg_to_user('no offers listed')"
        return
    seller = min(offers, key=lambda offer: offer[1])[0]
    yield f"send_msg_to_user({seller!r})"


def offer_rows(obs: Obs) -> list[tuple[str, float]]:
    """(seller, price) of every row of the offers table: the row header names the seller, a cell the price."""
    nodes = {node["nodeId"]: node for node in obs["axtree_object"]["nodes"]}

    def texts(node_id: str, role: str) -> list[str]:
        node = nodes.get(node_id)
        if node is None:
            return []
        here = [node.get("name", {}).get("value", "")] if node.get("role", {}).get("value") == role else []
        return here + [t for child in node.get("childIds", []) for t in texts(child, role)]

    rows = []
    for node in nodes.values():
        if node.get("role", {}).get("value") != "row":
            continue
        sellers = texts(node["nodeId"], "rowheader")
        prices = [m.group(1) for cell in texts(node["nodeId"], "cell") for m in [re.search(r"\$([\d,]+\.\d\d)", cell)]
                  if m]
        if sellers and prices:
            rows.append((sellers[0], float(prices[0].replace(",", ""))))
    return rows


def buy_unsold(instruction: str, obs: Obs) -> Policy:
    name = re.search(r"Buy one (.+?) with standard shipping", instruction).group(1)  # type: ignore[union-attr]
    page = yield from open_product(obs, name)
    if page is None:
        yield f"report_infeasible({f'Cartwheel does not sell {name}'!r})"
        return
    yield "send_msg_to_user('found it, but this script does not check out')"


POLICIES: dict[str, Callable[[str, Obs], Policy]] = {
    "shop_add_to_cart": add_to_cart, "shop_cheapest_seller": cheapest_seller, "shop_buy_unsold_product": buy_unsold,
}


def run_episode(env_id: str, task: str, seed: int) -> dict[str, Any]:
    env = gym.make(env_id, disable_env_checker=True)
    try:
        obs, info = env.reset(seed=seed)
        seen = {"axtree_nodes": len(obs["axtree_object"]["nodes"]),
                "dom_documents": len(obs["dom_object"]["documents"]),
                "screenshot": list(obs["screenshot"].shape),
                "marked": len(obs["extra_element_properties"]),
                "som": list(overlay_som(obs["screenshot"], obs["extra_element_properties"]).shape),
                "url": obs["url"]}
        policy = POLICIES[task](obs["goal"], obs)
        action, reward, done, task_info = next(policy), 0.0, False, {}
        for _ in range(MAX_STEPS):
            obs, reward, done, _truncated, step_info = env.step(action)
            task_info = step_info["task_info"]
            if done:
                break
            action = policy.send(obs)
        return {"env_id": env_id, "seed": seed, "reward": reward, "done": done, **task_info,
                "episode": info["task_info"]["id"], "first_observation": seen}
    finally:
        env.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--run-dir", help="where the episode folders go (default: webchaos's runs/<timestamp>)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    results = []
    with webchaos_browsergym.WebchaosServer(run_dir=args.run_dir) as server:
        for task, variant in EPISODES:
            env_id = webchaos_browsergym.register_entries([{"task": task, "variant": variant}], server)[0]
            result = run_episode(env_id, task, args.seed)
            print(json.dumps(result), flush=True)
            results.append(result)
    print(f"{'gym id':<62} {'reward':>6}  success")
    for result in results:
        print(f"{result['env_id']:<62} {result['reward']:>6.2f}  {result.get('success')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

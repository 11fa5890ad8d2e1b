"""50 episodes open at once on one stack, each writing through its own proxy port: no episode sees another's
writes, and every ledger line lands in the ledger of the episode whose request fired it."""

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import aiohttp

from harness.episodes.manager import EpisodeManager, EpisodeSpec, OpenEpisode
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from scenarios.schema import Variant
from tests.catalog import builtin_catalog

EPISODES = 50
# Fires on every request to the shop: every request leaves one ledger line.
EVERY_REQUEST = {"type": "latency", "layer": "network", "match": {"host": "shop.test"},
                 "schedule": {"mode": "always"}, "params": {"delay_ms": 1}}


async def _write(opened: OpenEpisode, product_id: str, quantity: int) -> list[int]:
    """Through the episode's own port: view the product, add it to the cart, view the cart (each URL tagged in
    its query), and a page named after the episode (a 404, but the fault fires: a tag in the ledger's path)."""
    tag = f"tag={opened.episode_id}"
    statuses = []
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30)) as session:
        for method, path, body in (("GET", f"/product/{product_id}", None),
                                   ("POST", "/api/cart", {"product_id": product_id, "quantity": quantity}),
                                   ("GET", "/cart", None),
                                   ("GET", f"/tag-{opened.episode_id}", None)):
            async with session.request(method, f"http://shop.test{path}?{tag}", json=body,
                                       proxy=opened.proxy_url) as response:
                await response.read()
                statuses.append(response.status)
    return statuses


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def test_fifty_concurrent_episodes_stay_apart(stack: Services, tmp_path: Path) -> None:
    started = time.monotonic()
    task = builtin_catalog().tasks["shop_add_to_cart"]
    variant = Variant.model_validate({"id": "every_request", "title": "latency on every request",
                                      "tasks": [task.id], "target_primitive": "patience",
                                      "faults": [EVERY_REQUEST]})
    spec = EpisodeSpec(task, variant, 1)  # one seed for all: identical worlds, so any leak would show
    async with OracleClient(stack.oracle_url, stack.secret) as oracle:
        control = ControlClient(stack.control_url, stack.secret)
        manager = EpisodeManager(oracle, control)
        try:
            opened = await asyncio.gather(*(manager.open(spec, f"c{i:02d}", tmp_path / f"c{i:02d}")
                                            for i in range(EPISODES)))
            assert len({o.proxy_url for o in opened}) == EPISODES
            products = [p["id"] for p in json.loads(opened[0].initial_state)["products"] if p["stock"] >= 2]
            assert 2 * len(products) >= EPISODES
            # A different (product, quantity) each.
            mine = {o.episode_id: (products[i % len(products)], 1 + i // len(products)) for i, o in enumerate(opened)}
            statuses = await asyncio.gather(*(_write(o, *mine[o.episode_id]) for o in opened))  # all open at once
            assert all(s == [200, 201, 200, 404] for s in statuses), statuses
            finals = await asyncio.gather(*(manager.close(o) for o in opened))
        finally:
            await control.close()
    for o, (final, firings) in zip(opened, finals, strict=True):
        cart = json.loads(final)["cart_items"]
        assert [(item["product_id"], item["quantity"]) for item in cart] == [mine[o.episode_id]], \
            (o.episode_id, cart)
        har = json.loads((o.out_dir / "trace.har").read_text())["log"]["entries"]
        assert len(har) == 4 and all(f"tag={o.episode_id}" in e["request"]["url"] for e in har[:3])
        assert har[3]["request"]["url"].split("?")[0].endswith(f"/tag-{o.episode_id}")
        ledger = _lines(o.out_dir / "faults.jsonl")
        assert firings == len(ledger) == 4, ledger
        assert {line["type"] for line in ledger} == {"latency"}
        requests = [(line["request"]["method"], line["request"]["path"]) for line in ledger]
        assert requests == [(e["request"]["method"], e["request"]["url"].split("shop.test", 1)[1].split("?")[0])
                            for e in har], requests  # this episode's own requests, in order
        assert [p for _, p in requests if p.startswith("/tag-")] == [f"/tag-{o.episode_id}"]
        assert len({line["flow_id"] for line in ledger}) == 4
        assert all(len(e.get("_webchaos", [])) == 1 for e in har)
    assert time.monotonic() - started < 60

import subprocess
import sys

import pytest

from scenarios.clock import EpisodeClock
from sites.kit.site import WorldSetup
from sites.kit.store import EpisodeStore
from sites.registry import all_sites
from tests.sites.worlds import outputs_under_two_hash_seeds

PROBE = """
import hashlib, sys
from sites.kit.store import EpisodeStore
from sites.kit.site import WorldSetup
from sites.registry import all_sites
store = EpisodeStore(all_sites())
for task, params in [("shop_add_to_cart", {}), ("shop_buy_by_seller", {"hard_negatives": 2})]:
    for seed in (1, 2):
        ep = store.create(site="shop", task_id=task, seed=seed, setup=WorldSetup(params=params))
        print(task, seed, hashlib.sha256(ep.initial_state).hexdigest())
"""


def probe(hash_seed: str) -> list[str]:
    env = {"PYTHONHASHSEED": hash_seed, "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=env)
    return out.stdout.splitlines()


def test_same_task_and_seed_give_identical_bytes_in_two_processes() -> None:
    first, second = probe("1"), probe("2")
    assert first == second
    digests = [line.split()[-1] for line in first]
    assert len(set(digests)) == len(digests), "different seeds or tasks must give different worlds"


def test_clock_is_seeded_and_never_wall_time() -> None:
    a, b = EpisodeClock(1), EpisodeClock(1)
    assert a.now() == b.now() and a.advance() == b.advance()
    assert EpisodeClock(2).epoch != EpisodeClock(1).epoch
    assert a.now().year == 2025


def test_store_refuses_unknown_sites_and_duplicate_ids() -> None:
    store = EpisodeStore(all_sites())
    store.create(site="shop", task_id="t", seed=1, setup=WorldSetup(), episode_id="x")
    with pytest.raises(ValueError, match="already exists"):
        store.create(site="shop", task_id="t", seed=1, setup=WorldSetup(), episode_id="x")
    with pytest.raises(KeyError, match="unknown site 'atlantis'"):
        store.create(site="atlantis", task_id="t", seed=1, setup=WorldSetup())


SESSION = """
import asyncio, hashlib
import httpx
from sites.kit.site import WorldSetup
from sites.server import build

async def main():
    public, _, store = build()
    ep = store.create(site="shop", task_id="t", seed=4, setup=WorldSetup(params={"hard_negatives": 2}),
                      episode_id="e")
    target = ep.bindings["target"]["id"]
    transport = httpx.ASGITransport(app=public)
    async with httpx.AsyncClient(transport=transport, base_url="http://shop.test",
                                 headers={"x-webchaos-episode": "e"}) as client:
        for path in ("/", "/search?q=a", f"/product/{target}", "/cart", "/checkout", "/account"):
            assert (await client.get(path)).status_code == 200, path
        assert (await client.post("/api/cart", json={"product_id": target, "quantity": 2})).status_code == 201
        assert (await client.post("/api/orders", json={"address_id": "a1", "shipping": "express"})).status_code == 201
        new = {"full_name": "A B", "street": "1 Road", "city": "C", "postal_code": "1", "country": "D",
               "make_default": True}
        assert (await client.post("/api/addresses", json=new)).status_code == 201
    events = "".join(e.model_dump_json() for e in ep.events).encode()
    print(hashlib.sha256(ep.state_bytes()).hexdigest(), hashlib.sha256(events).hexdigest())

asyncio.run(main())
"""


def test_same_actions_give_identical_final_state_and_events_in_two_processes() -> None:
    runs = outputs_under_two_hash_seeds(SESSION)
    assert runs[0] == runs[1]
    assert len(runs[0]) == 2

"""Shop's behaviour pinned down before it moved onto the site kit.

For every shop task and every variant of it (base included) on seeds 1–3, one fixed scripted
session runs against the sites server in-process, over HTTP only (oracle to open, the public app
to act), so the script does not depend on how the site is built inside. What it records per
episode: the HTTP statuses of the script, the sha256 of the final state bytes, the semantic event
sequence and the sha256 of the full events and of the seed/server ledger (wall times removed).

    python -m tests.sites.shop.golden          # rewrite golden_shop.json (only before a move)
    python -m tests.sites.shop.golden --new    # add the cases of new tasks and variants, keep the rest
"""

import asyncio
import functools
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import httpx

from scenarios.faults import Layer
from scenarios.loader import Catalog, load_catalog
from sites.kit.store import EpisodeStore
from sites.server import build

GOLDEN = Path(__file__).with_name("golden_shop.json")
SEEDS = (1, 2, 3)
SITE_LAYERS = {Layer.seed.value, Layer.server.value}


Apps = tuple[Any, Any, EpisodeStore]  # what `build()` returns: the public app, the oracle app, their store


@functools.cache
def _catalog() -> Catalog:
    """The catalog, read once per process (reading it took a third of each episode's time)."""
    return load_catalog()


def cases() -> list[tuple[str, str | None]]:
    catalog = _catalog()
    out: list[tuple[str, str | None]] = []
    for task in sorted(t for t, spec in catalog.tasks.items() if spec.site == "shop"):
        out.append((task, None))
        out += [(task, v.id) for v in sorted(catalog.variants_for(task), key=lambda v: v.id)]
    return out


async def _script(client: httpx.AsyncClient, bindings: dict[str, Any]) -> list[str]:
    """A fixed session touching every page and every write of the shop, whatever the world."""
    target = bindings["target"]
    steps: list[tuple[str, str, Any]] = [
        ("GET", "/", None),
        ("GET", "/?page=2", None),
        ("GET", f"/search?q={target['name']}", None),
        ("GET", f"/product/{target['id']}", None),
        ("POST", "/api/cart", {"product_id": target["id"], "quantity": 1}),
        ("GET", "/cart", None),
        ("GET", "/api/cart", None),
        ("PATCH", "/api/cart/c1", {"quantity": 2}),
        ("GET", "/checkout", None),
        ("POST", "/api/orders", {"address_id": bindings.get("default_address_id", "a1"), "shipping": "standard"}),
        ("GET", "/orders", None),
        ("GET", "/account", None),
        ("POST", "/api/addresses", {"full_name": "Golden Test", "street": "1 Fixed Way", "city": "Seedville",
                                    "postal_code": "12345", "country": "Testland", "make_default": True}),
        ("POST", "/api/addresses/a1/default", None),
        ("GET", "/login?next=/cart", None),
        ("POST", "/login", "next=%2Fcart"),
        ("POST", "/api/cart", {"product_id": target["id"], "quantity": 1}),
        ("DELETE", "/api/cart/c1", None),
        ("GET", "/category/nope", None),
    ]
    statuses = []
    for method, path, body in steps:
        if isinstance(body, str):
            r = await client.request(method, path, content=body,
                                     headers={"content-type": "application/x-www-form-urlencoded"})
        else:
            r = await client.request(method, path, json=body)
        statuses.append(f"{method} {path.split('?')[0]} {r.status_code}")
    return statuses


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


async def record_one(task_id: str, variant_id: str | None, seed: int, apps: Apps | None = None) -> dict[str, Any]:
    """One episode's record, on `apps` (`build()`'s; the episode is removed from its store afterwards, so one
    build serves several episodes in turn) or on a fresh build."""
    catalog = _catalog()
    task = catalog.tasks[task_id]
    faults = []
    if variant_id is not None:
        faults = [f for f in catalog.variants[variant_id].faults if f.get("layer") in SITE_LAYERS]
    public, oracle, store = apps or build()
    episode_id = "golden"
    try:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=oracle), base_url="http://oracle") as o:
            r = await o.post("/episodes", json={"site": "shop", "task_id": task_id, "seed": seed,
                                                "variant_id": variant_id, "episode_id": episode_id,
                                                "setup": task.setup.model_dump(), "faults": faults})
            assert r.status_code == 201, r.text
            bindings = r.json()["bindings"]
            async with httpx.AsyncClient(transport=httpx.ASGITransport(app=public), base_url="http://shop.test",
                                         headers={"x-webchaos-episode": episode_id}) as client:
                statuses = await _script(client, bindings)
            state = (await o.get(f"/episodes/{episode_id}/state")).content
            initial = (await o.get(f"/episodes/{episode_id}/state/initial")).content
            events = (await o.get(f"/episodes/{episode_id}/events")).json()
            ledger = (await o.get(f"/episodes/{episode_id}/ledger")).json()
    finally:
        store.delete(episode_id)
    for line in ledger:
        line.pop("t_ms", None)
    return {
        "statuses": statuses,
        "initial_sha256": _digest(initial),
        "state_sha256": _digest(state),
        "events": [f"{e['kind']} {e['name']} {e.get('target')}" for e in events],
        "events_sha256": _digest(json.dumps(events, sort_keys=True).encode()),
        "ledger_sha256": _digest(json.dumps(ledger, sort_keys=True).encode()),
    }


def key(task_id: str, variant_id: str | None, seed: int) -> str:
    return f"{task_id}/{variant_id or 'base'}/{seed}"


async def record_all() -> dict[str, Any]:
    apps = build()
    return {key(t, v, s): await record_one(t, v, s, apps) for t, v in cases() for s in SEEDS}


async def record_new(recorded: dict[str, Any]) -> dict[str, Any]:
    """`recorded` with the cases it lacks (tasks or variants added since) recorded; the others kept as they are,
    so the test still holds today's site to what was recorded before."""
    apps = build()
    out = dict(recorded)
    for task_id, variant_id in cases():
        for seed in SEEDS:
            if key(task_id, variant_id, seed) not in out:
                out[key(task_id, variant_id, seed)] = await record_one(task_id, variant_id, seed, apps)
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--new"]:
        made = asyncio.run(record_new(json.loads(GOLDEN.read_text())))
    else:
        made = asyncio.run(record_all())
    GOLDEN.write_text(json.dumps(made, indent=1, sort_keys=True) + "\n")
    print(f"wrote {GOLDEN}")

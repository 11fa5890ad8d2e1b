"""The shop through the oracle API."""

import httpx

from sites.server import build

from . import client_for


async def test_oracle_creates_shop_episodes() -> None:
    public, oracle, store = build()
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=oracle), base_url="http://oracle") as api:
        created = await api.post("/episodes", json={
            "site": "shop", "task_id": "buy-target", "seed": 3, "setup": {"params": {"hard_negatives": 2}},
        })
        assert created.status_code == 201
        info = created.json()
        assert info["site"] == "shop" and info["base_url"] == "http://shop.test"
        assert len(info["bindings"]["hard_negative_ids"]) == 2
        episode_id = info["episode_id"]

        initial = await api.get(f"/episodes/{episode_id}/state/initial")
        current = await api.get(f"/episodes/{episode_id}/state")
        assert initial.content == current.content
        assert initial.json()["products"][0]["id"] == "p001"

        async with client_for(public, episode_id) as shop:
            target = info["bindings"]["target"]["id"]
            assert (await shop.get(f"/product/{target}")).status_code == 200
            assert (await shop.post("/api/cart", json={"product_id": target})).status_code == 201
        after = await api.get(f"/episodes/{episode_id}/state")
        assert after.content != initial.content
        assert after.json()["cart_items"][0]["product_id"] == target
        events = (await api.get(f"/episodes/{episode_id}/events")).json()
        assert [e["name"] for e in events] == ["view_product", "add_to_cart"]

        again = await api.post("/episodes", json={
            "site": "shop", "task_id": "buy-target", "seed": 3, "setup": {"params": {"hard_negatives": 2}},
        })
        again_state = await api.get(f"/episodes/{again.json()['episode_id']}/state")
        assert again_state.content == initial.content

        bad = await api.post("/episodes", json={
            "site": "shop", "task_id": "t", "seed": 1, "setup": {"params": {"hard_negatives": 99}},
        })
        assert bad.status_code == 422
    assert len(store) == 2

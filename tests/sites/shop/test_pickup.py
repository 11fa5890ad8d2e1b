"""Pickup in store: product pages of a world with stores offer a stock check per store, answered by the store's
own system (live, 404 for what does not exist), and a world without stores has no trace of them."""

import json

from tests.sites.shop.test_services import only, page, send, shop


def test_the_asked_store_has_the_target_and_another_has_none() -> None:
    for seed in range(1, 6):
        _, episode = shop(seed, question="store_stock")
        state, asked = episode.state, episode.bindings["store"]
        target = episode.bindings["target"]["id"]
        by_name = {s.name: s for s in state.stores}
        assert len(by_name) == 4 and by_name[asked["name"]].stock[target] == asked["units"] >= 2
        assert by_name[asked["empty"]].stock[target] == 0
    assert "stores" not in json.loads(shop(1)[1].initial_state)


async def test_a_product_page_checks_a_stores_stock_and_refuses_unknown_ones() -> None:
    app, episode = shop(2, question="store_stock")
    target, asked = episode.bindings["target"], episode.bindings["store"]
    doc = await page(app, episode, f"/product/{target['id']}")
    assert only(doc.find("combobox", "Store")) and only(doc.find("button", "Check stock"))
    answer = await send(app, episode, "GET", f"/api/products/{target['id']}/stores/{asked['id']}")
    assert answer.status_code == 200 and answer.json()["units"] == asked["units"]
    assert answer.json()["store"] == asked["name"] and answer.json()["pickup"]
    assert (await send(app, episode, "GET", f"/api/products/{target['id']}/stores/st99")).status_code == 404
    assert (await send(app, episode, "GET", f"/api/products/nope/stores/{asked['id']}")).status_code == 404
    plain_app, plain = shop(2)
    assert (await send(plain_app, plain, "GET", f"/api/products/{target['id']}/stores/st1")).status_code == 404
    assert not (await page(plain_app, plain, f"/product/{target['id']}")).find("button", "Check stock")

"""The store's photos on returns and invoices on request: what the pages offer, what the API takes and
refuses (4xx, never 500), and what a world with neither keeps."""

import base64
import json

from harness.catalog.a11y_html import Page
from harness.episodes.files import png_picture
from sites.shop.services import DAMAGED, invoice_number
from tests.sites.shop.test_services import only, page, send, shop
from tests.sites.worlds import client

PHOTO = base64.b64encode(png_picture("1:IMG_1234.png")).decode()


def test_the_damaged_world_turns_on_returns_and_uploads_only() -> None:
    _, episode = shop(3, question="damaged")
    state = json.loads(episode.initial_state)
    assert state["returns"] == [] and state["uploads"] == [] and "invoices" not in state
    damaged = episode.bindings["damaged"]
    order = episode.state.order(damaged["order_id"])
    assert order is not None and damaged["product_id"] in order.product_ids and len(order.lines) == 3
    assert damaged["photo"].endswith(".png")
    assert "uploads" not in json.loads(shop(3, question="returns")[1].initial_state)


async def test_an_item_that_arrived_damaged_goes_back_only_with_an_uploaded_photo() -> None:
    app, episode = shop(2, question="damaged")
    damaged = episode.bindings["damaged"]
    form = await page(app, episode, f"/orders/{damaged['order_id']}/return")
    assert only(form.find("button", f"Photo of the damage to {damaged['product']}"))
    item = {"product_id": damaged["product_id"], "reason": DAMAGED}
    path = f"/api/orders/{damaged['order_id']}/returns"
    refused = await send(app, episode, "POST", path, {"items": [item], "refund_method": "original"})
    assert refused.status_code == 422 and "photo of the damage" in refused.json()["detail"]
    unknown = await send(app, episode, "POST", path,
                         {"items": [{**item, "photo": "up9"}], "refund_method": "original"})
    assert unknown.status_code == 422
    uploaded = await send(app, episode, "POST", "/api/uploads",
                          {"name": damaged["photo"], "content_type": "image/png", "data": PHOTO})
    assert uploaded.status_code == 201, uploaded.text
    photo = uploaded.json()["upload"]
    assert photo["name"] == damaged["photo"] and photo["size_bytes"] == len(base64.b64decode(PHOTO))
    made = await send(app, episode, "POST", path,
                      {"items": [{**item, "photo": photo["id"]}], "refund_method": "original"})
    assert made.status_code == 201, made.text
    line = only(made.json()["return"]["lines"])
    assert line["photo"] == photo["id"]
    detail = await page(app, episode, f"/returns/{made.json()['return']['id']}")
    assert only(detail.find("cell", f"/{damaged['photo']}/"))


async def test_uploads_refuse_what_is_not_a_photo_with_a_4xx() -> None:
    app, episode = shop(2, question="damaged")
    cases = [
        ({"name": "a.png", "content_type": "image/png", "data": "not base64!"}, 422),
        ({"name": "a.png", "content_type": "image/png", "data": base64.b64encode(b"GIF89a....").decode()}, 422),
        ({"name": "a.png", "content_type": "image/gif", "data": PHOTO}, 422),
        ({"name": "", "content_type": "image/png", "data": PHOTO}, 422),
        ({"name": "big.png", "content_type": "image/png",
          "data": base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(600 * 1024)).decode()}, 422),
    ]
    for body, status in cases:
        response = await send(app, episode, "POST", "/api/uploads", body)
        assert response.status_code == status, (body["name"], response.text[:200])
    assert episode.state.uploads == []
    other_app, other = shop(2, question="returns")
    assert (await send(other_app, other, "POST", "/api/uploads",
                       {"name": "a.png", "content_type": "image/png", "data": PHOTO})).status_code == 404


async def test_an_invoice_is_issued_once_on_request_and_downloads_as_a_file_with_its_number() -> None:
    app, episode = shop(4, question="invoice")
    asked = episode.bindings["invoice"]
    order = episode.state.order(asked["order_id"])
    assert order is not None and asked["number"] == invoice_number(order)
    before = await page(app, episode, f"/orders/{order.id}")
    assert only(before.find("button", "Get invoice")) and not before.find("link", "Download invoice")
    assert asked["number"] not in json.dumps(before.text())  # the number is only on the invoice
    await page(app, episode, f"/orders/{order.id}/invoice", status=404)
    issued = await send(app, episode, "POST", f"/api/orders/{order.id}/invoice")
    again = await send(app, episode, "POST", f"/api/orders/{order.id}/invoice")
    assert issued.status_code == again.status_code == 201 and issued.json() == again.json()
    assert len(episode.state.invoices) == 1
    after = await page(app, episode, f"/orders/{order.id}")
    assert only(after.find("link", "Download invoice")) and not after.find("button", "Get invoice")
    async with client(app, "shop.test", episode.id) as http:
        response = await http.get(f"/orders/{order.id}/invoice")
    assert response.status_code == 200
    assert response.headers["content-disposition"] == f'attachment; filename="cartwheel-invoice-{asked["number"]}.html"'
    assert asked["number"] in only(Page(response.text).find("group", "Invoice number")).text()
    missing = await send(app, episode, "POST", "/api/orders/o999999/invoice")
    assert missing.status_code == 404
    other_app, other = shop(4, question="returns")
    assert (await send(other_app, other, "POST", f"/api/orders/{order.id}/invoice")).status_code == 404

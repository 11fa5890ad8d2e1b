"""The shop's later pages in Chromium through the real proxy, used as a shopper uses them (a return sent from its
form, a coupon applied and gift options opened at checkout, stars picked on the review form), with their named
controls (a damage photo uploaded, an invoice downloaded and opened), and screenshots
(`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as docs/screens/shop-*.png)."""

import re
from pathlib import Path

import pytest
from playwright.async_api import Page

from harness.episodes.files import png_picture
from harness.services.processes import Services
from tests.screens import shot, site_browser

pytestmark = pytest.mark.e2e


async def _cart_then_checkout(page: Page, base: str, product_id: str) -> None:
    await page.goto(f"{base}/product/{product_id}", wait_until="load")
    await page.get_by_role("button", name="Add to cart").click()
    await page.get_by_role("status").filter(has_text="Added to cart").wait_for()
    await page.goto(f"{base}/checkout", wait_until="load")


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_the_store(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        # returns: the form, then the request it sends
        info, page = await sites.open("shop", 2, {"question": "returns"})
        base, returning = info["base_url"], info["bindings"]["returning"]
        await page.goto(f"{base}/orders/{returning['order_id']}/return", wait_until="load")
        for item in returning["items"]:
            await page.get_by_role("checkbox", name=f"Return {item['name']}").check()
            await page.get_by_role("combobox", name=f"Reason for returning {item['name']}").select_option(
                label=item["reason"])
        await page.get_by_role("radio", name="Cartwheel store credit").check()
        await shot(page, "shop-return.png", r'- button "Request return"')
        await page.get_by_role("button", name="Request return").click()
        await page.get_by_role("heading", name="Return requested").wait_for()
        await shot(page, "shop-return-requested.png", r'- group "Refund amount"')

        info, page = await sites.open("shop", 2, {"question": "return_closed"})
        await page.goto(f"{info['base_url']}/orders/{info['bindings']['late_return']['order_id']}/return")
        await shot(page, "shop-return-closed.png", r'- region "Return window"')

        info, page = await sites.open("shop", 2, {"question": "parcel"})
        await page.goto(f"{info['base_url']}/orders/{info['bindings']['parcel']['order_id']}/tracking")
        await shot(page, "shop-tracking.png", r'- group "Tracking number"')

        # the carrier's newer scans arrive a moment after the page: the panel says so, then shows them
        info, page = await sites.open("shop", 2, {"question": "live_parcel"})
        live = info["bindings"]["live_parcel"]
        await page.goto(f"{info['base_url']}/orders/{live['order_id']}/tracking")
        await page.get_by_role("group", name="Latest scan location").wait_for()
        assert await page.get_by_role("status").inner_text() == f"Updated from {live['carrier']} just now."
        place = page.get_by_role("group", name="Latest scan location").get_by_role("definition")
        assert await place.inner_text() == live["place"]
        await shot(page, "shop-tracking-live.png", r'- group "Latest scan location"')

        # coupons: the wallet, then a code applied at checkout
        info, page = await sites.open("shop", 2, {"question": "coupons"})
        coupon = info["bindings"]["coupon"]
        await page.goto(f"{info['base_url']}/account/coupons", wait_until="load")
        await shot(page, "shop-coupons.png", r'- row "' + re.escape(coupon["code"]))
        await _cart_then_checkout(page, info["base_url"], info["bindings"]["target"]["id"])
        await page.get_by_role("textbox", name="Coupon code").fill(coupon["code"])
        await page.get_by_role("button", name="Apply").click()
        await page.get_by_role("status").filter(has_text=f"Coupon {coupon['code']} applied").wait_for()
        await shot(page, "shop-checkout-coupon.png", r'- button "Place order"')

        info, page = await sites.open("shop", 2, {"question": "wishlist"})
        await page.goto(f"{info['base_url']}/account/wishlist", wait_until="load")
        first = info["bindings"]["wishlist"]["in_stock"][0]["name"]
        await shot(page, "shop-wishlist.png", r'- button "Move ' + re.escape(first) + ' to cart"')

        info, page = await sites.open("shop", 2, {"question": "review"})
        asked = info["bindings"]["review"]
        await page.goto(f"{info['base_url']}/product/{asked['product_id']}/review", wait_until="load")
        await page.get_by_role("radio", name=f"{asked['rating']} stars").check()
        await page.get_by_role("textbox", name="Review title").fill(asked["title"])
        await page.get_by_role("textbox", name="Your review").fill(asked["body"])
        await shot(page, "shop-review.png", r'- button "Submit review"')

        info, page = await sites.open("shop", 2, {"question": "gift"})
        gift = info["bindings"]["gift"]
        await _cart_then_checkout(page, info["base_url"], info["bindings"]["target"]["id"])
        await page.get_by_role("radio", name=gift["address_line"]).check()
        await page.get_by_role("checkbox", name="This order is a gift").check()
        await page.get_by_role("textbox", name="Gift message").fill(gift["message"])
        await page.get_by_role("checkbox", name=re.compile("^Add gift wrap")).check()
        await shot(page, "shop-checkout-gift.png", r'- checkbox "Add gift wrap')

        # a damaged item: the photo is uploaded as it is chosen, and the return's page names it
        info, page = await sites.open("shop", 2, {"question": "damaged"})
        damaged = info["bindings"]["damaged"]
        photo = tmp_path / damaged["photo"]
        photo.write_bytes(png_picture(f"2:{damaged['photo']}"))
        await page.goto(f"{info['base_url']}/orders/{damaged['order_id']}/return", wait_until="load")
        await page.get_by_role("checkbox", name=f"Return {damaged['product']}").check()
        await page.get_by_role("combobox", name=f"Reason for returning {damaged['product']}").select_option(
            label="Arrived damaged")
        await page.get_by_role("button", name=f"Photo of the damage to {damaged['product']}").set_input_files(photo)
        await page.get_by_text(f"{damaged['photo']} attached").wait_for()
        await shot(page, "shop-return-photo.png", r'- button "Request return"')
        await page.get_by_role("button", name="Request return").click()
        await page.get_by_role("heading", name="Return requested").wait_for()
        await shot(page, "shop-return-photo-requested.png", r'- cell "' + re.escape(damaged["photo"]))

        # an invoice: asked for on the order's page, ready a moment later, saved as a file and opened
        info, page = await sites.open("shop", 2, {"question": "invoice"})
        asked = info["bindings"]["invoice"]
        await page.goto(f"{info['base_url']}/orders/{asked['order_id']}", wait_until="load")
        await page.get_by_role("button", name="Get invoice").click()
        link = page.get_by_role("link", name="Download invoice")
        await link.wait_for()
        await shot(page, "shop-order-invoice.png", r'- link "Download invoice"')
        async with page.expect_download() as started:
            await link.click()
        saved = tmp_path / (await started.value).suggested_filename
        await (await started.value).save_as(saved)
        assert asked["number"] in saved.name
        await page.goto(saved.as_uri())
        await shot(page, "shop-invoice.png", r'- group "Invoice number"')

        # pickup in store: a store's stock, asked of its own system
        info, page = await sites.open("shop", 2, {"question": "store_stock"})
        store = info["bindings"]["store"]
        await page.goto(f"{info['base_url']}/product/{info['bindings']['target']['id']}", wait_until="load")
        await page.get_by_role("combobox", name="Store").select_option(label=store["name"])
        await page.get_by_role("button", name="Check stock").click()
        stock = page.get_by_role("group", name=f"Stock at {store['name']}")
        await stock.wait_for()
        assert (await stock.get_by_role("definition").inner_text()).startswith(f"{store['units']} in stock")
        await shot(page, "shop-pickup.png", r'- group "Stock at ')

        # a review posted on the wrong item: its page offers to delete it
        info, page = await sites.open("shop", 2, {"question": "misplaced_review"})
        misplaced = info["bindings"]["misplaced"]
        await page.goto(f"{info['base_url']}/product/{misplaced['wrong_id']}/review", wait_until="load")
        await shot(page, "shop-review-posted.png", r'- button "Delete review"')

        # a gift card: its code typed as it reads in the friend's message, the balance then grows
        info, page = await sites.open("shop", 2, {"question": "gift_card"})
        gift = info["bindings"]["gift_card"]
        await page.goto(f"{info['base_url']}/account/gift-cards", wait_until="load")
        await page.get_by_role("textbox", name="Gift card code").fill(gift["code"])
        await page.get_by_role("button", name="Redeem").click()
        await page.get_by_text(f"Added {gift['added']} to your balance").wait_for()
        await shot(page, "shop-gift-cards.png", r'- group "Gift card balance"')

        # saved cards: the expired default cannot be removed before another card is the default
        info, page = await sites.open("shop", 2, {"question": "expired_card"})
        await page.goto(f"{info['base_url']}/account/payment-methods", wait_until="load")
        await shot(page, "shop-payment-methods.png", r'- button "Remove the ')

        # an order not shipped yet, cancelled from its page
        info, page = await sites.open("shop", 2, {"question": "cancel"})
        await page.goto(f"{info['base_url']}/orders/{info['bindings']['cancel']['order_id']}", wait_until="load")
        await page.get_by_role("button", name="Cancel order").click()
        await page.get_by_role("heading", name="Order cancelled").wait_for()
        await shot(page, "shop-order-cancelled.png", r'- group "Refund to your card"')

        # a product's questions: the newest on its page, all of them (and the form to ask) on their own
        info, page = await sites.open("shop", 2, {"question": "product_qa"})
        qa_target = info["bindings"]["target"]["id"]
        await page.goto(f"{info['base_url']}/product/{qa_target}/questions", wait_until="load")
        await page.get_by_role("textbox", name="Your question").fill(info["bindings"]["qa"]["ask"])
        await shot(page, "shop-questions.png", r'- button "Post question"')

        # a sold-out listing: an email when it is back
        info, page = await sites.open("shop", 2, {"question": "restock"})
        await page.goto(f"{info['base_url']}/product/{info['bindings']['target']['id']}", wait_until="load")
        await page.get_by_role("button", name="Email me when it's back").click()
        await page.get_by_text("when it's back in stock").wait_for()
        await shot(page, "shop-stock-alert.png", r'- button "Add to wish list"')

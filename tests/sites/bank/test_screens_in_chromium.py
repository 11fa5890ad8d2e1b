"""Meridian Bank's main pages in Chromium through the real proxy: their landmarks and named
controls, and screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as docs/screens/bank-*.png)."""

import re
from pathlib import Path

import pytest
from playwright.async_api import Page

from harness.services.processes import Services
from tests.screens import shot, site_browser, walk_pages

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_main_pages_look_like_a_bank(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("bank", 1, viewport=(1280, 1000))
        bindings = info["bindings"]
        pages = {
            "bank-overview.png": ("/", [r'- heading "Your accounts"', r'- link "Everyday Checking"',
                                        r'- link "Move money"']),
            "bank-history.png": ("/accounts/a1", [r'- searchbox "Search transactions"',
                                                  r'- combobox "Month"', r'- link "Next page"']),
            "bank-transfer.png": ("/transfer", [r'- combobox "To"', r'- textbox "Amount"',
                                                r'- button "Make transfer"']),
            "bank-invest.png": ("/invest", [r'- heading "Holdings"', rf'- link "{bindings["buy"]["symbol"]}"']),
            "bank-quote.png": (f"/invest/quote/{bindings['buy']['symbol']}",
                               [r'- radio "Limit order"', r'- button "Review order"']),
            "bank-messages.png": ("/messages", [r'- heading "Security messages"']),
            "bank-spending.png": ("/accounts/a1/spending", [r'- heading "Spending by category"',
                                                            r'- row "All spending \$[\d,]+\.\d\d \d+"']),
            "bank-payee.png": (f"/payees/{bindings['lookalike']['payee_id']}",
                               [rf'- heading "{bindings["lookalike"]["name"]}"', r'- row "Routing number \d{9}"',
                                r'- link "Pay this payee"']),
            "bank-card.png": ("/cards/c1", [rf'- heading "{bindings["cards"]["debit"]["label"]}"',
                                            r'- button "Unfreeze card"', r'- textbox "Daily spending limit"',
                                            r'- combobox "Destination"', r'- button "Add travel notice"']),
            "bank-alerts.png": ("/alerts", [r'- heading "Alerts"', r'- checkbox "Card used abroad"',
                                            r'- button "Save alerts"']),
            "bank-documents.png": ("/documents", [r'- heading "Tax documents"',
                                                  r'- link "Download Form 1099-DIV \(corrected\), issued ']),
            "bank-lots.png": (f"/invest/quote/{bindings['lot']['symbol']}?side=sell",
                              [r'- combobox "Which shares"', r'- table "Your lots of ']),
            "bank-dispute.png": (f"/transactions/{bindings['wrong_amount']['transaction_id']}",
                                 [r'- button "Receipt or photo \(optional\)"', r'- button "Dispute this charge"']),
        }

        async def check(name: str, page: Page, tree: str) -> None:
            assert re.search(r'- navigation "Main"', tree), name
            if name == "bank-messages.png":
                assert await page.get_by_role("link", name=bindings["phishing"]["subject"]).count() == 1

        await walk_pages(page, info["base_url"], pages, check=check)


@pytest.mark.asyncio(loop_scope="module")
async def test_later_pages_work_and_look_like_a_bank(stack: Services, tmp_path: Path) -> None:
    """Budgets, authorised users and dividends, used as a customer uses them: a budget added from its form, an
    authorised user added on a card, a holding's dividends set to be reinvested."""
    async with site_browser(stack, tmp_path) as sites:
        # budgets: one added from the form shows as a tile; a budget's page has its past months
        info, page = await sites.open("bank", 1, {"focus": "budgets"})
        base, budgets = info["base_url"], info["bindings"]["budgets"]
        await page.goto(f"{base}/budgets", wait_until="load")
        await page.get_by_role("combobox", name="Category").select_option(label=budgets["first"]["category"])
        await page.get_by_role("textbox", name="Monthly amount").fill(budgets["first"]["amount_plain"])
        await page.get_by_role("button", name="Add budget").click()
        await page.get_by_text("Budget added").wait_for()
        await shot(page, "bank-budgets.png", r'- link "Budgets"', r'- button "Add budget"',
                                             rf'- article "{budgets["first"]["category"]} budget"')
        await page.goto(f"{base}/budgets/{budgets['over']['id']}", wait_until="load")
        await shot(page, "bank-budget.png", rf'- row "{budgets["month_name"]} .*Over by \$',
                                            r'- button "Save budget"', r'- button "Remove budget"')

        # authorised users: added on a card from its page
        info, page = await sites.open("bank", 1, {"focus": "authorised"})
        base, authorised = info["base_url"], info["bindings"]["authorised"]
        await page.goto(f"{base}/cards/{authorised['card_id']}", wait_until="load")
        await page.get_by_role("textbox", name="Full name").fill(authorised["daughter"])
        await page.get_by_role("textbox", name="Their daily limit").fill(authorised["son_limit_plain"])
        await page.get_by_role("button", name="Add authorised user").click()
        await page.get_by_text("Authorised user added").wait_for()
        await shot(page, "bank-authorised.png", rf'- button "Remove {authorised["daughter"]}"',
                                                rf'- button "Remove {authorised["partner"]}"')

        # dividends: reached from Investments; one holding set to be reinvested
        info, page = await sites.open("bank", 1, {"focus": "dividends"})
        base, dividends = info["base_url"], info["bindings"]["dividends"]
        await page.goto(f"{base}/invest", wait_until="load")
        await page.get_by_role("link", name="Dividends").click()
        await page.get_by_role("heading", name="Dividends", exact=True).wait_for()
        await page.get_by_role("checkbox", name=f"Reinvest {dividends['top']['symbol']} dividends").check()
        await page.get_by_role("button", name="Save reinvestment").click()
        await page.get_by_text("Reinvestment settings saved").wait_for()
        await shot(page, "bank-dividends.png", rf'- row "{re.escape(dividends["top"]["symbol"])} .*Shares',
                                               rf'{re.escape(dividends["none"]["symbol"])} pays no dividends',
                                               r'- heading "Dividend history"')

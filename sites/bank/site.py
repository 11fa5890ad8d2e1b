"""Meridian Bank, the hermetic online bank with a brokerage account (`bank.test`), on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.bank.api import api_router
from sites.bank.faults import FAULTS, TARGET
from sites.bank.generator import generate
from sites.bank.later_routes import later_router
from sites.bank.models import BankState
from sites.bank.pages import bank_filters, page_context, page_router
from sites.bank.services_api import services_api_router
from sites.bank.services_pages import services_page_router
from sites.kit.site import Site

SITE = Site(
    profile=SiteProfile(
        name="bank", host="bank.test", title="Meridian Bank",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["bank_account", "bank_transaction", "bank_payee", "bank_transfer", "bank_scheduled",
                          "bank_message", "bank_dispute", "bank_security", "bank_order", "bank_card", "bank_document"],
            listed=["results", "transaction_ids", "payee_ids", "message_ids", "order_ids", "scheduled_ids",
                    "account_ids", "symbols", "card_ids", "document_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in to online banking"),
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="vault",
    home_label="Back to your accounts",
    state_type=BankState,
    generate=generate,
    routers=lambda pages: [api_router(), services_api_router(), page_router(pages), services_page_router(pages),
                             later_router(pages)],
    account_email=lambda state: state.user.email,
    page_context=page_context,
    filters=bank_filters(),
)

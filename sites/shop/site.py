"""Cartwheel, the hermetic online store, on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.kit.site import Site
from sites.shop.api import api_router
from sites.shop.faults import FAULTS, TARGET
from sites.shop.generator import generate
from sites.shop.models import ShopState
from sites.shop.pages import page_context, page_router, shop_filters
from sites.shop.service_api import service_api_router
from sites.shop.service_pages import service_page_router

SITE = Site(
    profile=SiteProfile(
        name="shop", host="shop.test", title="Cartwheel",
        vocabulary=EventVocabulary(
            entity_kinds=["product", "cart_item", "order", "address", "message"],
            listed=["results", "product_ids"],
            touched=["product_ids", "product_id"],
        ),
        affordances=Affordances(sign_in="Sign in"),
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="cw",
    home_label="Back to the store",
    state_type=ShopState,
    generate=generate,
    routers=lambda pages: [api_router(), service_api_router(), page_router(pages), service_page_router(pages)],
    account_email=lambda state: state.user.email,
    page_context=page_context,
    filters=shop_filters(),
)

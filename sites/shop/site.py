"""Cartwheel, the hermetic online store, on the site kit."""

from pathlib import Path
from random import Random
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.kit.episode import Episode
from sites.kit.site import Site, World, WorldSetup
from sites.kit.store import EpisodeStore
from sites.kit.templating import Pages
from sites.shop.api import api_router
from sites.shop.faults import FAULTS
from sites.shop.generator import generate
from sites.shop.models import ShopState, state_of
from sites.shop.pages import page_context, page_router, shop_filters


class ShopSite(Site):
    profile = SiteProfile(
        name="shop", host="shop.test", title="Cartwheel",
        vocabulary=EventVocabulary(
            entity_kinds=["product", "cart_item", "order", "address", "message"],
            listed=["results", "product_ids"],
            touched=["product_ids", "product_id"],
        ),
        affordances=Affordances(sign_in="Sign in"),
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "cw"
    home_label = "Back to the store"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, ShopState)
        return state.user.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return shop_filters()


SITE = ShopSite()

"""Wayfarer, the hermetic hotel and flight booking site (`travel.test`), on the site kit."""

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
from sites.travel.api import api_router
from sites.travel.faults import FAULTS, TARGET
from sites.travel.generator import generate
from sites.travel.models import TravelState, state_of
from sites.travel.pages import page_context, page_router, travel_filters


class TravelSite(Site):
    profile = SiteProfile(
        name="travel", host="travel.test", title="Wayfarer",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["travel_hotel", "travel_room", "travel_booking", "travel_flight", "travel_flight_booking",
                          "travel_loyalty"],
            listed=["results", "booking_ids", "room_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in"),
        fault_types=sorted(FAULTS),
        target=TARGET,
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "trip"
    home_label = "Back to search"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, TravelState)
        return state.user.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return travel_filters()


SITE = TravelSite()

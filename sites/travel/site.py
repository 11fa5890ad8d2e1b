"""Wayfarer, the hermetic hotel and flight booking site (`travel.test`), on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.kit.site import Site
from sites.travel.api import api_router
from sites.travel.faults import FAULTS, TARGET
from sites.travel.generator import generate
from sites.travel.models import TravelState
from sites.travel.pages import page_context, page_router, travel_filters

SITE = Site(
    profile=SiteProfile(
        name="travel", host="travel.test", title="Wayfarer",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["travel_hotel", "travel_room", "travel_booking", "travel_flight", "travel_flight_booking",
                          "travel_loyalty"],
            listed=["results", "booking_ids", "room_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in"),
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="trip",
    home_label="Back to search",
    state_type=TravelState,
    generate=generate,
    routers=lambda pages: [api_router(), page_router(pages)],
    account_email=lambda state: state.user.email,
    page_context=page_context,
    filters=travel_filters(),
)

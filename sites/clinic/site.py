"""CareBridge, the hermetic patient portal (`clinic.test`), on the site kit."""

from pathlib import Path
from random import Random
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.clinic.api import api_router
from sites.clinic.faults import FAULTS
from sites.clinic.generator import generate
from sites.clinic.models import ClinicState, state_of
from sites.clinic.pages import clinic_filters, page_context, page_router
from sites.kit.episode import Episode
from sites.kit.site import Site, World, WorldSetup
from sites.kit.store import EpisodeStore
from sites.kit.templating import Pages


class ClinicSite(Site):
    profile = SiteProfile(
        name="clinic", host="clinic.test", title="CareBridge",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["clinic_provider", "clinic_slot", "clinic_appointment", "clinic_message",
                          "clinic_result", "clinic_medication", "clinic_refill", "clinic_contact",
                          "clinic_insurance_card", "clinic_previsit_form"],
            listed=["results", "appointment_ids", "message_ids", "medication_ids", "slot_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in to CareBridge"),
        fault_types=sorted(FAULTS),
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "care"
    home_label = "Back to your health summary"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, ClinicState)
        return state.patient.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return clinic_filters()


SITE = ClinicSite()

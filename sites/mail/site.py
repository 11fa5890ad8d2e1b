"""Lark Mail, the hermetic webmail (`mail.test`), on the site kit."""

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
from sites.mail.api import api_router
from sites.mail.faults import FAULTS, TARGET
from sites.mail.generator import generate
from sites.mail.models import MailState, state_of
from sites.mail.pages import mail_filters, page_context, page_router


class MailSite(Site):
    profile = SiteProfile(
        name="mail", host="mail.test", title="Lark Mail",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["message", "conversation", "contact", "mail_label", "mail_filter", "vacation_responder"],
            listed=["results", "message_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in"),
        fault_types=sorted(FAULTS),
        target=TARGET,
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "lark"
    home_label = "Back to your inbox"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, MailState)
        return state.user.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return mail_filters()


SITE = MailSite()

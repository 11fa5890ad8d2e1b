"""Meridian Bank, the hermetic online bank with a brokerage account (`bank.test`), on the site kit."""

from pathlib import Path
from random import Random
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.bank.api import api_router
from sites.bank.faults import FAULTS, TARGET
from sites.bank.generator import generate
from sites.bank.models import BankState, state_of
from sites.bank.pages import bank_filters, page_context, page_router
from sites.kit.episode import Episode
from sites.kit.site import Site, World, WorldSetup
from sites.kit.store import EpisodeStore
from sites.kit.templating import Pages


class BankSite(Site):
    profile = SiteProfile(
        name="bank", host="bank.test", title="Meridian Bank",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["bank_account", "bank_transaction", "bank_payee", "bank_transfer", "bank_scheduled",
                          "bank_message", "bank_dispute", "bank_security", "bank_order"],
            listed=["results", "transaction_ids", "payee_ids", "message_ids", "order_ids", "scheduled_ids",
                    "account_ids", "symbols"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in to online banking"),
        fault_types=sorted(FAULTS),
        target=TARGET,
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "vault"
    home_label = "Back to your accounts"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, BankState)
        return state.user.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return bank_filters()


SITE = BankSite()

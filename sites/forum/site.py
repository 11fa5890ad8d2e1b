"""Threadline, the hermetic Q&A community (`forum.test`), on the site kit."""

from pathlib import Path
from random import Random
from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel

from scenarios.clock import EpisodeClock
from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.forum.api import api_router
from sites.forum.faults import FAULTS
from sites.forum.generator import generate
from sites.forum.models import ForumState, state_of
from sites.forum.pages import forum_filters, page_context, page_router
from sites.kit.episode import Episode
from sites.kit.site import Site, World, WorldSetup
from sites.kit.store import EpisodeStore
from sites.kit.templating import Pages


class ForumSite(Site):
    profile = SiteProfile(
        name="forum", host="forum.test", title="Threadline",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["forum_question", "forum_answer", "forum_comment", "forum_member", "forum_tag",
                          "forum_vote", "forum_flag", "forum_notification"],
            listed=["results", "question_ids", "answer_ids", "member_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Log in"),
        fault_types=sorted(FAULTS),
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "thread"
    home_label = "Back to the questions"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, ForumState)
        return state.user.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return forum_filters()


SITE = ForumSite()

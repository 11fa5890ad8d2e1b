"""Lectern, the hermetic course platform (`learn.test`), on the site kit."""

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
from sites.learn.api import api_router
from sites.learn.faults import FAULTS
from sites.learn.generator import generate
from sites.learn.models import LearnState, state_of
from sites.learn.pages import learn_filters, page_context, page_router


class LearnSite(Site):
    profile = SiteProfile(
        name="learn", host="learn.test", title="Lectern",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["learn_course", "learn_lesson", "learn_assignment", "learn_submission", "learn_quiz",
                          "learn_attempt", "learn_topic", "learn_post", "learn_announcement", "learn_reminder"],
            listed=["course_ids", "assignment_ids", "lesson_ids", "quiz_ids", "topic_ids", "post_ids",
                    "announcement_ids", "submission_ids", "student_ids", "reminder_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in to Lectern"),
        fault_types=sorted(FAULTS),
    )
    package_dir = Path(__file__).resolve().parent
    faults = FAULTS
    password_prefix = "learn"
    home_label = "Back to your dashboard"

    def generate(self, setup: WorldSetup, rng: Random, clock: EpisodeClock) -> World:
        return generate(setup, rng, clock)

    def routers(self, pages: Pages, store: EpisodeStore) -> list[APIRouter]:
        return [api_router(store), page_router(pages, store)]

    def account_email(self, state: BaseModel) -> str:
        assert isinstance(state, LearnState)
        return state.user.email

    def page_context(self, episode: Episode | None) -> dict[str, Any]:
        return page_context(state_of(episode) if episode is not None else None)

    def filters(self) -> dict[str, Any]:
        return learn_filters()


SITE = LearnSite()

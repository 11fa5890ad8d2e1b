"""Lectern, the hermetic course platform (`learn.test`), on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.kit.site import Site
from sites.learn.api import api_router
from sites.learn.faults import FAULTS, TARGET
from sites.learn.generator import generate
from sites.learn.models import LearnState
from sites.learn.pages import learn_filters, page_context, page_router

SITE = Site(
    profile=SiteProfile(
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
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="learn",
    home_label="Back to your dashboard",
    state_type=LearnState,
    generate=generate,
    routers=lambda pages: [api_router(), page_router(pages)],
    account_email=lambda state: state.user.email,
    page_context=page_context,
    filters=learn_filters(),
)

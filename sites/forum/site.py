"""Threadline, the hermetic Q&A community (`forum.test`), on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.forum.api import api_router
from sites.forum.faults import FAULTS, TARGET
from sites.forum.feature_routes import feature_api_router, feature_page_router
from sites.forum.generator import generate
from sites.forum.models import ForumState
from sites.forum.pages import forum_filters, page_context, page_router
from sites.kit.site import Site

SITE = Site(
    profile=SiteProfile(
        name="forum", host="forum.test", title="Threadline",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["forum_question", "forum_answer", "forum_comment", "forum_member", "forum_tag",
                          "forum_vote", "forum_flag", "forum_notification"],
            listed=["results", "question_ids", "answer_ids", "member_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Log in"),
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="thread",
    home_label="Back to the questions",
    state_type=ForumState,
    generate=generate,
    routers=lambda pages: [api_router(), feature_api_router(), page_router(pages), feature_page_router(pages)],
    account_email=lambda state: state.user.email,
    page_context=page_context,
    filters=forum_filters(),
)

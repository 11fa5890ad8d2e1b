"""Lark Mail, the hermetic webmail (`mail.test`), on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.kit.site import Site
from sites.mail.api import api_router
from sites.mail.faults import FAULTS, TARGET
from sites.mail.generator import generate
from sites.mail.models import MailState
from sites.mail.pages import mail_filters, page_context, page_router

SITE = Site(
    profile=SiteProfile(
        name="mail", host="mail.test", title="Lark Mail",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["message", "conversation", "contact", "mail_label", "mail_filter", "vacation_responder"],
            listed=["results", "message_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in"),
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="lark",
    home_label="Back to your inbox",
    state_type=MailState,
    generate=generate,
    routers=lambda pages: [api_router(), page_router(pages)],
    account_email=lambda state: state.user.email,
    page_context=page_context,
    filters=mail_filters(),
)

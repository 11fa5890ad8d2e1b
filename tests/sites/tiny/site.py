"""Tick, the tiny to-do list, declared on the site kit (served by `sites.server.build(extra=[SITE])`)."""

from pathlib import Path

from scenarios.profile import EventVocabulary, SiteProfile
from sites.kit.site import Site
from tests.sites.tiny.faults import FAULTS
from tests.sites.tiny.routes import api_router, page_router
from tests.sites.tiny.world import TinyState, generate

SITE = Site(
    profile=SiteProfile(
        name="tiny", host="tiny.test", title="Tick",
        vocabulary=EventVocabulary(entity_kinds=["todo"], listed=["todo_ids"], touched=["todo_id"]),
    ),
    package_dir=Path(__file__).resolve().parent,
    state_type=TinyState,
    generate=generate,
    routers=lambda pages: [api_router(), page_router(pages)],
    account_email=lambda state: state.email,
    faults=FAULTS,
)

"""CareBridge, the hermetic patient portal (`clinic.test`), on the site kit."""

from scenarios.profile import Affordances, EventVocabulary, SiteProfile
from sites.clinic.api import api_router
from sites.clinic.billing_pages import billing_api_router, billing_page_router
from sites.clinic.card_photos import card_photo_api_router
from sites.clinic.faults import FAULTS, TARGET
from sites.clinic.generator import generate
from sites.clinic.models import ClinicState
from sites.clinic.pages import clinic_filters, page_context, page_router
from sites.clinic.proxies import proxy_api_router, proxy_page_router
from sites.clinic.referrals import referral_page_router
from sites.clinic.summaries import summary_page_router
from sites.clinic.telehealth import video_api_router, video_page_router
from sites.kit.site import Site

SITE = Site(
    profile=SiteProfile(
        name="clinic", host="clinic.test", title="CareBridge",
        vocabulary=EventVocabulary(
            # Kinds as the events name them (generic layers never use these words).
            entity_kinds=["clinic_provider", "clinic_slot", "clinic_appointment", "clinic_message",
                          "clinic_result", "clinic_medication", "clinic_refill", "clinic_contact",
                          "clinic_insurance_card", "clinic_previsit_form", "clinic_statement", "clinic_claim",
                          "clinic_dispute", "clinic_payment", "clinic_video_visit",
                          "clinic_card_photo", "clinic_proxy",
                          "clinic_referral"],
            listed=["results", "appointment_ids", "message_ids", "medication_ids", "slot_ids", "statement_ids",
                    "claim_ids", "proxy_ids"],
            touched=["touched"],
        ),
        affordances=Affordances(sign_in="Sign in to CareBridge"),
        target=TARGET,
    ),
    faults=FAULTS,
    password_prefix="care",
    home_label="Back to your health summary",
    state_type=ClinicState,
    generate=generate,
    routers=lambda pages: [api_router(), billing_api_router(), video_api_router(), card_photo_api_router(),
                           proxy_api_router(), proxy_page_router(pages), referral_page_router(pages),
                           page_router(pages),
                           billing_page_router(pages), video_page_router(pages), summary_page_router(pages)],
    account_email=lambda state: state.patient.email,
    page_context=page_context,
    filters=clinic_filters(),
)

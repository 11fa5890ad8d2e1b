"""The features of the later task templates (refills with none left, billing, ...): what the pages show under
the role + name the plans use, the answers bound from the same state, and the writes' rules (4xx, never 500)."""

import base64
import re
from datetime import datetime
from typing import Any

import pytest

from harness.catalog.a11y_html import Page
from sites.clinic.billing import dollars

from . import client_for, new_world


async def _get(app: Any, episode: Any, path: str) -> Page:
    async with client_for(app, episode.id) as client:
        response = await client.get(path)
    assert response.status_code == 200, response.text[:300]
    return Page(response.text)


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_prescription_with_no_refills_left_says_so_and_cannot_be_refilled(seed: int) -> None:
    app, _store, episode = new_world(seed)
    asked = episode.bindings["refill"]
    page = await _get(app, episode, "/medications")
    assert f"{asked['empty_name']}: No refills left" in page.text()
    assert not page.find("link", f"Request refill of {asked['empty_name']}")
    assert page.find("link", f"Request refill of {asked['names'][0]}")
    async with client_for(app, episode.id) as client:
        refused = await client.post(f"/api/medications/{asked['empty_id']}/refills",
                                    json={"pharmacy_id": asked["pharmacy_id"]})
        page_refused = await client.get(f"/medications/{asked['empty_id']}/refill")
    assert refused.status_code == 409 and "no refills left" in refused.json()["detail"]
    assert page_refused.status_code == 409
    assert episode.state.refill_requests == []


# --- billing (focus billing) ------------------------------------------------------------------------------

def test_a_world_without_billing_serializes_without_its_collections() -> None:
    plain = new_world(2)[2]
    for key in ("statements", "claims", "bill_disputes", "bill_payments", "saved_cards"):
        assert f'"{key}"'.encode() not in plain.initial_state
    billed = new_world(2, focus="billing")[2]
    assert b'"statements"' in billed.initial_state


@pytest.mark.parametrize("seed", range(1, 7))
def test_one_line_of_one_statement_asks_more_than_its_claim_says(seed: int) -> None:
    world = new_world(seed, focus="billing")[2]
    state, asked = world.state, world.bindings["dispute"]
    claims = {c.id: c for c in state.claims}
    over = [(s.id, line.id) for s in state.statements for line in s.lines
            if line.you_owe_cents != next(c for c in claims[s.claim_id].lines if c.code == line.code).you_owe_cents]
    assert over == [(asked["statement_id"], asked["line_id"])]
    assert asked["statement_owes_cents"] > asked["eob_owes_cents"]
    labels = [r for r in (world.bindings["dispute"]["visit_label"], world.bindings["pay_bill"]["visit_label"])]
    assert labels[0] != labels[1]


@pytest.mark.parametrize("seed", range(1, 7))
def test_only_the_latest_claim_tells_the_deductible_left(seed: int) -> None:
    world = new_world(seed, focus="billing")[2]
    state, asked = world.state, world.bindings["deductible"]
    latest = max(state.claims, key=lambda c: c.processed_on)
    assert latest.id == asked["claim_id"]
    assert asked["remaining_cents"] == latest.deductible_cents - latest.deductible_met_cents > 0
    assert asked["older_remaining_cents"] > asked["remaining_cents"]


async def test_the_statement_links_its_eob_download_and_the_eob_says_what_is_left() -> None:
    app, _store, episode = new_world(3, focus="billing")
    asked, deductible = episode.bindings["dispute"], episode.bindings["deductible"]
    billing = await _get(app, episode, "/billing")
    assert billing.find("link", asked["visit_label"]) and billing.find("link", "Insurance claims")
    statement = await _get(app, episode, f"/billing/{asked['statement_id']}")
    assert statement.find("heading", f"Statement {asked['number']}")
    assert statement.find("link", f"Dispute {asked['service']}")
    async with client_for(app, episode.id) as client:
        response = await client.get(f"/claims/{deductible['claim_id']}/eob")
    assert response.headers["content-disposition"].startswith("attachment;")
    (row,) = Page(response.text).find("row", "/^Left to meet /")
    assert dollars(deductible["remaining_cents"]) in row.text()
    claims = await _get(app, episode, "/claims")
    links = claims.find("link", "/^Download the explanation of benefits of claim /")
    assert links[0].text() == "Download" and deductible["claim_number"] in links[0].attrs["aria-label"]


async def test_a_dispute_is_kept_once_and_shows_on_the_statement() -> None:
    app, _store, episode = new_world(4, focus="billing")
    asked = episode.bindings["dispute"]
    body = {"line_id": asked["line_id"], "reason": "eob_mismatch", "note": f"EOB says {asked['eob_owes']}"}
    async with client_for(app, episode.id) as client:
        made = await client.post(f"/api/statements/{asked['statement_id']}/disputes", json=body)
        again = await client.post(f"/api/statements/{asked['statement_id']}/disputes", json=body)
        bad_line = await client.post(f"/api/statements/{asked['statement_id']}/disputes",
                                     json={**body, "line_id": "l99"})
        no_note = await client.post(f"/api/statements/{asked['statement_id']}/disputes",
                                    json={"line_id": "l1", "reason": "other"})
        form_again = await client.get(f"/billing/{asked['statement_id']}/dispute?line={asked['line_id']}")
    assert made.status_code == 201 and again.status_code == 409 and bad_line.status_code == 404
    assert no_note.status_code == 422 and form_again.status_code == 409
    assert [(d.line_id, d.reason) for d in episode.state.bill_disputes] == [(asked["line_id"], "eob_mismatch")]
    page = await _get(app, episode, f"/billing/{asked['statement_id']}")
    assert f"{asked['service']}: Disputed" in page.text()


async def test_paying_in_full_gives_the_bound_confirmation_and_an_expired_card_is_refused() -> None:
    app, _store, episode = new_world(5, focus="billing")
    asked = episode.bindings["pay_bill"]
    url = f"/api/statements/{asked['statement_id']}/payments"
    async with client_for(app, episode.id) as client:
        expired = await client.post(url, json={"amount_cents": asked["balance_cents"], "card_id": "card1"})
        too_much = await client.post(url, json={"amount_cents": asked["balance_cents"] + 1, "card_id": "card2"})
        paid = await client.post(url, json={"amount_cents": asked["balance_cents"], "card_id": "card2"})
        twice = await client.post(url, json={"amount_cents": 100, "card_id": "card2"})
        pay_page = await client.get(f"/billing/{asked['statement_id']}/pay")
    assert expired.status_code == 409 and "expired" in expired.json()["detail"]
    assert too_much.status_code == 422 and paid.status_code == 201 and twice.status_code == 409
    assert pay_page.status_code == 409
    assert paid.json()["payment"]["confirmation"] == asked["confirmation"]
    statement = await _get(app, episode, f"/billing/{asked['statement_id']}")
    (group,) = statement.find("group", "/^Payment PAY-/")
    assert asked["confirmation"] in group.text() and not statement.find("link", "Pay this statement")


async def test_the_pay_form_names_the_full_balance_and_the_cards() -> None:
    app, _store, episode = new_world(6, focus="billing")
    asked = episode.bindings["pay_bill"]
    page = await _get(app, episode, f"/billing/{asked['statement_id']}/pay")
    assert page.find("radio", f"The full balance, {asked['balance']}")
    assert page.find("combobox", "Card") and asked["card_label"] in page.text()
    assert f"{asked['expired_card_label']} (expired)" in page.text()


@pytest.mark.parametrize("path", ["/billing", "/claims", "/billing/st0001", "/claims/cl0001/eob"])
async def test_billing_is_404_in_a_world_without_it(path: str) -> None:
    app, _store, episode = new_world(1)
    async with client_for(app, episode.id) as client:
        assert (await client.get(path)).status_code == 404
        assert (await client.post("/api/statements/st0001/payments",
                                  json={"amount_cents": 100, "card_id": "card2"})).status_code == 404


# --- video visits (focus telehealth) ------------------------------------------------------------------------

async def test_check_in_opens_for_the_visit_starting_soon_only_and_the_nurse_admits_on_the_third_check() -> None:
    app, _store, episode = new_world(2, focus="telehealth")
    asked = episode.bindings["telehealth"]
    today, later = asked["appointment_id"], asked["later_appointment_id"]
    visit = await _get(app, episode, f"/appointments/{today}")
    assert visit.find("link", "Check in for your video visit")
    assert "Check-in for this video visit opens" in (await _get(app, episode, f"/appointments/{later}")).text()
    form = await _get(app, episode, f"/appointments/{today}/check-in")
    assert form.find("textbox", "Describe your new symptoms") and form.find("radio", "Yes, I have new symptoms")
    body = {"located_in": asked["state"], "callback_phone": asked["phone"], "new_symptoms": True,
            "symptoms": asked["symptoms"], "consent": True}
    async with client_for(app, episode.id) as client:
        assert (await client.get(f"/appointments/{later}/check-in")).status_code == 409
        assert (await client.post(f"/api/appointments/{today}/join")).status_code == 409
        assert (await client.get(f"/api/appointments/{today}/waiting")).status_code == 409   # not checked in
        elsewhere = await client.post(f"/api/appointments/{today}/check-in", json={**body, "located_in": "Idaho"})
        no_words = await client.post(f"/api/appointments/{today}/check-in", json={**body, "symptoms": ""})
        no_consent = await client.post(f"/api/appointments/{today}/check-in", json={**body, "consent": False})
        not_bool = await client.post(f"/api/appointments/{today}/check-in", json={**body, "consent": "yes"})
        done = await client.post(f"/api/appointments/{today}/check-in", json=body)
        again = await client.post(f"/api/appointments/{today}/check-in", json=body)
        checks = [(await client.get(f"/api/appointments/{today}/waiting")).json() for _ in range(4)]
        joined = await client.post(f"/api/appointments/{today}/join")
    assert elsewhere.status_code == 409 and no_words.status_code == 422 and no_consent.status_code == 422
    assert not_bool.status_code == 422 and done.status_code == 201 and again.status_code == 409
    assert [c["admitted"] for c in checks] == [False, False, True, True]
    assert checks[2]["nurse"] == asked["nurse"] and joined.status_code == 200
    room = await _get(app, episode, f"/appointments/{today}/video")
    (group,) = room.find("group", "Admitted by")
    assert group.text() == f"Admitted by {asked['nurse']}"
    video = episode.state.video_visits[0]
    assert (video.located_in, video.callback_phone, video.symptoms) == (asked["state"], asked["phone"],
                                                                         asked["symptoms"])


@pytest.mark.parametrize("seed", range(1, 7))
def test_the_video_visit_starts_within_half_an_hour_and_check_in_is_open(seed: int) -> None:
    world = new_world(seed, focus="telehealth")[2]
    state, asked = world.state, world.bindings["telehealth"]
    visit = state.appointment(asked["appointment_id"])
    video = state.video_for(asked["appointment_id"])
    assert visit is not None and video is not None
    now = world.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    assert video.opens_at <= now < visit.start
    later = state.video_for(asked["later_appointment_id"])
    assert later is not None and later.opens_at > now and later.nurse != asked["nurse"]


# --- insurance card photos (focus card_photo) ---------------------------------------------------------------

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


async def test_a_card_photo_is_checked_kept_on_its_card_and_shown_on_the_profile() -> None:
    app, _store, episode = new_world(3, focus="card_photo")
    asked = episode.bindings["card_photo"]
    profile = await _get(app, episode, "/profile")
    assert profile.find("button", f"Photo of your {asked['label']} card")
    assert profile.find("button", f"Photo of your {asked['expired_label']} card")
    url = f"/api/profile/insurance/{asked['card_id']}/photo"
    photo = {"name": asked["file"], "content_type": "image/png", "data": base64.b64encode(PNG).decode()}
    async with client_for(app, episode.id) as client:
        not_png = await client.post(url, json={**photo, "data": base64.b64encode(b"GIF89a....").decode()})
        not_base64 = await client.post(url, json={**photo, "data": "%%%"})
        too_big = await client.post(url, json={**photo, "data": base64.b64encode(PNG + b"\x00" * 600_000).decode()})
        unknown = await client.post("/api/profile/insurance/ins9/photo", json=photo)
        made = await client.post(url, json=photo)
    assert not_png.status_code == 422 and not_base64.status_code == 422 and unknown.status_code == 404
    assert too_big.status_code in (413, 422) and made.status_code == 201
    (kept,) = episode.state.card_photos
    assert (kept.card_id, kept.name, kept.size_bytes) == (asked["card_id"], asked["file"], len(PNG))
    after = await _get(app, episode, "/profile")
    assert f"Photo of your {asked['label']} card on file: {asked['file']}" in after.text()


async def test_card_photos_are_404_in_a_world_without_them() -> None:
    app, _store, episode = new_world(3)
    photo = {"name": "a.png", "content_type": "image/png", "data": base64.b64encode(PNG).decode()}
    async with client_for(app, episode.id) as client:
        assert (await client.post("/api/profile/insurance/ins2/photo", json=photo)).status_code == 404
    assert not (await _get(app, episode, "/profile")).find("button", "/^Photo of your /")


# --- after-visit summaries (focus follow_up) ----------------------------------------------------------------

@pytest.mark.parametrize("seed", range(1, 7))
def test_the_follow_up_slot_is_the_first_in_the_named_week_and_the_doctor_is_free_before_it(seed: int) -> None:
    world = new_world(seed, focus="follow_up")[2]
    state, asked = world.state, world.bindings["follow_up"]
    (summary,) = state.visit_summaries
    assert summary.appointment_id == asked["visit_id"] and summary.follow_up_week_of == asked["week_of"]
    now = world.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    free = sorted(s.start for s in state.slots if s.provider_id == asked["provider_id"] and not s.taken
                  and s.start > now)
    slot = state.slot(asked["slot_id"])
    assert slot is not None and not slot.taken and slot.start[:10] >= asked["week_of"]
    assert next(s for s in free if s[:10] >= asked["week_of"]) == slot.start
    assert free[0] < asked["week_of"]   # the first opening is before the week: not the follow-up
    assert asked["first_open_slot_id"] != asked["slot_id"]


async def test_the_summary_is_a_download_from_the_visit_page_naming_the_week() -> None:
    app, _store, episode = new_world(4, focus="follow_up")
    asked = episode.bindings["follow_up"]
    visit = await _get(app, episode, f"/appointments/{asked['visit_id']}")
    (link,) = visit.find("link", "Download after-visit summary")
    async with client_for(app, episode.id) as client:
        response = await client.get(link.attrs["href"])
        other = await client.get(f"/appointments/{episode.bindings['cancel']['appointment_id']}/summary")
    assert response.headers["content-disposition"].startswith("attachment;")
    (follow,) = Page(response.text).find("group", "Follow-up")
    monday = datetime.strptime(asked["week_of"], "%Y-%m-%d")
    assert f"week of {monday:%A} {monday.day} {monday:%B %Y}" in follow.text()
    assert other.status_code == 404
    plain_app, _s, plain = new_world(4)
    async with client_for(plain_app, plain.id) as client:
        assert (await client.get(f"/appointments/{asked['visit_id']}/summary")).status_code in (404,)


# --- proxy access (focus proxy) -----------------------------------------------------------------------------

async def test_giving_limited_access_and_revoking_follow_the_rules() -> None:
    app, _store, episode = new_world(2, focus="proxy")
    asked = episode.bindings["proxy"]
    page = await _get(app, episode, "/profile/proxies")
    assert page.find("article", asked["old_name"]) and page.find("button", f"Revoke access for {asked['old_name']}")
    assert not page.find("button", f"Yes, revoke access for {asked['old_name']}")   # asked once more first
    assert page.find("checkbox", asked["area_labels"][0])   # shown to readers without scripts
    body = {"name": asked["name"], "email": asked["email"], "relationship": asked["relationship"],
            "scope": "limited", "areas": asked["areas"], "ends_on": asked["ends_on"], "understood": True}
    async with client_for(app, episode.id) as client:
        no_areas = await client.post("/api/profile/proxies", json={**body, "areas": []})
        past = await client.post("/api/profile/proxies", json={**body, "ends_on": "2001-01-01"})
        too_long = await client.post("/api/profile/proxies", json={**body, "ends_on": "2999-01-01"})
        unreal = await client.post("/api/profile/proxies", json={**body, "ends_on": "2025-02-30"})
        bad_area = await client.post("/api/profile/proxies", json={**body, "areas": ["everything"]})
        not_understood = await client.post("/api/profile/proxies", json={**body, "understood": False})
        made = await client.post("/api/profile/proxies", json=body)
        again = await client.post("/api/profile/proxies", json=body)
        revoked = await client.delete(f"/api/profile/proxies/{asked['old_id']}")
        twice = await client.delete(f"/api/profile/proxies/{asked['old_id']}")
        ended = await client.delete(f"/api/profile/proxies/{asked['ended_id']}")
        unknown = await client.delete("/api/profile/proxies/px9999")
    assert [r.status_code for r in (no_areas, past, too_long, unreal, bad_area, not_understood)] == [422] * 6
    assert made.status_code == 201 and again.status_code == 409
    assert revoked.status_code == 200 and twice.status_code == 409 and ended.status_code == 409
    assert unknown.status_code == 404
    new = episode.state.proxies[-1]
    assert (new.scope, new.areas, new.ends_on) == ("limited", asked["areas"], asked["ends_on"])
    after = await _get(app, episode, "/profile/proxies")
    assert f"{asked['old_name']}: access revoked" in after.text() and after.find("article", asked["name"])


async def test_proxy_access_is_404_in_a_world_without_it() -> None:
    app, _store, episode = new_world(2)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/profile/proxies")).status_code == 404
        assert (await client.delete("/api/profile/proxies/px0001")).status_code == 404
    assert not (await _get(app, episode, "/profile")).find("link", "Proxy access")


# --- a doctor asks for a lab value (focus lab_request) ------------------------------------------------------

@pytest.mark.parametrize("seed", range(1, 7))
def test_the_asked_value_is_the_newest_result_of_that_test(seed: int) -> None:
    world = new_world(seed, focus="lab_request")[2]
    state, asked = world.state, world.bindings["lab_request"]
    same = sorted((r for r in state.results if r.test == "Hemoglobin A1c"), key=lambda r: r.collected_at)
    assert same[-1].id == asked["result_id"] and f"{same[-1].components[0].value:g}" == asked["value"]
    assert max(state.results, key=lambda r: r.collected_at).id == asked["result_id"]
    assert asked["older_value"] != asked["value"]
    message = next(m for m in state.messages if m.id == asked["message_id"])
    assert not message.read and "Hemoglobin A1c" in message.body


async def test_a_message_from_the_care_team_can_be_replied_to() -> None:
    app, _store, episode = new_world(5, focus="lab_request")
    asked = episode.bindings["lab_request"]
    message = await _get(app, episode, f"/messages/{asked['message_id']}")
    (reply,) = message.find("link", "Reply")
    compose = await _get(app, episode, reply.attrs["href"])
    (subject,) = compose.find("textbox", "Subject")
    assert subject.attrs["value"] == f"Re: {asked['subject']}"
    (chosen,) = [o for o in compose.nodes if o.tag == "option" and "selected" in o.attrs]
    assert chosen.attrs["value"] == asked["provider_id"]
    results = await _get(app, episode, "/results")
    links = results.find("link", "Hemoglobin A1c")
    assert links[0].attrs["href"] == f"/results/{asked['result_id']}"
    async with client_for(app, episode.id) as client:
        assert (await client.get("/messages/new?reply=msg9999")).status_code == 404


async def test_a_card_photo_on_the_wrong_card_can_be_removed_once() -> None:
    app, _store, episode = new_world(4, focus="card_photo_fix")
    asked = episode.bindings["card_photo_fix"]
    profile = await _get(app, episode, "/profile")
    assert f"Photo of your {asked['expired_label']} card on file: {asked['file']}" in profile.text()
    assert profile.find("button", f"Remove the photo of your {asked['expired_label']} card")
    assert not profile.find("button", f"Remove the photo of your {asked['label']} card")
    async with client_for(app, episode.id) as client:
        none_yet = await client.delete(f"/api/profile/insurance/{asked['card_id']}/photo")
        removed = await client.delete(f"/api/profile/insurance/{asked['expired_card_id']}/photo")
        twice = await client.delete(f"/api/profile/insurance/{asked['expired_card_id']}/photo")
    assert none_yet.status_code == 404 and removed.status_code == 200 and twice.status_code == 404
    assert episode.state.card_photos == []
    after = await _get(app, episode, "/profile")
    assert f"Add a photo of your {asked['expired_label']} card" in after.text()


# --- referrals (focus referral) -----------------------------------------------------------------------------

async def test_a_specialist_needs_a_valid_referral_naming_them() -> None:
    app, _store, episode = new_world(3, focus="referral")
    state, asked = episode.state, episode.bindings["referral"]
    today_card = next(c for c in state.insurance_cards if not c.valid_to < episode.clock.now().date().isoformat())
    assert f"{today_card.carrier} {today_card.plan}" == asked["plan"] == "Meridian Care HMO Gold"
    assert len({c.carrier for c in state.insurance_cards}) == 2
    referrals = await _get(app, episode, "/referrals")
    assert f"{asked['specialty']} referral: Expired" in referrals.text()
    assert referrals.find("link", asked["doctor_name"])
    now = episode.clock.now().strftime("%Y-%m-%dT%H:%M:%SZ")

    def free(provider_id: str) -> str:
        return min((s for s in state.slots if s.provider_id == provider_id and not s.taken and s.start > now),
                   key=lambda s: s.start).id

    ortho = next(p for p in state.providers if p.specialty == "Orthopedics")
    other_derm = next(p for p in state.providers if p.specialty == "Dermatology" and p.id != asked["doctor_id"])
    family = next(p for p in state.providers if p.specialty == "Family Medicine")
    book_page = await _get(app, episode, f"/book/{free(ortho.id)}")
    assert "no valid Orthopedics referral" in book_page.text() and not book_page.find("button", "Confirm booking")
    async with client_for(app, episode.id) as client:
        refused = [await client.post("/api/appointments", json={"slot_id": free(p.id), "visit_reason": "Check"})
                   for p in (ortho, other_derm)]
        family_ok = await client.post("/api/appointments", json={"slot_id": free(family.id), "visit_reason": "Check"})
        named_ok = await client.post("/api/appointments", json={"slot_id": asked["slot_id"], "visit_reason": "Check"})
    assert [r.status_code for r in refused] == [409, 409]
    assert family_ok.status_code == 201 and named_ok.status_code == 201


async def test_referrals_are_404_in_a_world_without_them() -> None:
    app, _store, episode = new_world(3)
    async with client_for(app, episode.id) as client:
        assert (await client.get("/referrals")).status_code == 404
    assert not (await _get(app, episode, "/providers")).find("link", "Your referrals")


async def test_the_billing_totals_are_the_pages_numbers() -> None:
    app, _store, episode = new_world(6, focus="billing")
    state, asked = episode.state, episode.bindings["billing_totals"]
    assert asked["due_cents"] == sum(s.balance_cents for s in state.statements) > 0
    assert any(s.balance_cents == 0 for s in state.statements)   # the paid one counts for nothing
    billing = await _get(app, episode, "/billing")
    (total,) = billing.find("group", "Total due")
    assert dollars(asked["due_cents"]) in total.text()
    claims = await _get(app, episode, "/claims")
    (row,) = claims.find("row", f"/{asked['claim_number']}/")
    found = re.search(r"\d{4} (\$[0-9,]+\.[0-9]{2}) ", row.text())
    assert found is not None and found.group(1) == dollars(asked["claim_paid_cents"])
    assert asked["claim_visit_label"] in row.text() and asked["claim_paid_cents"] < asked["claim_billed_cents"]


async def test_a_payment_plan_splits_the_balance_and_is_kept_once() -> None:
    app, _store, episode = new_world(2, focus="billing")
    asked = episode.bindings["pay_plan"]
    statement = await _get(app, episode, f"/billing/{asked['statement_id']}")
    assert statement.find("link", "Set up a payment plan")
    form = await _get(app, episode, f"/billing/{asked['statement_id']}/plan")
    assert form.find("radio", asked["option"]) and form.find("combobox", "First payment on")
    body = {"months": 6, "card_id": "card2", "first_payment_on": asked["first_payment_on"], "agreed": True}
    url = f"/api/statements/{asked['statement_id']}/plan"
    async with client_for(app, episode.id) as client:
        bad_months = await client.post(url, json={**body, "months": 5})
        expired = await client.post(url, json={**body, "card_id": "card1"})
        bad_day = await client.post(url, json={**body, "first_payment_on": "2031-01-01"})
        not_agreed = await client.post(url, json={**body, "agreed": False})
        made = await client.post(url, json=body)
        again = await client.post(url, json=body)
        form_again = await client.get(f"/billing/{asked['statement_id']}/plan")
    assert [r.status_code for r in (bad_months, expired, bad_day, not_agreed)] == [422, 409, 422, 422]
    assert made.status_code == 201 and again.status_code == 409 and form_again.status_code == 409
    (plan,) = episode.state.payment_plans
    assert (plan.months, plan.monthly_cents) == (6, asked["monthly_cents"])
    assert plan.monthly_cents * 6 >= episode.state.statement_for(
        next(s.appointment_id for s in episode.state.statements if s.id == asked["statement_id"])).balance_cents
    after = await _get(app, episode, f"/billing/{asked['statement_id']}")
    assert after.find("group", "Payment plan") and not after.find("link", "Set up a payment plan")


async def test_the_later_video_visit_says_when_its_check_in_opens() -> None:
    app, _store, episode = new_world(3, focus="telehealth")
    asked = episode.bindings["telehealth"]
    page = await _get(app, episode, f"/appointments/{asked['later_appointment_id']}")
    (note,) = page.find("group", "Video check-in")
    found = re.search(r"at (\d{1,2}:\d{2} [AP]M) on", note.text())
    assert found is not None and found.group(1) == asked["later_opens"]
    listing = await _get(app, episode, "/appointments")
    assert len(listing.containers("Video review of thyroid medication")) >= 1


async def test_the_valid_referrals_row_gives_its_last_day_first() -> None:
    app, _store, episode = new_world(5, focus="referral")
    asked = episode.bindings["referral"]
    page = await _get(app, episode, "/referrals")
    (row,) = page.find("row", f"/^{asked['valid_specialty']} /")
    found = re.search(r"(\d{1,2} [A-Z][a-z]{2} \d{4})", row.text())
    assert found is not None
    assert datetime.strptime(found.group(1), "%d %b %Y").date().isoformat() == asked["valid_until"]
    assert asked["valid_until"] > episode.clock.now().date().isoformat() > asked["expired_until"]

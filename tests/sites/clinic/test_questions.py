"""The worlds of the question tasks (setup param `focus`) and the pages their answers are read from: the
expected answer is bound from the same state the page renders, under the role + name the plans use."""

import re
from datetime import datetime
from typing import Any

import pytest

from harness.catalog.a11y_html import Page
from sites.clinic.billing import dollars, visit_cost

from . import client_for, new_world


def test_each_focus_keeps_the_default_world_and_adds_its_group() -> None:
    plain = new_world(4)[2]
    for focus, group in [("next_visit", "next_visit"), ("copay", "copay"), ("accepting", "accepting"),
                         ("insurance", "insurance"), ("missing_doctor", "missing_doctor")]:
        world = new_world(4, focus=focus)[2]
        assert group in world.bindings and group not in plain.bindings
        # Every default group is as it was; only `target` is rebound.
        assert {k: v for k, v in world.bindings.items() if k not in (group, "target")} == \
            {k: v for k, v in plain.bindings.items() if k != "target"}
        assert world.bindings["target"] != plain.bindings["target"]
        assert new_world(4, focus=focus)[2].state_bytes() == world.state_bytes()
    assert new_world(4, focus="flagged")[2].state_bytes() == plain.state_bytes()


def test_an_unknown_focus_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="focus must be one of"):
        new_world(1, focus="dentistry")
    with pytest.raises(ValueError, match="unknown clinic setup param"):
        new_world(1, focous="copay")


@pytest.mark.parametrize("seed", range(1, 9))
def test_the_next_visit_is_the_earlier_of_two_with_that_doctor(seed: int) -> None:
    world = new_world(seed, focus="next_visit")[2]
    asked, state = world.bindings["next_visit"], world.state
    visits = sorted((a for a in state.appointments if a.provider_id == asked["provider_id"] and a.status == "booked"),
                    key=lambda a: a.start)
    assert [a.id for a in visits] == [asked["appointment_id"], asked["later_id"]]
    assert visits[0].start[:10] == asked["date"] < asked["later_date"]
    assert asked["other_date"] < asked["date"]   # the namesake's visit comes first in the list
    slot = state.slot(visits[1].slot_id or "")
    assert slot is not None and slot.taken and slot.start == visits[1].start


@pytest.mark.parametrize("seed", range(1, 9))
def test_the_copay_is_the_share_of_the_latest_visit_under_the_current_card(seed: int) -> None:
    world = new_world(seed, focus="copay")[2]
    asked, state = world.bindings["copay"], world.state
    latest = max((a for a in state.appointments if a.status == "completed"), key=lambda a: a.start)
    cost = visit_cost(state, latest)
    assert latest.id == asked["appointment_id"] and cost is not None and cost.card is not None
    assert cost.card.id == "ins2" and not cost.card.primary
    assert asked["patient_cents"] == cost.patient_cents < cost.price_cents == asked["price_cents"]
    assert cost.insurance_cents + cost.patient_cents == cost.price_cents


@pytest.mark.parametrize("seed", range(1, 9))
def test_some_but_not_all_doctors_of_the_specialty_accept_new_patients(seed: int) -> None:
    world = new_world(seed, focus="accepting")[2]
    asked, state = world.bindings["accepting"], world.state
    doctors = [p for p in state.providers if p.specialty == asked["specialty"]]
    assert asked["names"] == [p.name for p in doctors if p.accepting] and asked["closed_names"]
    assert len(asked["names"]) + len(asked["closed_names"]) == len(doctors)
    assert any(not p.accepting for p in state.providers if p.specialty != asked["specialty"])


@pytest.mark.parametrize("seed", range(1, 9))
def test_the_missing_doctor_has_only_a_namesake_elsewhere(seed: int) -> None:
    world = new_world(seed, focus="missing_doctor")[2]
    asked, state = world.bindings["missing_doctor"], world.state
    assert asked["provider_name"] not in {p.name for p in state.providers}
    near = [p for p in state.providers if p.last_name == asked["surname"]]
    assert [p.id for p in near] == [asked["near_id"]] and near[0].specialty != asked["specialty"]


# --- pages ---------------------------------------------------------------------------------------------

async def _page(focus: str, seed: int, path: str) -> tuple[Page, dict[str, Any]]:
    app, _store, episode = new_world(seed, focus=focus)
    async with client_for(app, episode.id) as client:
        response = await client.get(path.format(**episode.bindings))
    assert response.status_code == 200, response.text[:300]
    return Page(response.text), episode.bindings


async def test_the_appointments_list_shows_the_next_visit_first_for_that_doctor() -> None:
    page, bindings = await _page("next_visit", 2, "/appointments")
    asked = bindings["next_visit"]
    cards = page.find("article", f"/^{asked['specialty']} with {asked['provider_name']}, /")
    assert len(cards) == 2
    first = re.search(r"(\d{1,2} [A-Z][a-z]+ \d{4}) at", cards[0].text())
    assert first is not None and datetime.strptime(first.group(1), "%d %B %Y").date().isoformat() == asked["date"]


async def test_the_visit_page_shows_the_bill_with_the_share_the_binding_holds() -> None:
    page, bindings = await _page("copay", 3, "/appointments/{copay[appointment_id]}")
    asked = bindings["copay"]
    (row,) = page.find("row", "/^You paid /")
    assert dollars(asked["patient_cents"]) in row.text()
    (billed,) = page.find("row", "/^Billed by CareBridge /")
    assert dollars(asked["price_cents"]) in billed.text()
    (insurance,) = page.find("row", "/^Paid by insurance /")
    assert dollars(asked["insurance_cents"]) in insurance.text() and asked["carrier"] in insurance.text()


async def test_a_visit_before_any_cover_is_billed_in_full() -> None:
    app, _store, episode = new_world(1)
    state = episode.state
    card = state.card("ins1")
    assert card is not None
    visit = next(a for a in state.appointments if a.status == "completed")
    card.valid_from = "2100-01-01"   # no card covered the visit's day
    cost = visit_cost(state, visit)
    assert cost is not None and cost.card is None and cost.patient_cents == cost.price_cents
    async with client_for(app, episode.id) as client:
        page = Page((await client.get(f"/appointments/{visit.id}")).text)
        upcoming = Page((await client.get(f"/appointments/{episode.bindings['cancel']['appointment_id']}")).text)
    assert "no insurance on file" in page.find("row", "/^Paid by insurance /")[0].text()
    assert not upcoming.find("row", "/^You paid /")   # nothing billed before the visit


async def test_the_accepting_filter_lists_exactly_the_bound_names() -> None:
    page, bindings = await _page("accepting", 5, "/providers?specialty={accepting[specialty]}&accepting=1")
    asked = bindings["accepting"]
    headings = [re.match(r"^(Dr\. [^,]+?) ?,", h.text()) for h in page.find("heading", r"/^Dr\. /")]
    assert sorted(m.group(1) for m in headings if m) == sorted(asked["names"])
    everyone, _ = await _page("accepting", 5, "/providers?specialty={accepting[specialty]}")
    assert everyone.text().count("Not accepting new patients") == len(asked["closed_names"])
    assert page.find("checkbox", "Accepting new patients")


async def test_the_name_search_finds_nobody_of_the_missing_name_but_finds_the_namesake() -> None:
    page, bindings = await _page("missing_doctor", 6,
                                 "/providers?name={missing_doctor[first_name]}+{missing_doctor[surname]}")
    assert "No providers match" in page.text() and not page.find("heading", r"/^Dr\. /")
    assert page.find("searchbox", "Doctor's name")
    near, _ = await _page("missing_doctor", 6, "/providers?name={missing_doctor[surname]}")
    assert [h.text() for h in near.find("link", bindings["missing_doctor"]["near_name"])]


async def test_the_profile_shows_the_member_id_on_the_current_card() -> None:
    page, bindings = await _page("insurance", 7, "/profile")
    asked = bindings["insurance"]
    (card,) = page.find("article", f"{asked['carrier']} {asked['plan']}")
    assert f"Member ID {asked['member_id']}" in card.text() and "Expired" not in card.text()


@pytest.mark.parametrize("query", ["accepting=yes", "accepting=0", "name=" + "x" * 81, "specialty=Astrology"])
async def test_malformed_find_care_queries_are_400(query: str) -> None:
    app, _store, episode = new_world(1, focus="accepting")
    async with client_for(app, episode.id) as client:
        response = await client.get(f"/providers?{query}")
    assert response.status_code == 400


async def test_an_unknown_visit_is_404() -> None:
    app, _store, episode = new_world(1, focus="copay")
    async with client_for(app, episode.id) as client:
        assert (await client.get("/appointments/ap9999")).status_code == 404

"""Server-rendered pages: find care filters, the calendar and its date range, results that show
their flag only on the detail page, and 4xx pages with a message."""

from typing import Any

import pytest

from tests.sites.worlds import assert_error_page, world_fixture

from . import Doc, client_for, new_world

world = world_fixture(new_world, seed=2)


async def test_find_care_filters_and_the_calendar_links(world: tuple[Any, Any]) -> None:
    app, episode = world
    book = episode.bindings["book"]
    async with client_for(app, episode.id) as client:
        listed = Doc((await client.get("/providers?specialty=Cardiology&location=loc1")).text)
        assert listed.links(book["provider_name"]) and listed.links(book["other_name"])
        assert len(listed.links("View availability")) == 2
        page = Doc((await client.get(f"/providers/{book['provider_id']}")).text)
        wanted = f"Book {book['day']}, {book['time']}"
        assert [a for a in page.all("a") if a.attrs.get("aria-label") == wanted]
        reversed_range = await client.get(f"/providers/{book['provider_id']}?from=2030-02-01&to=2030-01-01")
        assert reversed_range.status_code == 400 and "swap" in reversed_range.text
        past = await client.get(f"/providers/{book['provider_id']}?from=2000-01-01")
        assert past.status_code == 400 and "past" in past.text
        bad = await client.get("/providers?specialty=Astrology")
        assert bad.status_code == 400


async def test_the_flag_shows_only_on_the_result_page(world: tuple[Any, Any]) -> None:
    app, episode = world
    flagged = episode.bindings["flagged"]
    async with client_for(app, episode.id) as client:
        listing = await client.get("/results")
        assert "Above range" not in listing.text and listing.text.count(f">{flagged['test']}</a>") == 3
        detail = await client.get(f"/results/{flagged['result_id']}")
        assert "Above range" in detail.text and flagged["component"] in detail.text
        for other in flagged["other_ids"]:
            assert "Above range" not in (await client.get(f"/results/{other}")).text
        compose = Doc((await client.get(f"/messages/new?result={flagged['result_id']}")).text)
        chosen = [o for o in compose.all("option") if "selected" in o.attrs]
        assert [o.attrs["value"] for o in chosen] == [flagged["provider_id"]]


async def test_the_previsit_form_preselects_the_expired_card(world: tuple[Any, Any]) -> None:
    app, episode = world
    pv = episode.bindings["previsit"]
    async with client_for(app, episode.id) as client:
        form = Doc((await client.get(f"/appointments/{pv['appointment_id']}/previsit")).text)
        options = [o.text for o in form.all("option")]
        assert options[0] == pv["old_card_label"] and pv["card_label"] in options
        profile = await client.get("/profile")
        assert "Expired" in profile.text


@pytest.mark.parametrize(("path", "status"), [
    ("/appointments/ap9999", 404), ("/results/r9999", 404), ("/book/s9999", 404),
    ("/results?from=2025-05-01&to=2025-01-01", 400), ("/results?from=yesterday", 400),
    ("/appointments/ap0001/cancel", 409), ("/messages/new?provider=pr99", 404),
])
async def test_bad_pages_answer_4xx_with_a_message(world: tuple[Any, Any], path: str, status: int) -> None:
    await assert_error_page(client_for, world, path, status, "Back to your health summary")


async def test_pages_emit_listing_and_inspect_events(world: tuple[Any, Any]) -> None:
    app, episode = world
    state = episode.state
    async with client_for(app, episode.id) as client:
        await client.get("/appointments")
        await client.get(f"/results/{episode.bindings['flagged']['result_id']}")
    listing, inspect = episode.events[-2:]
    assert listing.name == "view_appointments" and set(listing.detail["appointment_ids"]) == {
        a.id for a in state.appointments}
    assert inspect.kind == "inspect" and inspect.target == episode.bindings["flagged"]["result_id"]

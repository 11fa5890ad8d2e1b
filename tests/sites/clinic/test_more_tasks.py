"""The features of the later task templates (refills with none left, billing, ...): what the pages show under
the role + name the plans use, the answers bound from the same state, and the writes' rules (4xx, never 500)."""

from typing import Any

import pytest

from harness.catalog.a11y_html import Page

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

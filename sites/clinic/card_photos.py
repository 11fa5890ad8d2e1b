"""Photos of insurance cards (focus `card_photo`, `card_photo_fix`): the profile takes a photo of each card on
file, uploaded as soon as it is chosen, and removes one. The card still marked primary has expired; the one
that covers today is the other. With `card_photo_fix` the photo of the new card was put on the expired card.

Bindings:
    card_photo:     {card_id, label, file, expired_card_id, expired_label}
    card_photo_fix: the same, and wrong_photo_id (the photo on the expired card)
"""

import asyncio
from random import Random
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from scenarios.clock import EpisodeClock
from sites.clinic.models import PHOTO_MAX_BYTES, CardPhoto, ClinicEpisode, ClinicState, PhotoBody
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.uploads import decoded_upload, sha256_hex

# The portal checks that a photo is readable before it keeps it: that takes a moment.
PHOTO_CHECKED_IN_S = 0.6


def card_photo(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    today = clock.epoch.date().isoformat()
    current = next(c for c in state.insurance_cards if c.valid_from <= today <= c.valid_to)
    expired = next(c for c in state.insurance_cards if c.valid_to < today)
    state.card_photos = []
    bindings["card_photo"] = {
        "card_id": current.id, "label": f"{current.carrier} {current.plan}",
        "file": rng.choice(("insurance-card.png", "my-insurance-card.png", "card-front.png")),
        "expired_card_id": expired.id, "expired_label": f"{expired.carrier} {expired.plan}"}
    bindings["target"] = {"id": current.id, "name": f"{current.carrier} {current.plan}"}


def card_photo_fix(state: ClinicState, bindings: dict[str, Any], rng: Random, clock: EpisodeClock) -> None:
    card_photo(state, bindings, rng, clock)
    asked = bindings.pop("card_photo")
    assert state.card_photos is not None
    wrong = CardPhoto(id=state.take_id("photo", "cp"), card_id=asked["expired_card_id"], name=asked["file"],
                      content_type="image/png", size_bytes=rng.randint(40_000, 90_000),
                      sha256=f"{rng.getrandbits(256):064x}", uploaded_at=clock.ago(days=rng.randint(1, 3)))
    state.card_photos.append(wrong)
    bindings["card_photo_fix"] = {**asked, "wrong_photo_id": wrong.id}


def card_photo_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/profile/insurance/{card_id}/photo", status_code=201)
    @hook_point("card_photo", "write", target=lambda kw: kw["card_id"])
    async def upload(card_id: str, body: PhotoBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        if state.card_photos is None:
            raise HTTPException(404, "Card photos are not available on this account.")
        card = get_or_404(state.insurance_cards, card_id, "insurance card")
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type, max_bytes=PHOTO_MAX_BYTES,
                              what="photo")
        await asyncio.sleep(PHOTO_CHECKED_IN_S)
        # a new photo of a card replaces the one it had
        state.card_photos = [p for p in state.card_photos if p.card_id != card.id]
        made = CardPhoto(id=state.take_id("photo", "cp"), card_id=card.id, name=body.name,
                         content_type=body.content_type, size_bytes=len(data),
                         sha256=sha256_hex(data), uploaded_at=episode.clock.stamp())
        state.card_photos.append(made)
        episode.emit.commit("card_photo", made.id, card=card.id, file_name=made.name, touched=[made.id, card.id])
        return {"photo": made.model_dump()}

    @router.delete("/profile/insurance/{card_id}/photo")
    @hook_point("remove_card_photo", "write", target=lambda kw: kw["card_id"])
    async def remove(card_id: str, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        if state.card_photos is None:
            raise HTTPException(404, "Card photos are not available on this account.")
        card = get_or_404(state.insurance_cards, card_id, "insurance card")
        photo = next((p for p in state.card_photos if p.card_id == card.id), None)
        if photo is None:
            raise HTTPException(404, "This card has no photo.")
        episode.clock.stamp()
        state.card_photos.remove(photo)
        episode.emit.commit("remove_card_photo", photo.id, card=card.id, touched=[photo.id])
        return {"removed": photo.id}

    return router

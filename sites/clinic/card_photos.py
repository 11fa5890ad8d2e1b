"""Photos of insurance cards (focus `card_photo`, `card_photo_fix`): the profile takes a photo of each card on
file, uploaded as soon as it is chosen, and removes one. The card still marked primary has expired; the one
that covers today is the other. With `card_photo_fix` the photo of the new card was put on the expired card.

Bindings:
    card_photo:     {card_id, label, file, expired_card_id, expired_label}
    card_photo_fix: the same, and wrong_photo_id (the photo on the expired card)
"""

import asyncio
import base64
import binascii
import hashlib
from random import Random
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from scenarios.clock import EpisodeClock
from sites.clinic.models import PHOTO_MAX_BYTES, CardPhoto, ClinicEpisode, ClinicState, PhotoBody
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404

# The portal checks that a photo is readable before it keeps it: that takes a moment.
PHOTO_CHECKED_IN_S = 0.6
SIGNATURES = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}


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
        try:
            data = base64.b64decode(body.data, validate=True)
        except (binascii.Error, ValueError):
            raise HTTPException(422, "data must be the photo's bytes in base64") from None
        if len(data) > PHOTO_MAX_BYTES:
            raise HTTPException(413, f"a photo may be at most {PHOTO_MAX_BYTES // 1024} kB")
        if not data.startswith(SIGNATURES[body.content_type]):
            raise HTTPException(422, f"{body.name} is not a {body.content_type.split('/')[1].upper()} image")
        await asyncio.sleep(PHOTO_CHECKED_IN_S)
        # a new photo of a card replaces the one it had
        state.card_photos = [p for p in state.card_photos if p.card_id != card.id]
        made = CardPhoto(id=state.take_id("photo", "cp"), card_id=card.id, name=body.name,
                         content_type=body.content_type, size_bytes=len(data),
                         sha256=hashlib.sha256(data).hexdigest(), uploaded_at=episode.clock.stamp())
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

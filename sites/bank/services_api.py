"""The JSON API of Meridian Bank's card controls, alerts and evidence uploads (the older writes are in
`api.py`, with the same rules: check everything, then change the state, step the clock once and record
one `commit` event; a 4xx with a `detail` message changes nothing)."""

from datetime import date
from typing import Any

from fastapi import APIRouter, HTTPException, Request

from sites.bank.models import (
    UPLOAD_MAX_BYTES,
    AlertsBody,
    BankEpisode,
    CardLimitBody,
    FreezeBody,
    TravelBody,
    TravelNotice,
    Upload,
    UploadBody,
    parse_amount,
)
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.templating import format_cents
from sites.kit.uploads import decoded_upload, sha256_hex

MAX_TRIP_DAYS = 90          # a travel notice covers at most this many days
MAX_NOTICE_AHEAD_DAYS = 365


def services_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/cards/{card_id}/freeze")
    @hook_point("freeze_card", "write", target=lambda kw: kw["card_id"])
    async def freeze_card(card_id: str, body: FreezeBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        card = get_or_404(state.cards, card_id, "card")
        if card.frozen == body.frozen:
            raise HTTPException(409, f"This card is already {'frozen' if card.frozen else 'active'}.")
        at = episode.clock.stamp()
        card.frozen, card.frozen_at = body.frozen, at if body.frozen else None
        episode.emit.commit("freeze_card" if body.frozen else "unfreeze_card", card.id, touched=[card.id])
        return {"card": card.model_dump()}

    @router.put("/cards/{card_id}/limit")
    @hook_point("card_limit", "write", target=lambda kw: kw["card_id"])
    async def card_limit(card_id: str, body: CardLimitBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        card = get_or_404(state.cards, card_id, "card")
        cents = parse_amount(body.daily_spend, "The daily spending limit")
        if cents > card.max_daily_spend_cents:
            raise HTTPException(422, f"A {card.name.lower()} can spend at most "
                                     f"{format_cents(card.max_daily_spend_cents)} a day.")
        episode.clock.stamp()
        card.daily_spend_cents = cents
        episode.emit.commit("card_limit", card.id, amount_cents=cents, touched=[card.id])
        return {"card": card.model_dump()}

    @router.post("/cards/{card_id}/travel", status_code=201)
    @hook_point("travel_notice", "write", target=lambda kw: kw["card_id"])
    async def travel_notice(card_id: str, body: TravelBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        card = get_or_404(state.cards, card_id, "card")
        if not body.start_date or not body.end_date:
            raise HTTPException(422, "Give the first and the last day of the trip.")
        start, end, today = date.fromisoformat(body.start_date), date.fromisoformat(body.end_date), \
            episode.clock.now().date()
        if start < today:
            raise HTTPException(422, "The trip can't start in the past.")
        if end < start:
            raise HTTPException(422, "The last day is before the first.")
        if (end - start).days >= MAX_TRIP_DAYS or (start - today).days > MAX_NOTICE_AHEAD_DAYS:
            raise HTTPException(422, f"A travel notice covers up to {MAX_TRIP_DAYS} days within the next year.")
        at = episode.clock.stamp()
        notice = TravelNotice(id=state.take_id("travel", "tn", 2), card_id=card.id, destination=body.destination,
                              start_date=body.start_date, end_date=body.end_date, created_at=at)
        state.travel_notices.append(notice)
        episode.emit.commit("travel_notice", card.id, destination=body.destination, touched=[notice.id])
        return {"notice": notice.model_dump()}

    @router.delete("/travel/{notice_id}")
    @hook_point("remove_travel_notice", "write", target=lambda kw: kw["notice_id"])
    async def remove_travel_notice(notice_id: str, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        notice = get_or_404(state.travel_notices, notice_id, "travel notice")
        episode.clock.stamp()
        state.travel_notices = [n for n in state.travel_notices if n.id != notice.id]
        episode.emit.commit("remove_travel_notice", notice.card_id, touched=[notice.id])
        return {"removed": notice.id}

    @router.put("/alerts")
    @hook_point("update_alerts", "write")
    async def update_alerts(body: AlertsBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        episode.clock.stamp()
        alerts = state.alerts
        alerts.low_balance_on, alerts.low_balance_cents = body.low_balance_on, parse_amount(body.low_balance)
        alerts.large_payment_on, alerts.large_payment_cents = body.large_payment_on, parse_amount(body.large_payment)
        alerts.card_abroad_on, alerts.new_payee_on = body.card_abroad_on, body.new_payee_on
        alerts.channel = body.channel
        episode.emit.commit("update_alerts", "alerts", touched=["alerts"])
        return {"alerts": alerts.model_dump()}

    @router.post("/uploads", status_code=201)
    @hook_point("upload_evidence", "write", target=lambda kw: kw["body"].name)
    async def upload(body: UploadBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        data = decoded_upload(body.data, name=body.name, content_type=body.content_type, max_bytes=UPLOAD_MAX_BYTES)
        made = Upload(id=state.take_id("upload", "up"), name=body.name, content_type=body.content_type,
                      size_bytes=len(data), sha256=sha256_hex(data), uploaded_at=episode.clock.stamp())
        state.uploads.append(made)
        episode.emit.commit("upload_evidence", made.id, file_name=made.name, touched=[made.id])
        return {"upload": made.model_dump()}

    return router

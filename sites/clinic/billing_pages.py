"""Billing pages and writes (worlds with focus `billing`, sites/clinic/statements.py): the statements, a
statement's lines with a dispute per line, paying a statement with a saved card, the insurer's claims and the
explanation of benefits of each as a download. In a world without billing every route answers 404, as a
portal without the feature does."""

import asyncio
from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from sites.clinic.models import (
    DISPUTE_REASONS,
    BillDispute,
    BillPayment,
    ClinicEpisode,
    ClinicState,
    DisputeBody,
    PaymentBody,
    PaymentPlan,
    PlanBody,
    Statement,
)
from sites.clinic.statements import PLAN_MIN_CENTS, PLAN_MONTHS, plan_monthly, plan_starts, visit_label
from sites.kit.episode import SiteEpisode
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404, not_found
from sites.kit.notices import notice_of
from sites.kit.templating import Pages

# A card payment is authorised by the card's bank before it is recorded: it takes a moment.
PAYMENT_AUTHORISED_IN_S = 1.5
NOTICES = {"dispute": "Dispute sent: we'll review the charge and put it on hold meanwhile",
           "paid": "Payment received", "plan": "Payment plan set up"}
T = TypeVar("T")


def _on(feature: list[T] | None) -> list[T]:
    if feature is None:
        raise HTTPException(404, "Billing is not available on this account.")
    return feature


def _statement_view(state: ClinicState, statement: Statement) -> dict[str, Any]:
    appointment = state.appointment(statement.appointment_id)
    assert appointment is not None
    disputed = {d.line_id for d in state.bill_disputes or [] if d.statement_id == statement.id}
    return {"s": statement, "visit": appointment, "label": visit_label(state, appointment),
            "provider": state.provider(appointment.provider_id), "disputed": disputed,
            "claim": next((c for c in state.claims or [] if c.id == statement.claim_id), None),
            "payments": [p for p in state.bill_payments or [] if p.statement_id == statement.id],
            "plan": next((p for p in state.payment_plans or [] if p.statement_id == statement.id), None),
            "plan_ok": statement.balance_cents >= PLAN_MIN_CENTS}


def _plan_allowed(state: ClinicState, statement: Statement) -> None:
    if statement.balance_cents < PLAN_MIN_CENTS:
        raise HTTPException(409, "A balance this small is paid at once: payment plans start at "
                                 f"${PLAN_MIN_CENTS // 100}.")
    if any(p.statement_id == statement.id for p in _on(state.payment_plans)):
        raise HTTPException(409, "This statement is already on a payment plan.")


def billing_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    def render(episode: SiteEpisode, request: Request, template: str, **context: Any) -> HTMLResponse:
        return ui.render(episode, template, notice=notice_of(request, NOTICES), **context)

    @router.get("/billing", response_class=HTMLResponse)
    @hook_point("billing", "page")
    async def billing(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        statements = sorted(_on(state.statements), key=lambda s: (s.issued_on, s.id), reverse=True)
        episode.emit.navigate("view_billing", None, statement_ids=[s.id for s in statements])
        return render(episode, request, "billing.html", title="Billing", active="billing",
                      rows=[_statement_view(state, s) for s in statements],
                      due=sum(s.balance_cents for s in statements))

    @router.get("/billing/{statement_id}", response_class=HTMLResponse)
    @hook_point("statement", "page", target=lambda kw: kw["statement_id"])
    async def statement_page(statement_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, detail=not_found("statement"))
        episode.emit.inspect("view_statement", statement.id, revealed=["lines", "balance"])
        return render(episode, request, "statement.html", title=f"Statement {statement.number}", active="billing",
                      **_statement_view(state, statement))

    @router.get("/billing/{statement_id}/dispute", response_class=HTMLResponse)
    @hook_point("dispute_page", "page", target=lambda kw: kw["statement_id"])
    async def dispute_page(statement_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, detail=not_found("statement"))
        line = get_or_404(statement.lines, request.query_params.get("line", ""), detail=not_found("charge"))
        if any(d.statement_id == statement.id and d.line_id == line.id for d in state.bill_disputes or []):
            raise HTTPException(409, "You already disputed this charge: we are reviewing it.")
        episode.emit.navigate("view_dispute", statement.id, line=line.id)
        return render(episode, request, "dispute.html", title="Dispute a charge", active="billing",
                      line=line, reasons=DISPUTE_REASONS, **_statement_view(state, statement))

    @router.get("/billing/{statement_id}/pay", response_class=HTMLResponse)
    @hook_point("pay_page", "page", target=lambda kw: kw["statement_id"])
    async def pay_page(statement_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, detail=not_found("statement"))
        if statement.balance_cents == 0:
            raise HTTPException(409, "This statement is paid in full: there is nothing to pay.")
        episode.emit.navigate("view_pay", statement.id)
        month = episode.clock.now().strftime("%Y-%m")
        return render(episode, request, "pay.html", title=f"Pay statement {statement.number}", active="billing",
                      cards=state.saved_cards or [], month=month, **_statement_view(state, statement))

    @router.get("/billing/{statement_id}/plan", response_class=HTMLResponse)
    @hook_point("plan_page", "page", target=lambda kw: kw["statement_id"])
    async def plan_page(statement_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, detail=not_found("statement"))
        _plan_allowed(state, statement)
        episode.emit.navigate("view_plan", statement.id)
        today = episode.clock.now().date()
        return render(episode, request, "plan.html", title="Set up a payment plan", active="billing",
                      options=[(n, plan_monthly(statement.balance_cents, n)) for n in PLAN_MONTHS],
                      starts=plan_starts(today), cards=state.saved_cards or [],
                      month=episode.clock.now().strftime("%Y-%m"), **_statement_view(state, statement))

    @router.get("/claims", response_class=HTMLResponse)
    @hook_point("claims", "page")
    async def claims(request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        listed = sorted(_on(state.claims), key=lambda c: (c.processed_on, c.id), reverse=True)
        episode.emit.navigate("view_claims", None, claim_ids=[c.id for c in listed])
        rows = []
        for claim in listed:
            appointment = state.appointment(claim.appointment_id)
            assert appointment is not None
            rows.append({"c": claim, "label": visit_label(state, appointment), "card": state.card(claim.card_id),
                         "paid": sum(x.plan_paid_cents for x in claim.lines),
                         "owed": sum(x.you_owe_cents for x in claim.lines)})
        return render(episode, request, "claims.html", title="Insurance claims", active="billing", rows=rows)

    @router.get("/claims/{claim_id}/eob", response_class=HTMLResponse)
    @hook_point("eob", "page", target=lambda kw: kw["claim_id"])
    async def eob(claim_id: str, request: Request, episode: ClinicEpisode) -> HTMLResponse:
        state = episode.state
        claim = get_or_404(_on(state.claims), claim_id, detail=not_found("claim"))
        appointment = state.appointment(claim.appointment_id)
        assert appointment is not None
        episode.emit.inspect("download_eob", claim.id, revealed=["lines", "deductible"])
        page = ui.render(episode, "eob.html", claim=claim, card=state.card(claim.card_id), visit=appointment,
                         provider=state.provider(appointment.provider_id), patient_name=state.patient.name)
        # a document to keep: the browser saves it rather than showing it
        page.headers["Content-Disposition"] = f'attachment; filename="explanation-of-benefits-{claim.number}.html"'
        return page

    return router


def billing_api_router() -> APIRouter:
    router = APIRouter(prefix="/api")

    @router.post("/statements/{statement_id}/disputes", status_code=201)
    @hook_point("dispute_charge", "write", target=lambda kw: kw["statement_id"])
    async def dispute(statement_id: str, body: DisputeBody, request: Request,
                      episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, "statement")
        disputes = _on(state.bill_disputes)
        line = get_or_404(statement.lines, body.line_id, "charge")
        if any(d.statement_id == statement.id and d.line_id == line.id for d in disputes):
            raise HTTPException(409, "You already disputed this charge: we are reviewing it.")
        if body.reason == "other" and not body.note:
            raise HTTPException(422, "note: tell us what is wrong in a few words")
        made = BillDispute(id=state.take_id("dispute", "dp"), statement_id=statement.id, line_id=line.id,
                           reason=body.reason, note=body.note, opened_at=episode.clock.stamp())
        disputes.append(made)
        episode.emit.commit("dispute_charge", made.id, statement=statement.id, line=line.id, touched=[made.id])
        return {"dispute": made.model_dump(), "url": f"/billing/{statement.id}"}

    @router.post("/statements/{statement_id}/plan", status_code=201)
    @hook_point("payment_plan", "write", target=lambda kw: kw["statement_id"])
    async def plan(statement_id: str, body: PlanBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, "statement")
        _plan_allowed(state, statement)
        card = get_or_404(state.saved_cards or [], body.card_id, "saved card")
        if card.expires < episode.clock.now().strftime("%Y-%m"):
            raise HTTPException(409, f"Your {card.label} has expired: choose another card.")
        starts = [d.isoformat() for d in plan_starts(episode.clock.now().date())]
        if body.first_payment_on not in starts:
            raise HTTPException(422, f"first_payment_on: one of {', '.join(starts)}")
        if not body.agreed:
            raise HTTPException(422, "agreed: agree to the automatic monthly payments")
        made = PaymentPlan(id=state.take_id("plan", "pp"), statement_id=statement.id, months=body.months,
                           monthly_cents=plan_monthly(statement.balance_cents, body.months), card=card.id,
                           first_payment_on=body.first_payment_on, created_at=episode.clock.stamp())
        _on(state.payment_plans).append(made)
        episode.emit.commit("payment_plan", made.id, statement=statement.id, months=made.months, touched=[made.id])
        return {"plan": made.model_dump(), "url": f"/billing/{statement.id}"}

    @router.post("/statements/{statement_id}/payments", status_code=201)
    @hook_point("pay_statement", "write", target=lambda kw: kw["statement_id"])
    async def pay(statement_id: str, body: PaymentBody, request: Request, episode: ClinicEpisode) -> dict[str, Any]:
        state = episode.state
        statement = get_or_404(_on(state.statements), statement_id, "statement")
        payments = _on(state.bill_payments)
        card = get_or_404(state.saved_cards or [], body.card_id, "saved card")
        if card.expires < episode.clock.now().strftime("%Y-%m"):
            raise HTTPException(409, f"Your {card.label} has expired: choose another card.")
        await asyncio.sleep(PAYMENT_AUTHORISED_IN_S)
        # the balance is checked once the card is authorised: another payment may have landed meanwhile
        if statement.balance_cents == 0:
            raise HTTPException(409, "This statement is paid in full: there is nothing to pay.")
        if body.amount_cents > statement.balance_cents:
            raise HTTPException(422, "amount_cents: more than the balance due")
        made = BillPayment(id=state.take_id("payment", "pm"), statement_id=statement.id,
                           amount_cents=body.amount_cents, card=card.id,
                           confirmation=statement.pay_code if not any(
                               p.statement_id == statement.id for p in payments) else
                           f"{statement.pay_code}-{sum(p.statement_id == statement.id for p in payments) + 1}",
                           paid_at=episode.clock.stamp())
        statement.paid_cents += body.amount_cents
        payments.append(made)
        episode.emit.commit("pay_statement", made.id, statement=statement.id, amount_cents=made.amount_cents,
                            touched=[made.id, statement.id])
        return {"payment": made.model_dump(), "url": f"/billing/{statement.id}"}

    return router

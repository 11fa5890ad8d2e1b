"""Meridian Bank's pages for cards, alerts and tax documents, and the statement as a file to keep.
Pages only read; their writes go through `services_api.py` from the page's script."""

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from sites.bank import content as C
from sites.bank.models import BankEpisode
from sites.bank.pages import NO_ACCOUNT, NOTICES, statement_figures
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.notices import notice_of
from sites.kit.templating import Pages

CHANNELS = {"email": "Email", "text": "Text message", "both": "Email and text message"}


def services_page_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    @router.get("/cards", response_class=HTMLResponse)
    @hook_point("cards", "page")
    async def cards(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        episode.emit.navigate("view_cards", card_ids=[c.id for c in state.cards])
        return ui.render(episode, "cards.html", title="Cards", cards=state.cards,
                         accounts={a.id: a.name for a in state.accounts}, notice=notice_of(request, NOTICES),
                         active="cards")

    @router.get("/cards/{card_id}", response_class=HTMLResponse)
    @hook_point("card", "page", target=lambda kw: kw["card_id"])
    async def card(card_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.cards, card_id, detail="There is no such card.")
        account = get_or_404(state.accounts, found.account_id, detail=NO_ACCOUNT)
        notices = sorted((n for n in state.travel_notices if n.card_id == found.id), key=lambda n: (n.start_date, n.id))
        episode.emit.inspect("view_card", found.id, revealed=["status", "limit", "travel_notices"])
        # a world without authorised users shows no such section (None), so its card pages keep their bytes
        users = None if state.authorised_users is None else [u for u in state.authorised_users if u.card_id == found.id]
        return ui.render(episode, "card.html", title=found.label, c=found, account=account, notices=notices,
                         users=users, destinations=C.DESTINATIONS, today=episode.clock.now().date().isoformat(),
                         notice=notice_of(request, NOTICES), active="cards")

    @router.get("/alerts", response_class=HTMLResponse)
    @hook_point("alerts", "page")
    async def alerts(request: Request, episode: BankEpisode) -> HTMLResponse:
        episode.emit.navigate("view_alerts")
        return ui.render(episode, "alerts.html", title="Alerts", a=episode.state.alerts, channels=CHANNELS,
                         notice=notice_of(request, NOTICES), active="alerts")

    @router.get("/documents", response_class=HTMLResponse)
    @hook_point("documents", "page")
    async def documents(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        docs = sorted(state.tax_documents, key=lambda d: (-d.year, d.form, d.issued_on, d.id))
        episode.emit.navigate("view_documents", document_ids=[d.id for d in docs])
        return ui.render(episode, "documents.html", title="Tax documents", docs=docs,
                         accounts={a.id: a.name for a in state.accounts}, active="documents")

    @router.get("/documents/{document_id}", response_class=HTMLResponse)
    @hook_point("document", "page", target=lambda kw: kw["document_id"])
    async def document(document_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(state.tax_documents, document_id, detail="There is no such document.")
        account = get_or_404(state.accounts, found.account_id, detail=NO_ACCOUNT)
        episode.emit.inspect("download_document", found.id, revealed=["boxes"])
        page = ui.render(episode, "tax_form.html", d=found, account=account, user=state.user)
        # a document to keep: the browser saves it rather than showing it
        suffix = "-corrected" if found.corrected else ""
        page.headers["Content-Disposition"] = (f'attachment; filename="meridian-{found.form.lower()}-{found.year}'
                                               f'{suffix}.html"')
        return page

    @router.get("/accounts/{account_id}/statements/{month}/download", response_class=HTMLResponse)
    @hook_point("statement_download", "page", target=lambda kw: kw["account_id"])
    async def statement_download(account_id: str, month: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        account = get_or_404(state.accounts, account_id, detail=NO_ACCOUNT)
        figures = statement_figures(episode, account, month)
        episode.emit.inspect("download_statement", account.id, revealed=["statement"], month=month)
        page = ui.render(episode, "statement_doc.html", account=account, statement=figures, user=state.user)
        page.headers["Content-Disposition"] = f'attachment; filename="meridian-{account.kind}-{month}.html"'
        return page

    return router


__all__ = ["services_page_router"]
